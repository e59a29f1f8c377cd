// Files an author names: a manifest (experiment.manifests), a declared fact's file (declared()), a
// module an MDX file imports. Every reader of one asks here first. The build publishes what it reads,
// so a path that resolves outside the checkout, by any route (`../` climbing out, an absolute path, a
// link anywhere on the way, links followed), or into git's own folder (it may hold a token) is refused
// with one line naming the file that named it, the field and where the path leads; nothing is read.
import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { quoted } from '../evidence/terminal-text.ts';

/** `path` is `folder` or inside it (both with links resolved). Pure. */
export const isInside = (path: string, folder: string): boolean => {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** Where an author file may be: inside the checkout `realRoot` (links resolved), not in its .git. Pure. */
export const isCheckoutFile = (real: string, realRoot: string): boolean => isInside(real, realRoot) && !isInside(real, join(realRoot, '.git'));

/**
 * The problem with the author file `file` (as written, relative to the folder `from`, itself relative to
 * the checkout `root`), in words that follow `<naming file>: field "<field>": `, or null when it is a file
 * of the checkout. A file that does not exist is judged by its path alone (the reader then says it is missing).
 */
export function authorFileProblem(root: string, from: string, file: string): string | null {
  const realRoot = realpathSync(root);
  const path = resolve(root, from, file);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    real = path;
  }
  if (isCheckoutFile(real, realRoot)) return null;
  const leads = real === path ? '' : ` (it leads to ${quoted(real)})`;
  const where = isInside(real, realRoot) ? "in git's own folder" : 'outside the checkout';
  return `${quoted(file)} resolves to ${quoted(path)}${leads}, ${where}; expected a file of the checkout (the build publishes what it reads)`;
}

/** Thrown for an author file outside the checkout: its message is one line. */
export class AuthorFileError extends Error {
  override name = 'AuthorFileError';
}

/**
 * The text of the author file `file` (relative to `from`, relative to `root`), or an AuthorFileError naming
 * `naming` (the file that named it) and its `field` when it resolves outside the checkout. Read through its
 * real path, so a link changed after the check is not followed elsewhere.
 */
export function readAuthorFile(root: string, from: string, file: string, naming: string, field: string): string {
  const problem = authorFileProblem(root, from, file);
  if (problem) throw new AuthorFileError(`${naming}: field "${field}": ${problem}`);
  return readFileSync(realpathSync(resolve(root, from, file)), 'utf8');
}
