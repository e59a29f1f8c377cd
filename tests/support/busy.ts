// A machine busy with something else, as shared CI runners are: one loop that
// never sleeps per core, for as long as a test runs a capture beside them.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Starts one busy loop per core; the returned function stops them all and waits until each is gone. */
export function busyLoops(count = availableParallelism()): () => Promise<void> {
  const loops: ChildProcess[] = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return async () => {
    await Promise.all(
      loops.map(
        (loop) =>
          new Promise<void>((resolve) => {
            if (loop.exitCode !== null || loop.signalCode !== null) return resolve();
            loop.once('exit', () => resolve());
            loop.kill('SIGKILL');
          }),
      ),
    );
  };
}
