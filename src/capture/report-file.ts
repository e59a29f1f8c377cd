// Where the merge's --report may be written, judged before any work, and the
// write itself. The report is a pull request's body: it never replaces what the
// checkout's build reads (content/, src/), never goes through a link and never
// lands on something that is not a plain file. Run as root, a writable folder
// proves nothing, so the place is judged by what it is.
import { accessSync, closeSync, constants, lstatSync, openSync, readSync, realpathSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { CODE_FOLDERS } from './checkout-folders.ts';

/** Folders of the checkout a report never goes into: what the build and the capture read. */
const GUARDED = ['content', ...CODE_FOLDERS];

/** How every report begins (its heading, the merge's verdict after it). */
export const REPORT_HEADING = '# Capture: ';

function isReport(file: string): boolean {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const head = Buffer.alloc(REPORT_HEADING.length);
    const read = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, read).toString('utf8') === REPORT_HEADING;
  } finally {
    closeSync(fd);
  }
}

const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}${sep}`);

/** Why `file` cannot take the report (one line), or null when it can: a new file, or an earlier report (a regular file with one link), outside the guarded folders. */
export function reportPathProblem(file: string, root: string): string | null {
  const absolute = resolve(file);
  let parent: string;
  try {
    parent = realpathSync(dirname(absolute));
  } catch {
    return `its folder ${dirname(absolute)} does not exist; expected a file in an existing folder`;
  }
  const real = join(parent, basename(absolute));
  const realRoot = realpathSync(root);
  const guarded = GUARDED.map((name) => join(realRoot, name)).find((folder) => inside(real, folder));
  if (guarded) return `is inside ${relative(realRoot, guarded)}/ of the checkout; expected a file outside content/, src/ and the other folders the build reads`;
  try {
    const stat = lstatSync(real);
    if (stat.isSymbolicLink()) return 'is a symbolic link; expected a new file or a regular file (a report is never written through a link)';
    if (!stat.isFile()) return `is ${stat.isDirectory() ? 'a folder' : 'not a regular file'}; expected a new file or a regular file`;
    if (stat.nlink !== 1) return `has ${stat.nlink} hard links; expected a file with one (another name of some other file is not overwritten)`;
    // Only an earlier report is overwritten: a typo must not replace /etc/hosts or an article's definition.
    if (!isReport(real))
      return `exists and is not a report this command wrote (its first line is not "${REPORT_HEADING}…"); expected a new file or an earlier report`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return `cannot be examined (${(error as NodeJS.ErrnoException).code})`;
  }
  try {
    accessSync(parent, constants.W_OK);
  } catch {
    return `its folder ${parent} is not writable`;
  }
  return null;
}

/**
 * Writes `text` to `file` through a new file beside it renamed over it: a link
 * or file put there meanwhile is replaced, never written through.
 */
export function writeReport(file: string, text: string): void {
  const absolute = join(realpathSync(dirname(resolve(file))), basename(file));
  const temporary = join(dirname(absolute), `.${basename(absolute)}.${process.pid}.tmp`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    writeSync(fd, text);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temporary, absolute);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
