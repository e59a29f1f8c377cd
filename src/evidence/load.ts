// Reads one article's snapshots folder: run.yaml plus one <step>.yaml per step
// it lists, each validated against schema.ts. Synchronous on purpose: it runs
// once per article at build time. Every problem found is reported at once.
import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Whether a path exists as an entry (a dangling link included). */
function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
import { load } from 'js-yaml';
import type { z } from 'zod';
import { runSchema, stepSchema, type RunSnapshot, type StepSnapshot } from './schema.ts';
import { EvidenceError, describeValue, displayPath } from './errors.ts';
import { formatIssues, formatPath } from './issues.ts';
import { originProblems } from './run-origin.ts';

export interface Snapshots {
  dir: string;
  run: RunSnapshot;
  /** Keyed by step id, in run.yaml's order. */
  steps: Map<string, StepSnapshot>;
  /** The file each snapshot was read from (as messages show it). */
  files: { run: string; steps: Map<string, string> };
}

/**
 * Parse YAML text; a syntax error names the file, line and column. Aliases are
 * refused: the capture writes none, and one alias repeated expands far beyond
 * the size limits, which count the file. Pure.
 */
export function parseYaml(text: string, file: string): unknown {
  if (text.trim() === '') throw new EvidenceError(`${file}: the file is empty; expected a YAML mapping`);
  try {
    return load(text, { filename: file, maxAliases: 0 });
  } catch (error) {
    const e = error as { reason?: string; mark?: { line: number; column: number }; message?: string };
    const at = e.mark ? `:${e.mark.line + 1}:${e.mark.column + 1}` : '';
    const reason = e.reason ?? e.message ?? String(error);
    if (reason.startsWith('aliases exceeded maxAliases'))
      throw new EvidenceError(
        `${file}${at}: a YAML alias (*name); expected none, as the capture writes them (an alias repeats its anchor's value past the size limits)`,
      );
    throw new EvidenceError(`${file}${at}: YAML syntax error: ${reason}`);
  }
}

function validate<S extends z.ZodType>(schema: S, data: unknown, file: string): z.infer<S> {
  const result = schema.safeParse(data, { reportInput: true });
  if (!result.success) throw new EvidenceError(formatIssues(file, result.error.issues, schema));
  return result.data;
}

function duplicates(values: string[]): Array<[string, number]> {
  const seen = new Set<string>();
  return values.flatMap((v, i) => (seen.has(v) ? [[v, i] as [string, number]] : (seen.add(v), [])));
}

/** run.yaml's text -> a validated RunSnapshot, checked beyond the schema (unique names, pods on known nodes). Pure. */
export function parseRunSnapshot(text: string, file: string): RunSnapshot {
  const run = validate(runSchema, parseYaml(text, file), file);
  const problems: string[] = [];
  // Only a verify on a cluster that refused its node agents ran no step; every other run ran the experiment.
  if (run.steps.length === 0 && run.driver !== 'existing')
    problems.push(`${file}: field "steps": expected at least one step id; only a verify run (driver existing) whose cluster refused its node agents has none`);
  const nodeNames = run.nodes.map((n) => n.name);
  for (const [list, key] of [
    ['nodes', nodeNames],
    ['pods', run.pods.map((p) => p.name)],
    ['services', run.services.map((s) => s.name)],
    ['steps', run.steps],
  ] as const) {
    for (const [value, index] of duplicates([...key])) {
      problems.push(
        `${file}: field "${formatPath([list, index])}": ${JSON.stringify(value)} appears twice; expected unique ${list === 'steps' ? 'step ids' : 'names'}`,
      );
    }
  }
  run.pods.forEach((pod, i) => {
    if (!nodeNames.includes(pod.node)) {
      problems.push(
        `${file}: field "${formatPath(['pods', i, 'node'])}": expected one of the run's nodes (${nodeNames.join(', ')}), got ${JSON.stringify(pod.node)}`,
      );
    }
  });
  if (problems.length) throw new EvidenceError(problems);
  return run;
}

/** A step file's text -> a validated StepSnapshot whose id matches its file name and whose node is known. Pure. */
export function parseStepSnapshot(text: string, file: string, expected: { id: string; nodes: string[] }): StepSnapshot {
  const step = validate(stepSchema, parseYaml(text, file), file);
  const problems: string[] = [];
  if (step.id !== expected.id) {
    problems.push(`${file}: field "id": expected ${JSON.stringify(expected.id)} (the file's name), got ${JSON.stringify(step.id)}`);
  }
  const nodes = [...expected.nodes, 'host'];
  if (!nodes.includes(step.node)) {
    problems.push(`${file}: field "node": expected one of the run's nodes or "host" (${nodes.join(', ')}), got ${JSON.stringify(step.node)}`);
  }
  if (problems.length) throw new EvidenceError(problems);
  return step;
}

/** A snapshot file larger than this is not one the capture wrote (each stream is kept to 1 MiB). */
export const MAX_SNAPSHOT_FILE_BYTES = 8 * 1024 * 1024;

/**
 * The offset of the first byte that is not part of well-formed UTF-8 (an
 * overlong form, a surrogate and a code point above U+10FFFF included), or -1
 * when all of it is. Pure.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    // The length of the sequence and the range its second byte must fall in (RFC 3629's table).
    const [length, low, high] =
      b >= 0xc2 && b <= 0xdf
        ? [2, 0x80, 0xbf]
        : b === 0xe0
          ? [3, 0xa0, 0xbf]
          : b === 0xed
            ? [3, 0x80, 0x9f]
            : b >= 0xe1 && b <= 0xef
              ? [3, 0x80, 0xbf]
              : b === 0xf0
                ? [4, 0x90, 0xbf]
                : b === 0xf4
                  ? [4, 0x80, 0x8f]
                  : b >= 0xf1 && b <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k += 1) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? low : 0x80) || c > (k === 1 ? high : 0xbf)) return i + k;
    }
    i += length;
  }
  return -1;
}

/**
 * Reads a snapshot file only when it is a regular file inside `realDir` (no
 * symbolic link, nothing that resolves elsewhere, no second hard link) that is
 * not oversized and is UTF-8; otherwise the problem names the file and what was
 * expected, and never its content.
 */
function readSnapshotFile(file: string, shown: string, realDir: string): string {
  const stat = lstatSync(file);
  if (stat.isSymbolicLink())
    throw new EvidenceError(`${shown}: is a symbolic link; expected a regular file written by the capture (snapshots are not read through links)`);
  if (!stat.isFile()) throw new EvidenceError(`${shown}: is not a regular file; expected a YAML file written by the capture`);
  // A second name of any file on this file system (/etc/passwd) looks like a regular file: only a link count tells.
  if (stat.nlink !== 1)
    throw new EvidenceError(
      `${shown}: has ${stat.nlink} hard links; expected a file the capture wrote, with one link (another name of some other file is not read)`,
    );
  const real = realpathSync(file);
  if (dirname(real) !== realDir) throw new EvidenceError(`${shown}: resolves outside the snapshots folder; expected a file inside it`);
  if (stat.size > MAX_SNAPSHOT_FILE_BYTES)
    throw new EvidenceError(`${shown}: ${stat.size} bytes; expected at most ${MAX_SNAPSHOT_FILE_BYTES} (the capture keeps 1 MiB per stream)`);
  const bytes = readFileSync(file);
  const bad = invalidUtf8Offset(bytes);
  // Decoding would turn the byte into U+FFFD without a word: a value no run printed.
  if (bad >= 0)
    throw new EvidenceError(
      `${shown}: byte ${bad} (0x${bytes[bad]!.toString(16).padStart(2, '0')}) is not UTF-8; expected a UTF-8 file as the capture writes them (output that is not UTF-8 is stored as base64)`,
    );
  return bytes.toString('utf8');
}

/**
 * How to recover when an interrupted capture left folders beside `dir` (its
 * swap's `.previous-` or a `.staging-`): '' when it left none. A missing folder
 * with these beside it is a swap cut short, not an article never measured.
 */
export function interruptedSwapHint(dir: string): string {
  let siblings: string[];
  try {
    siblings = readdirSync(dirname(dir));
  } catch {
    return '';
  }
  const mark = `.${basename(dir)}.`;
  const left = siblings.filter((name) => name.startsWith(`${mark}previous-`) || name.startsWith(`${mark}staging-`));
  if (left.length === 0) return '';
  return `; a capture was interrupted during its swap and left ${left.map((n) => displayPath(join(dirname(dir), n))).join(', ')}: run \`npm run capture -- --clean\` (or the next capture) to finish or undo the swap`;
}

/**
 * Loads and validates `<dir>/run.yaml` and every step it lists; throws one
 * EvidenceError listing every problem. With `expected.slug`, a run.yaml naming
 * another article is refused: its values would be shown as this article's.
 */
export function loadSnapshots(dir: string, expected: { slug?: string } = {}): Snapshots {
  const shownDir = displayPath(dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new EvidenceError(
      `${shownDir}: snapshot folder not found; expected run.yaml and one <step>.yaml per step (npm run capture writes them)${interruptedSwapHint(dir)}`,
    );
  }
  const realDir = realpathSync(dir);
  const runFile = join(dir, 'run.yaml');
  const shownRun = displayPath(runFile);
  if (!lexists(runFile)) {
    throw new EvidenceError(`${shownRun}: file not found; expected the run's metadata (run id, driver, nodes, services, steps)`);
  }
  const run = parseRunSnapshot(readSnapshotFile(runFile, shownRun, realDir), shownRun);
  if (expected.slug !== undefined && run.slug !== expected.slug) {
    throw new EvidenceError(
      `${shownRun}: field "slug": expected ${JSON.stringify(expected.slug)} (the article these snapshots are read for), got ${describeValue(run.slug)}`,
    );
  }

  const problems: string[] = [];
  const steps = new Map<string, StepSnapshot>();
  const stepFiles = new Map<string, string>();
  const nodes = run.nodes.map((n) => n.name);
  run.steps.forEach((id, index) => {
    const file = join(dir, `${id}.yaml`);
    const shown = displayPath(file);
    if (!lexists(file)) {
      problems.push(`${shownRun}: field "${formatPath(['steps', index])}": lists step ${JSON.stringify(id)}, but ${shown} does not exist`);
      return;
    }
    try {
      steps.set(id, parseStepSnapshot(readSnapshotFile(file, shown, realDir), shown, { id, nodes }));
      stepFiles.set(id, shown);
    } catch (error) {
      if (!(error instanceof EvidenceError)) throw error;
      problems.push(...error.problems);
    }
  });
  // A YAML file nobody lists is a leftover of another run: the folder would no longer be one run.
  const listed = new Set(run.steps.map((id) => `${id}.yaml`));
  for (const name of readdirSync(dir).sort()) {
    if (/\.ya?ml$/.test(name) && name !== 'run.yaml' && !listed.has(name)) {
      problems.push(`${displayPath(join(dir, name))}: not listed in ${shownRun} field "steps"; expected only the listed steps' files beside run.yaml`);
    }
  }
  if (problems.length) throw new EvidenceError(problems);
  const contradictions = originProblems(run, steps, { run: shownRun, steps: stepFiles });
  if (contradictions.length) throw new EvidenceError(contradictions);
  return { dir, run, steps, files: { run: shownRun, steps: stepFiles } };
}
