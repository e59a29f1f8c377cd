// A lock between processes for a moment's work on something the whole host
// shares (the mount at /run/netns that every lab run's namespaces live under):
// a file created exclusively naming its owner (pid and start time). A live
// owner is waited for, a dead one's lock (kill -9 inside the moment) taken over.
import { linkSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { createExclusive, moveAside } from './lock.ts';
import { currentOwner, ownerAlive, type Owner } from './run-registry.ts';
import { DriverError } from '../provider/node-provider.ts';

const ownerSchema = z.strictObject({ pid: z.number().int().positive(), startTime: z.string() });

function readOwner(path: string): Owner | null {
  try {
    return ownerSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return null;
  }
}

/** Moves a dead owner's lock aside and removes it; one that a live owner took meanwhile is given back. */
function takeOverDead(path: string, judged: Owner | null, me: Owner): void {
  const aside = `${path}.taken-${me.pid}`;
  if (!moveAside(path, aside)) return;
  const moved = readOwner(aside);
  if (moved !== null && JSON.stringify(moved) !== JSON.stringify(judged) && ownerAlive(moved)) {
    try {
      linkSync(aside, path);
    } catch {
      // a lock made meanwhile stands; the one given back was already released by its owner or will be judged again
    }
  }
  rmSync(aside, { force: true });
}

/** Runs `work` holding the lock at `path`; waits up to `waitMs` for a live holder, then throws naming it. */
export async function withHostLock<T>(path: string, work: () => Promise<T>, waitMs = 30_000): Promise<T> {
  const me = currentOwner();
  const deadline = performance.now() + waitMs;
  while (!createExclusive(path, `${JSON.stringify(me)}\n`, String(me.pid))) {
    const holder = readOwner(path);
    if (holder === null || !ownerAlive(holder)) {
      takeOverDead(path, holder, me);
      continue;
    }
    if (performance.now() > deadline) throw new DriverError(`${path}: held by pid ${holder.pid} for more than ${waitMs / 1000} s`);
    await delay(10);
  }
  try {
    return await work();
  } finally {
    if (JSON.stringify(readOwner(path)) === JSON.stringify(me)) rmSync(path, { force: true });
  }
}
