// The one change to the host that `ip netns add` makes beyond the namespaces:
// where NETNS_RUN_DIR is not a mount point yet, iproute2 bind-mounts it on
// itself (and makes it shared) before it adds the first namespace. A lab run
// that finds no such mount notes, before its first namespace, that the mount
// will be the labs'; every lab run using it is named in the note, and the last
// one to go unmounts it. A mount someone else made is never touched. The note
// lies in /run beside the mount and goes with it; claims and releases (lab runs
// of other checkouts included) take turns under one lock, so that no run
// unmounts between another's claim and its first namespace.
import { existsSync, readdirSync, readFileSync, realpathSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { withHostLock } from '../recovery/host-lock.ts';
import { runTool } from '../machine/process.ts';
import { currentOwner, ownerAlive } from '../recovery/run-registry.ts';
import { NETNS_RUN_DIR } from './network.ts';

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

/** The note that the mount at NETNS_RUN_DIR is the lab runs': whether the folder was there before, and who uses the mount. */
export const NETNS_MOUNT_NOTE = '/run/shice-lab-netns-mount.json';
const NETNS_MOUNT_LOCK = '/run/shice-lab-netns-mount.lock';

const userSchema = z.strictObject({ runId: z.string().min(1), pid: z.number().int().positive(), startTime: z.string() });
const noteSchema = z.strictObject({ folder: z.boolean(), users: z.array(userSchema) });
export type NetnsMountNote = z.infer<typeof noteSchema>;
export type NetnsMountUser = z.infer<typeof userSchema>;

/**
 * The note after `user` claims the mount, or null for none (a mount the labs did not make). Pure:
 * `mounted` and `folder` are NETNS_RUN_DIR as found now.
 */
export function claimedNote(note: NetnsMountNote | null, user: NetnsMountUser, mounted: boolean, folder: boolean): NetnsMountNote | null {
  if (note === null) return mounted ? null : { folder, users: [user] };
  return { ...note, users: [...note.users.filter((u) => u.runId !== user.runId), user] };
}

export type ReleasePlan = { keep: NetnsMountNote } | { unmount: boolean; removeFolder: boolean };

/**
 * What releasing `runId`'s use of the mount does, pure: keep the note (another live run uses the
 * mount, or a namespace is still under it), or unmount it and remove the folder the labs made.
 */
export function releasePlan(note: NetnsMountNote, runId: string, alive: (u: NetnsMountUser) => boolean, mounted: boolean, entries: number): ReleasePlan {
  const users = note.users.filter((u) => u.runId !== runId && alive(u));
  if (users.length > 0 || entries > 0) return { keep: { ...note, users } };
  return { unmount: mounted, removeFolder: !note.folder };
}

function readNote(): NetnsMountNote | null {
  if (!existsSync(NETNS_MOUNT_NOTE)) return null;
  try {
    return noteSchema.parse(JSON.parse(readFileSync(NETNS_MOUNT_NOTE, 'utf8')));
  } catch {
    return { folder: true, users: [] }; // unreadable: the labs' mount, but keep the folder, the safer half
  }
}

const writeNote = (note: NetnsMountNote): void => writeFileSync(NETNS_MOUNT_NOTE, `${JSON.stringify(note)}\n`, { mode: 0o600 });
const mountedNow = (): boolean => isMountPoint(realNetnsDir(), readFileSync('/proc/self/mountinfo', 'utf8'));

function entriesNow(): number {
  try {
    return readdirSync(realNetnsDir()).length;
  } catch {
    return 0;
  }
}

/** Before a lab run's first `ip netns add`: names the run among the users of the mount iproute2 makes (or made for another lab run). */
export async function claimNetnsMount(runId: string): Promise<void> {
  await withHostLock(NETNS_MOUNT_LOCK, async () => {
    const note = claimedNote(readNote(), { runId, ...currentOwner() }, mountedNow(), existsSync(realNetnsDir()));
    if (note !== null) writeNote(note);
  });
}

/**
 * After a lab run's teardown (or a dead run's removal): the run no longer uses the mount; the last
 * user unmounts it once no namespace is left under it, and removes the folder if the labs made it.
 * Returns what it did, or null.
 */
export async function releaseNetnsMount(runId: string): Promise<string | null> {
  return withHostLock(NETNS_MOUNT_LOCK, async () => {
    const note = readNote();
    if (note === null) return null;
    const dir = realNetnsDir();
    const plan = releasePlan(note, runId, ownerAlive, mountedNow(), entriesNow());
    if ('keep' in plan) {
      writeNote(plan.keep);
      return null;
    }
    if (plan.unmount) {
      const run = await runTool(['umount', dir], { timeoutMs: 10_000 });
      if (run.missing || run.exitCode !== 0) return null;
    }
    if (plan.removeFolder && existsSync(dir)) {
      try {
        rmdirSync(dir);
      } catch {
        // not empty any more: someone's namespace; the folder stays
      }
    }
    rmSync(NETNS_MOUNT_NOTE, { force: true });
    return plan.unmount ? `the mount at ${dir}, which the lab's first namespace had made` : null;
  });
}
