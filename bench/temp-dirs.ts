// Every temporary folder the bench makes, under the OS temp folder, named
// shice-bench-*: made here and remembered until removed, so that whatever way
// the bench ends (a result, an error, an interrupt, a second interrupt's
// process.exit) what it made goes with it. Others' shice-bench-* folders (a
// bench in another checkout) are never touched: only those this process made.
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set<string>();

export interface TempDir {
  dir: string;
  /** Removes the folder (and anything in it); again is harmless. */
  remove(): Promise<void>;
}

/** A new folder `<temp>/shice-bench-<label>-XXXXXX`, removed by remove() or, at the latest, when the process exits. */
export async function makeTempDir(label: string): Promise<TempDir> {
  const dir = await mkdtemp(join(tmpdir(), `shice-bench-${label}-`));
  live.add(dir);
  return {
    dir,
    remove: async () => {
      await rm(dir, { recursive: true, force: true });
      live.delete(dir);
    },
  };
}

/** The folders made and not yet removed. */
export function liveTempDirs(): string[] {
  return [...live];
}

/** Removes every folder still there, at once (process 'exit' allows no waiting); returns them. */
export function removeTempDirsSync(): string[] {
  const removed = [...live];
  for (const dir of removed) {
    rmSync(dir, { recursive: true, force: true });
    live.delete(dir);
  }
  return removed;
}
