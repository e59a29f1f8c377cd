// One capture per target at a time. The lock is a file beside the target,
// `.<name>.lock`, created exclusively (O_EXCL) and naming its owner: pid, the
// kernel's start time of that pid, run id, when it started, and the staging
// folder it writes. A second capture refuses at once with one line naming the
// running one; the lock of a dead owner is taken over, and the caller says so.
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { ownerAlive, type Owner } from './run-registry.ts';

export const lockSchema = z.strictObject({
  pid: z.number().int().positive(),
  startTime: z.string(),
  runId: z.string(),
  startedAt: z.string(),
  target: z.string(),
  staging: z.string(),
  previous: z.string(),
});
export type LockInfo = z.infer<typeof lockSchema>;

/** Another capture holds the target: the CLI prints the message as one line and exits 2. */
export class LockHeld extends Error {
  override name = 'LockHeld';
  readonly holder: LockInfo;
  constructor(holder: LockInfo, removedDead?: LockInfo) {
    // Two captures may find one dead lock: the one that removed it can still lose the race for the new one, and says so.
    const removed = removedDead
      ? ` (this capture first removed the lock of a capture that is gone: pid ${removedDead.pid}, run ${removedDead.runId}, started ${removedDead.startedAt})`
      : '';
    super(
      `another capture is writing this target: pid ${holder.pid}, run ${holder.runId}, started ${holder.startedAt}${removed}; wait for it to end (or stop it) and try again`,
    );
    this.holder = holder;
  }
}

export interface Lock {
  /** The dead capture whose lock was taken over, if any: its staging and swap are the caller's to settle. */
  tookOver: LockInfo | null;
  /** The lock file held an unreadable record (a crash while writing it): taken over. */
  tookOverUnreadable: boolean;
  release(): void;
}

function readLock(path: string): LockInfo | null {
  try {
    return lockSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return null;
  }
}

/**
 * Creates the file at `path` only if none exists, and never visible half-written: the content goes
 * to a file of our own first (`tag` names it) and is linked into place (link fails if one exists).
 * A lock opened empty and written after would read as unreadable, that is dead, to a process started
 * at the same moment, which would then take it over while its owner goes on.
 */
export function createExclusive(path: string, content: string, tag: string): boolean {
  const draft = `${path}.new-${tag}`;
  const fd = openSync(draft, 'wx', 0o600);
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

/** Moves the lock at `path` aside to `aside`, atomically; false when there was none any more (its owner let it go). */
export function moveAside(path: string, aside: string): boolean {
  try {
    renameSync(path, aside);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

const createLock = (path: string, info: LockInfo): boolean => createExclusive(path, `${JSON.stringify(info, null, 2)}\n`, info.runId);

const ownerOf = (info: LockInfo): Owner => ({ pid: info.pid, startTime: info.startTime });

/** Takes the lock at `path` for `info`'s capture, or throws LockHeld naming the live holder. */
export function acquireLock(path: string, info: LockInfo): Lock {
  let removedDead: LockInfo | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createLock(path, info)) return held(path, info, removedDead ?? null, false);
    const holder = readLock(path);
    if (holder !== null && ownerAlive(ownerOf(holder))) throw new LockHeld(holder, removedDead);
    // The holder is dead (or its lock unreadable). Move its lock aside under our name, atomically;
    // if what was moved is not what was judged dead, another capture got there first: give it back.
    const aside = `${path}.taken-${info.runId}`;
    if (!moveAside(path, aside)) continue;
    const moved = readLock(aside);
    const same = JSON.stringify(moved) === JSON.stringify(holder);
    if (!same && moved !== null && ownerAlive(ownerOf(moved))) {
      // Give it back without overwriting a lock made meanwhile (link fails if one exists).
      try {
        linkSync(aside, path);
      } finally {
        rmSync(aside, { force: true });
      }
      throw new LockHeld(moved);
    }
    rmSync(aside, { force: true });
    if (createLock(path, info)) return held(path, info, moved, moved === null);
    removedDead = moved ?? undefined;
  }
  const holder = readLock(path);
  if (holder) throw new LockHeld(holder, removedDead);
  throw new Error(`could not take the lock ${path}`);
}

function held(path: string, info: LockInfo, tookOver: LockInfo | null, unreadable: boolean): Lock {
  return {
    tookOver,
    tookOverUnreadable: unreadable,
    release() {
      // Only our own lock is removed.
      const now = readLock(path);
      if (now !== null && now.runId === info.runId && now.pid === info.pid) rmSync(path, { force: true });
    },
  };
}
