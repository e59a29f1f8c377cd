// Where the merge's --report may be written, judged before any work, and the
// write itself. The report is a pull request's body: it never replaces what the
// checkout's build reads (content/, src/), never goes through a link and never
// lands on something that is not a plain file. Run as root, a writable folder
// proves nothing, so the place is judged by what it is; and what is judged is
// what is written to: the write holds the folder by a descriptor.
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { CODE_FOLDERS } from '../snapshots/checkout-folders.ts';

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

/** A place judged fit for the report: its folder (links resolved) and that folder's identity, which the write holds it to. */
export interface ReportPlace {
  /** The path as given, for messages. */
  file: string;
  folder: string;
  name: string;
  dev: number;
  ino: number;
}

/** Why `name` in `folder` (a real path) is where the report never goes: a folder the build reads. */
function guardedProblem(folder: string, name: string, root: string): string | null {
  const realRoot = realpathSync(root);
  const guarded = GUARDED.map((n) => join(realRoot, n)).find((f) => inside(join(folder, name), f));
  return guarded
    ? `is inside ${relative(realRoot, guarded)}/ of the checkout; expected a file outside content/, src/ and the other folders the build reads`
    : null;
}

/** Why `name` in `folder` (a real path; `at` is how it is reached) cannot take the report, or null. */
function problemIn(folder: string, at: string, name: string, root: string): string | null {
  const guarded = guardedProblem(folder, name, root);
  if (guarded !== null) return guarded;
  try {
    const stat = lstatSync(join(at, name));
    if (stat.isSymbolicLink()) return 'is a symbolic link; expected a new file or a regular file (a report is never written through a link)';
    if (!stat.isFile()) return `is ${stat.isDirectory() ? 'a folder' : 'not a regular file'}; expected a new file or a regular file`;
    if (stat.nlink !== 1) return `has ${stat.nlink} hard links; expected a file with one (another name of some other file is not overwritten)`;
    // Only an earlier report is overwritten: a typo must not replace /etc/hosts or an article's definition.
    if (!isReport(join(at, name)))
      return `exists and is not a report this command wrote (its first line is not "${REPORT_HEADING}…"); expected a new file or an earlier report`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return `cannot be examined (${(error as NodeJS.ErrnoException).code})`;
  }
  try {
    accessSync(at, constants.W_OK);
  } catch {
    return `its folder ${folder} is not writable`;
  }
  return null;
}

/** The place `file` names, judged: a new file, or an earlier report (a regular file with one link), outside the guarded folders; or why not (one line). */
export function judgeReportPath(file: string, root: string): { place: ReportPlace } | { problem: string } {
  const absolute = resolve(file);
  let folder: string;
  try {
    folder = realpathSync(dirname(absolute));
  } catch {
    return { problem: `its folder ${dirname(absolute)} does not exist; expected a file in an existing folder` };
  }
  const name = basename(absolute);
  const problem = problemIn(folder, folder, name, root);
  if (problem !== null) return { problem };
  const { dev, ino } = statSync(folder);
  return { place: { file, folder, name, dev, ino } };
}

/** Why `file` cannot take the report (one line), or null when it can (judgeReportPath). */
export function reportPathProblem(file: string, root: string): string | null {
  const judged = judgeReportPath(file, root);
  return 'problem' in judged ? judged.problem : null;
}

/**
 * Writes `text` to the place judged before the work. The folder is opened once and held by its
 * descriptor: it must be the very folder judged (same device and inode), and it is judged again
 * through the descriptor; the new file is created beside the report there and renamed over it,
 * every path through /proc/self/fd/N (Linux's openat). A folder replaced meanwhile by a link to
 * another (an article's) is refused, never followed; a link put at the report's name is
 * replaced, never written through. A place no longer fit is an Error of one line.
 */
export function writeReport(place: ReportPlace, text: string, root: string): void {
  const dir = openSync(resolve(dirname(resolve(place.file))), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const at = `/proc/self/fd/${dir}`;
    const held = fstatSync(dir);
    if (held.dev !== place.dev || held.ino !== place.ino)
      throw new Error(`its folder ${place.folder} was replaced after it was judged (now ${readlinkSync(at)}); the report was not written`);
    // The folder, again, by where the descriptor's folder is now; a link put at the report's name is replaced by the rename below.
    const problem = guardedProblem(readlinkSync(at), place.name, root);
    if (problem !== null) throw new Error(`${problem}; the report was not written`);
    const temporary = join(at, `.${place.name}.${process.pid}.tmp`);
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
      renameSync(temporary, join(at, place.name));
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  } finally {
    closeSync(dir);
  }
}
