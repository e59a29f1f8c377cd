// After a capture was killed (kill -9, a power cut): find the dead run by its
// records (run-registry.ts, the target's lock) and put things right before
// anything reads the snapshots. A half-done swap is finished when the staged
// run is complete (it has run.yaml) and undone otherwise; the staging folder,
// the set-aside previous folder, the lock and whatever a provider's run left
// (asked of the provider itself, ProviderLeftovers) are removed. Every action is one line.
import { existsSync, lstatSync, readFileSync, renameSync, rmSync } from 'node:fs';
import type { ProviderLeftovers } from '../provider/node-provider.ts';
import { settleJournal } from '../snapshots/swap-together.ts';
import { forgetRecord, ownerAlive, readRecords, registryDir, type CaptureRecord } from './run-registry.ts';

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Finishes or undoes the swap of a dead run and removes its staging and set-aside folders; one line per action. */
export function settleSwap(paths: { target: string; staging: string; previous: string }, runId: string): string[] {
  // Part of a swap of several targets together: settled for all of them from its journal.
  const together = settleJournal(paths.target, runId);
  if (together !== null) return together;
  const done: string[] = [];
  const { target, staging, previous } = paths;
  if (!existsSync(target) && !isSymlink(target)) {
    // Only a swap that had begun (the target set aside) is finished: a staged run is judged before its swap
    // starts, so one staged with nothing set aside may be a run that was still being judged.
    if (isDir(previous) && isDir(staging) && existsSync(`${staging}/run.yaml`)) {
      renameSync(staging, target);
      done.push(`finished the interrupted swap of run ${runId}: ${target} now holds that run's snapshots`);
    } else if (isDir(previous)) {
      renameSync(previous, target);
      done.push(`undid the interrupted swap of run ${runId}: ${target} holds the previous snapshots again`);
    }
  }
  if (isDir(previous)) {
    rmSync(previous, { recursive: true, force: true });
    done.push(`removed the folder ${previous} (the snapshots run ${runId} replaced)`);
  }
  if (isDir(staging)) {
    rmSync(staging, { recursive: true, force: true });
    done.push(`removed the staging folder ${staging} of run ${runId}`);
  }
  return done;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Removes the lock of a dead capture, if the lock there is still that capture's. */
function releaseDeadLock(record: CaptureRecord): string[] {
  try {
    const lock = JSON.parse(readFileSync(record.lock, 'utf8')) as { pid?: number; runId?: string };
    if (lock.runId !== record.runId || lock.pid !== record.owner.pid) return [];
  } catch {
    return [];
  }
  rmSync(record.lock, { force: true });
  return [`removed the lock ${record.lock} of run ${record.runId}`];
}

export interface RecoverOptions {
  /** Each provider's own cleaner (drivers.ts lists them). */
  leftovers: ProviderLeftovers[];
  dir?: string;
  /** Limits recovery to some runs (tests leave other runs alone). */
  onlyRuns?: (runId: string) => boolean;
  /** Leave lab runs kept with --keep (the next capture does; --clean does not). */
  leaveKept?: boolean;
  /** Also name provider leftovers that no record of this checkout lists (--clean): never touched. */
  reportUnrecorded?: boolean;
}

export interface Recovery {
  /** One line per thing done. */
  done: string[];
  /** One line per dead run whose leftovers could not be removed (its record stays). */
  failed: string[];
}

/**
 * Recovers every dead run the registry knows: lab runs first (their processes
 * may still write), then captures (swap, staging, lock). Live runs are left
 * alone. `log` gets each line as it happens.
 */
export async function recoverDeadRuns(log: (line: string) => void, options: RecoverOptions): Promise<Recovery> {
  const dir = options.dir ?? registryDir();
  const wanted = options.onlyRuns ?? (() => true);
  const records = readRecords(dir);
  const done: string[] = [];
  const failed: string[] = [];
  const note = (line: string) => {
    done.push(line);
    log(line);
  };
  for (const file of records.unreadable) log(`left ${file} alone: it is not a readable run record`);
  for (const run of records.runs.filter((r) => wanted(r.runId))) {
    if (ownerAlive(run.owner)) continue;
    if (run.kept && options.leaveKept) {
      log(`left ${run.kind} run ${run.runId} up: it was kept with --keep (npm run capture -- --clean removes it)`);
      continue;
    }
    const provider = options.leftovers.find((l) => l.kind === run.kind);
    if (!provider) {
      log(`left the record of ${run.kind} run ${run.runId} alone: no provider answers for it`);
      continue;
    }
    try {
      // A provider's "left ..." line says what it did not undo, and why; every other line names what it removed.
      for (const line of await provider.remove(run)) note(`dead ${run.kind} run ${run.runId}: ${line.startsWith('left ') ? line : `removed ${line}`}`);
    } catch (error) {
      // Its record stays: the next capture or --clean tries again.
      const line = `dead ${run.kind} run ${run.runId}: could not remove what it left (${(error as Error).message}); its record stays for the next try`;
      failed.push(line);
      log(line);
      continue;
    }
    forgetRecord(run.kind, run.runId, dir);
  }
  for (const capture of records.captures.filter((r) => wanted(r.runId))) {
    if (ownerAlive(capture.owner)) continue;
    for (const line of [...settleSwap(capture, capture.runId), ...releaseDeadLock(capture)]) note(`dead capture ${capture.runId} of ${capture.slug}: ${line}`);
    forgetRecord('capture', capture.runId, dir);
  }
  if (options.reportUnrecorded) {
    for (const provider of options.leftovers) for (const line of await provider.unrecorded(records.runs, wanted)) log(line);
  }
  return { done, failed };
}
