// The one change to the host that `ip netns add` makes beyond the namespaces:
// where NETNS_RUN_DIR is not a mount point yet, iproute2 bind-mounts it on
// itself (and makes it shared) before it adds the first namespace. The lab
// notes, before its first namespace, that it found no such mount; the teardown
// that leaves the folder empty unmounts it again. A mount someone else made is
// never touched. The note lies in /run beside the mount and goes with it.
import { existsSync, readdirSync, readFileSync, realpathSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { runTool } from '../process.ts';
import { NETNS_RUN_DIR } from './network.ts';

/** The note that a shice lab found no mount at NETNS_RUN_DIR: `{"folder": true}` when the folder was there too. */
export const NETNS_MOUNT_NOTE = '/run/shice-lab-netns-mount.json';

/** NETNS_RUN_DIR with its links resolved (Debian's /var/run is a link to /run). */
export function realNetnsDir(): string {
  try {
    return realpathSync(NETNS_RUN_DIR);
  } catch {
    return NETNS_RUN_DIR.replace(/^\/var\/run\//, '/run/');
  }
}

/** Whether `dir` is a mount point in a mount table (/proc/self/mountinfo's fifth field). Pure. */
export function isMountPoint(dir: string, mountinfo: string): boolean {
  return mountinfo.split('\n').some((line) => line.split(' ')[4] === dir);
}

/** Before the lab's first `ip netns add`: notes that the mount iproute2 is about to make will be the lab's. */
export function noteNetnsMount(mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): void {
  const dir = realNetnsDir();
  if (isMountPoint(dir, mountinfo) || existsSync(NETNS_MOUNT_NOTE)) return;
  writeFileSync(NETNS_MOUNT_NOTE, `${JSON.stringify({ folder: existsSync(dir) })}\n`, { mode: 0o600 });
}

/**
 * After a teardown: unmounts NETNS_RUN_DIR when a lab made the mount and no namespace is left in it
 * (another run's still there keeps it), then removes the folder if the lab made that too. Returns
 * what it did, or null.
 */
export async function releaseNetnsMount(mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): Promise<string | null> {
  if (!existsSync(NETNS_MOUNT_NOTE)) return null;
  const dir = realNetnsDir();
  let note: { folder?: unknown };
  try {
    note = JSON.parse(readFileSync(NETNS_MOUNT_NOTE, 'utf8')) as { folder?: unknown };
  } catch {
    note = { folder: true }; // unreadable: keep the folder, the safer half
  }
  if (isMountPoint(dir, mountinfo)) {
    if (existsSync(dir) && readdirSync(dir).length > 0) return null;
    // A namespace added meanwhile holds a mount below it: umount then fails, and the mount stays for the run that added it.
    const run = await runTool(['umount', dir], { timeoutMs: 10_000 });
    if (run.missing || run.exitCode !== 0) return null;
  }
  if (note.folder === false && existsSync(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      // not empty any more: someone's namespace; the folder stays
    }
  }
  rmSync(NETNS_MOUNT_NOTE, { force: true });
  return `unmounted ${dir}, which the lab's first namespace had mounted`;
}
