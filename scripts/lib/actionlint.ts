// actionlint, the linter of GitHub Actions workflows that `npm run
// lint:workflows` (and npm test's workflows suite) runs: where the project
// builds it (tools/, its own Go module, into the machine cache, ~/.cache/shice/tools/bin), which files it
// lints, the flags that decide what it checks, and what its answer means.
// Pure: the caller reads the folders, finds shellcheck and runs actionlint.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MACHINE_CACHE } from '../../src/capture/machine/machine-cache.ts';

/** The project root's tools/ Go module: it requires actionlint at the pinned version (a `tool` line). */
export const TOOLS_MODULE_DIR = fileURLToPath(new URL('../../tools', import.meta.url));
/** The files whose content decides the build. */
export const TOOLS_MODULE_FILES = ['go.mod', 'go.sum'] as const;
/** Where the build puts the binary: the machine's cache, like the Kubernetes binaries. */
export const BUILT_TOOLS_BIN_DIR = join(MACHINE_CACHE, 'tools', 'bin');
export const ACTIONLINT_BINARY = join(BUILT_TOOLS_BIN_DIR, 'actionlint');
export const ACTIONLINT_MODULE = 'github.com/rhysd/actionlint';
export const ACTIONLINT_PACKAGE = `${ACTIONLINT_MODULE}/cmd/actionlint`;
/** What the lint reads when named no path: the folder GitHub reads workflows from. */
export const DEFAULT_WORKFLOW_DIR = '.github/workflows';

/** The version go.mod requires of a module, or null when it requires none. */
export function requiredVersion(goMod: string, module: string): string | null {
  const escaped = module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod)?.[1] ?? null;
}

/** A workflow file by its name: GitHub reads `.yml` and `.yaml`. */
export const isWorkflowName = (name: string) => /\.ya?ml$/.test(name);

/** What the listing needs of the file system: a path's kind (null when there is none) and a folder's entries. */
export interface Listing {
  kind: (path: string) => 'file' | 'dir' | null;
  entries: (dir: string) => string[];
}

/**
 * The workflow files the paths name: a folder's `.yml` and `.yaml` files (its
 * top level, as GitHub reads .github/workflows), a file as named. No file at
 * all, a path that is not there or a named file of another kind is a problem:
 * a lint of nothing did not run.
 */
export function workflowFiles(paths: readonly string[], fs: Listing): { files: string[] } | { problem: string } {
  const named = paths.length > 0 ? paths : [DEFAULT_WORKFLOW_DIR];
  const files: string[] = [];
  for (const path of named) {
    const kind = fs.kind(path);
    if (kind === null) return { problem: `no such file or folder: ${path} (expected workflow files, .yml or .yaml)` };
    if (kind === 'file') {
      if (!isWorkflowName(path)) return { problem: `${path} is not a workflow file: expected a .yml or .yaml file` };
      files.push(path);
      continue;
    }
    const inside = fs
      .entries(path)
      .filter((name) => isWorkflowName(name) && fs.kind(join(path, name)) === 'file')
      .sort()
      .map((name) => join(path, name));
    if (inside.length === 0) return { problem: `no workflow file to lint in ${path} (expected *.yml or *.yaml there)` };
    files.push(...inside);
  }
  return { files: [...new Set(files)] };
}

/**
 * actionlint's flags: its answer as JSON, shellcheck on `run:` scripts by
 * the path found (actionlint would skip the check without a word when it
 * finds none, so the caller finds it and refuses to lint without it), and no
 * pyflakes, so that what is checked does not depend on what else the
 * machine happens to have.
 */
export function actionlintArgs(shellcheck: string, files: readonly string[]): string[] {
  return ['-format', '{{json .}}', `-shellcheck=${shellcheck}`, '-pyflakes=', ...files];
}

/** One problem actionlint found, as its `-format '{{json .}}'` writes it. */
export interface Finding {
  message: string;
  filepath: string;
  line: number;
  column: number;
  kind: string;
  snippet: string;
  end_column: number;
}

/** actionlint's JSON answer, or null when it is not one. */
export function parseFindings(stdout: string): Finding[] | null {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return null;
  }
  if (!Array.isArray(value)) return null;
  const valid = value.every(
    (f) =>
      typeof f === 'object' &&
      f !== null &&
      typeof f.message === 'string' &&
      typeof f.filepath === 'string' &&
      typeof f.line === 'number' &&
      typeof f.column === 'number' &&
      typeof f.kind === 'string',
  );
  return valid ? (value as Finding[]) : null;
}

/** A finding as actionlint prints it: `file:line:col: message [kind]`, then its snippet. */
export function formatFinding(f: Finding): string {
  const snippet = (f.snippet ?? '')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => `  | ${l}`);
  return [`${f.filepath}:${f.line}:${f.column}: ${f.message} [${f.kind}]`, ...snippet].join('\n');
}

export type LintVerdict = { ok: true } | { ok: false; findings: Finding[] } | { ok: false; problem: string };

/**
 * What actionlint's run says: exit 0 with an empty list is clean, exit 1 with
 * findings is findings; anything else (exit 2, a bad flag; exit 3, a fatal
 * error such as a file it could not read; an answer that is not its JSON) is
 * a problem, with its own words.
 */
export function judgeLint(run: { code: number | null; stdout: string; stderr: string }): LintVerdict {
  const said = run.stderr.trim().split('\n').filter(Boolean).slice(-3).join(' | ');
  const findings = parseFindings(run.stdout);
  if (run.code === 0 && findings !== null && findings.length === 0) return { ok: true };
  if (run.code === 1 && findings !== null && findings.length > 0) return { ok: false, findings };
  const ended = run.code === null ? 'was ended by a signal' : `exited ${run.code}`;
  return { ok: false, problem: `actionlint ${ended}${findings === null ? ' without its JSON answer' : ''}${said ? `: ${said}` : ''}` };
}
