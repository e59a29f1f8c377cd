// A value an experiment's manifest declares: `Deployment/web` + `spec.replicas`
// read from the YAML text of the file. Pure: the caller reads the file.
import { loadAll } from 'js-yaml';
import { ExtractError } from '../errors.ts';

type Json = Record<string, unknown>;

/** The scalar at `path` (dotted; list items by index, e.g. `spec.template.spec.topologySpreadConstraints.0.maxSkew`) of the document `Kind/name`. */
export function manifestValue(text: string, object: string, path: string): string {
  const [kind, name] = object.split('/');
  if (!kind || !name) throw new ExtractError(`object "${object}": expected Kind/name`);
  let docs: unknown[];
  try {
    docs = loadAll(text);
  } catch (error) {
    throw new ExtractError(`not valid YAML (${(error as Error).message.split('\n')[0]})`);
  }
  const doc = docs.find((d) => (d as Json | null)?.kind === kind && ((d as Json).metadata as Json | undefined)?.name === name);
  if (doc === undefined) throw new ExtractError(`no document ${object}`);
  const value = path.split('.').reduce<unknown>((cur, key) => (cur as Json | null | undefined)?.[key], doc);
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new ExtractError(`${object}: field ${path}: expected a number, a string or a boolean, got ${value === undefined ? 'nothing' : typeof value}`);
  }
  return String(value);
}
