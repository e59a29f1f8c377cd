// Where a capture may write, decided before any work starts. A capture
// replaces only what it can prove is a snapshot folder of that article (a
// run.yaml of the same slug written by the project, beside step files and
// nothing else) or an empty folder; anything else is refused with one line and
// left untouched. judgeTarget and checkPathShape are pure; inspectTarget and
// checkTarget read the disk.
import { accessSync, constants, lstatSync, readdirSync, readFileSync, realpathSync, statfsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { load } from 'js-yaml';
import { clip } from '../machine/clip.ts';
import { CODE_FOLDERS } from './checkout-folders.ts';

/** The target cannot be written: the CLI prints the message as one line and exits 2. */
export class TargetError extends Error {
  override name = 'TargetError';
}

/** Linux limits: a path (PATH_MAX - 1) and one name (NAME_MAX), in bytes. */
export const PATH_MAX_BYTES = 4095;
export const NAME_MAX_BYTES = 255;
/** The longest name the capture adds beside the target (`.<name>.previous-<run id>`). */
const SIBLING_SUFFIX_BYTES = '.previous-'.length + 1 + 40;

export type Entry = { name: string; type: 'file' | 'dir' | 'symlink' | 'other' };

export type TargetFacts = { kind: 'absent' } | { kind: 'file' | 'symlink' | 'other' } | { kind: 'dir'; entries: Entry[]; runYaml: unknown };

export type TargetVerdict = { ok: true; state: 'absent' | 'empty' | 'snapshots' } | { ok: false; reason: string };

const STEP_FILE = /^[a-z0-9-]+\.yaml$/;

/** Whether the capture may replace what is at the target. Pure. */
export function judgeTarget(facts: TargetFacts, slug: string): TargetVerdict {
  if (facts.kind === 'absent') return { ok: true, state: 'absent' };
  if (facts.kind !== 'dir')
    return { ok: false, reason: facts.kind === 'file' ? 'is a file, not a folder' : facts.kind === 'symlink' ? 'is a symbolic link' : 'is not a folder' };
  if (facts.entries.length === 0) return { ok: true, state: 'empty' };
  const foreign = facts.entries.filter((e) => e.type !== 'file' || !STEP_FILE.test(e.name));
  if (foreign.length > 0) {
    const names = foreign
      .slice(0, 4)
      .map((e) => clip(e.name, 40) + (e.type === 'dir' ? '/' : ''))
      .join(', ');
    return { ok: false, reason: `holds what a capture did not write (${names}${foreign.length > 4 ? `, … ${foreign.length} in all` : ''})` };
  }
  const run = facts.runYaml as { schema?: unknown; slug?: unknown; runId?: unknown } | null;
  if (run === null || typeof run !== 'object') return { ok: false, reason: 'has no readable run.yaml, so it cannot be shown to be a snapshot folder' };
  if (typeof run.schema !== 'number' || typeof run.runId !== 'string' || !/^[0-9A-Za-z-]+$/.test(run.runId)) {
    return { ok: false, reason: 'has a run.yaml the capture did not write (no schema and run id)' };
  }
  if (run.slug !== slug) return { ok: false, reason: `holds the snapshots of another article (${clip(String(run.slug), 60)})` };
  return { ok: true, state: 'snapshots' };
}

function entryType(path: string): Entry['type'] {
  const stat = lstatSync(path);
  return stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
}

/** What is at the target, read without following links; run.yaml is parsed only when it is a small regular file. */
export function inspectTarget(target: string): TargetFacts {
  let type: Entry['type'];
  try {
    type = entryType(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw error;
  }
  if (type !== 'dir') return { kind: type };
  const entries: Entry[] = readdirSync(target).map((name) => ({ name, type: entryType(`${target}/${name}`) }));
  let runYaml: unknown = null;
  const run = entries.find((e) => e.name === 'run.yaml' && e.type === 'file');
  if (run && lstatSync(`${target}/run.yaml`).size < 1024 * 1024) {
    try {
      runYaml = load(readFileSync(`${target}/run.yaml`, 'utf8'), { maxAliases: 0 });
    } catch {
      runYaml = null;
    }
  }
  return { kind: 'dir', entries, runYaml };
}

/** Too long for Linux, counting the names the capture puts beside the target. Pure; null when fine. */
export function checkPathShape(target: string): string | null {
  const bytes = (s: string) => Buffer.byteLength(s);
  if (bytes(target) + SIBLING_SUFFIX_BYTES + 1 > PATH_MAX_BYTES)
    return `the path is too long (${bytes(target)} bytes; Linux allows ${PATH_MAX_BYTES} with the capture's staging name)`;
  const long = target.split(sep).find((part) => bytes(part) > NAME_MAX_BYTES - SIBLING_SUFFIX_BYTES);
  if (long !== undefined)
    return `a name in the path is too long (${bytes(long)} bytes; at most ${NAME_MAX_BYTES - SIBLING_SUFFIX_BYTES} leave room for the capture's staging name)`;
  return null;
}

/** Kernel file systems no capture writes to (statfs f_type). */
const SPECIAL_FS: Record<number, string> = {
  0x9fa0: 'proc',
  0x62656572: 'sysfs',
  0x1cd1: 'devpts',
  0x64626720: 'debugfs',
  0x73636673: 'securityfs',
  0x27e0eb: 'cgroup',
  0x63677270: 'cgroup2',
  0x74726163: 'tracefs',
  0xcafe4a11: 'bpf',
  0x6165676c: 'pstore',
  0x62656570: 'configfs',
  0xde5e81e4: 'efivarfs',
  0x6e736673: 'nsfs',
  0x42494e4d: 'binfmt_misc',
};
const SPECIAL_TREES = ['/proc', '/sys', '/dev'];

/** Folders of the system: a capture creates nothing anywhere inside them. */
const SYSTEM_TREES = ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run', '/sbin', '/sys', '/usr', '/var'];
/** Folders that hold others' folders: a capture creates nothing directly in them (in a folder below, it may). */
const SHARED_TOPS = ['/', '/home', '/root', '/opt', '/srv', '/mnt', '/media', '/snap'];

const within = (path: string, tree: string) => path === tree || path.startsWith(tree === '/' ? '/' : `${tree}/`);

/**
 * Why a capture must not create its folders (the snapshots, the staging folder,
 * the lock) in `parent`, or null when it may: never in a system folder (/etc,
 * /usr, /var, ...) nor directly in the file-system root, /home, the home folder
 * itself and the like; always in `allowed` (the project, the temp folders),
 * whatever these say. `parent` is absolute with its links resolved. Pure.
 */
export function systemFolderProblem(parent: string, context: { home: string | null; allowed: readonly string[] }): string | null {
  if (context.allowed.some((tree) => within(parent, tree))) return null;
  const tree = SYSTEM_TREES.find((t) => within(parent, t));
  if (tree) return `${clip(parent, 160)} is inside ${tree}, a system folder; choose a folder of your own (in the project, your home or the temp folder)`;
  if (SHARED_TOPS.includes(parent) || parent === context.home) {
    const what = parent === '/' ? 'the file-system root' : parent === context.home ? 'your home folder itself' : `${parent} itself`;
    return `it would be created directly in ${what}; choose a folder of your own below it`;
  }
  return null;
}

/**
 * Why `--out` must not be `out`, or null: the articles folder and every folder
 * inside it hold the author's files and the committed snapshots, which a
 * capture writes only without --out (each environment's and variant's in its
 * own folder). Both paths absolute with their links resolved. Pure.
 */
export function outFolderProblem(out: string, articles: string, root: string = dirname(dirname(articles))): string | null {
  const code = CODE_FOLDERS.find((folder) => out === join(root, folder) || within(out, join(root, folder)));
  if (code !== undefined) return `is inside the checkout's own ${code}/, which the build and the capture read`;
  if (out === articles) return 'is the articles folder, where the committed snapshots live; a capture writes them without --out';
  if (within(out, articles))
    return `is inside the articles folder (${clip(relative(articles, out), 80)}); a capture writes the committed snapshots without --out`;
  return null;
}

/** Refuses an --out folder that outFolderProblem names; one line, nothing touched. */
export function checkOutFolder(out: string, articles: string, shown: string): void {
  const problem = outFolderProblem(resolveExisting(resolve(out)), resolveExisting(resolve(articles)));
  if (problem) throw new TargetError(`--out ${clip(shown, 120)}: ${problem}; choose a folder of your own; nothing was touched`);
}

/** `path` with the links of its nearest existing ancestor resolved (a link in /tmp to /etc is /etc). */
function resolveExisting(path: string): string {
  const existing = nearestExisting(path);
  try {
    return join(realpathSync(existing), relative(existing, path));
  } catch {
    return path;
  }
}

/** The nearest ancestor that exists (lstat), and the first missing name below it. */
function nearestExisting(path: string): string {
  let current = path;
  for (;;) {
    try {
      lstatSync(current);
      return current;
    } catch {
      const up = dirname(current);
      if (up === current) return current;
      current = up;
    }
  }
}

/**
 * Refuses, before any work, a target the capture cannot or must not write:
 * a system folder (unless inside `allowed`: the project), a special file system, an ancestor that is a file, a path too long, a folder
 * it may not write in, or a target holding anything but a snapshot folder of
 * `slug`. `shown` is how the user named it (clipped in messages).
 */
export function checkTarget(target: string, slug: string, shown: string, allowed: readonly string[] = []): TargetVerdict & { ok: true } {
  const absolute = resolve(target);
  const say = (reason: string): never => {
    throw new TargetError(`${clip(shown, 120)}: ${reason}; nothing was touched`);
  };
  const shape = checkPathShape(absolute);
  if (shape) say(shape);
  const tree = SPECIAL_TREES.find((t) => absolute === t || absolute.startsWith(`${t}/`));
  if (tree) say(`is under ${tree}, a kernel file system; choose a folder on a disk`);
  const system = systemFolderProblem(dirname(resolveExisting(absolute)), {
    home: homedir() || null,
    allowed: [...allowed, '/tmp', '/var/tmp', tmpdir()].map((p) => resolveExisting(resolve(p))),
  });
  if (system) say(system);
  const existing = nearestExisting(absolute);
  const below = existing;
  let type: Entry['type'];
  try {
    type = entryType(below);
  } catch (error) {
    return say(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (existing !== absolute && type !== 'dir') {
    // Something on the way is not a folder (a file, a link to one): mkdir would fail half-way.
    say(`${clip(existing, 160)} is ${type === 'file' ? 'a file' : type === 'symlink' ? 'a symbolic link' : 'not a folder'}, so no folder can be made below it`);
  }
  try {
    const fs = SPECIAL_FS[statfsSync(below).type];
    if (fs) say(`is on ${fs}, a kernel file system; choose a folder on a disk`);
  } catch (error) {
    if (error instanceof TargetError) throw error;
  }
  const writable = existing === absolute ? dirname(absolute) : existing;
  try {
    accessSync(writable, constants.W_OK | constants.X_OK);
  } catch {
    say(`${clip(writable, 160)} is not writable`);
  }
  const verdict = judgeTarget(inspectTarget(absolute), slug);
  if (!verdict.ok) {
    say(`${verdict.reason}; a capture replaces only a snapshot folder of ${slug} (run.yaml and step files) or an empty folder`);
  }
  return verdict as TargetVerdict & { ok: true };
}
