// The 分步演示 (step-by-step) view of an experiment: each stop shows the object
// it is about (a manifest document, with the fields that matter highlighted)
// and links the outputs of the steps it covers. Its stops are declared in the
// article's definition; their titles and prose are the MDX's <Stop>s.
import type { WalkthroughStop } from '../../authoring/parts.ts';

export type { WalkthroughStop };

export interface ManifestExcerpt {
  code: string;
  /** 1-based line numbers to highlight. */
  highlightLines: number[];
}

/**
 * The YAML document `Kind/name` out of a multi-document manifest text, with the
 * lines of the highlighted keys. Pure; errors name the file and what was looked for.
 */
export function manifestExcerpt(file: string, text: string, document: string, highlight: readonly string[]): ManifestExcerpt {
  const [kind, name] = document.split('/');
  const docs = text.split(/^---\s*$/m);
  const doc = docs.find((d) => new RegExp(`^kind:\\s*${kind}\\s*$`, 'm').test(d) && new RegExp(`^\\s+name:\\s*${name}\\s*$`, 'm').test(d));
  if (!kind || !name || !doc) throw new Error(`${file}: no YAML document ${document} (expected "Kind/name" of a document in the file)`);
  const lines = doc.replace(/^\n+|\n+$/g, '').split('\n');
  // the file's own header comment belongs to the file, not to this document
  while (lines[0]?.startsWith('#')) lines.shift();
  const highlightLines: number[] = [];
  for (const key of highlight) {
    const index = lines.findIndex((l) => new RegExp(`^\\s*-?\\s*${key}:`).test(l));
    if (index < 0) throw new Error(`${file}: ${document} has no field "${key}" to highlight`);
    highlightLines.push(index + 1);
  }
  return { code: lines.join('\n'), highlightLines };
}
