// A machine busy with something else, as shared CI runners are: one loop that
// never sleeps per core, while a capture's steps run beside them.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { STEPS_PHASE_LINE, TEARDOWN_PHASE_LINE } from '../../src/capture/session/runner.ts';

/** Starts one busy loop per core; the returned function stops them all and waits until each is gone. */
function busyLoops(count = availableParallelism()): () => Promise<void> {
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

/**
 * Busy loops on every core for as long as a capture runs its steps, read from its progress lines: on from
 * the line that opens the steps, off at the teardown's, again for each variant's run. The clients' times
 * are taken in the steps; a cluster brought up on a busy machine only takes longer, and the suites pay for it.
 * `stop()` ends any still running (a capture that failed mid-steps) and says in how many runs the steps ran busy.
 */
export function busyWhileSteps(count = availableParallelism()): { onLine: (line: string) => void; stop: () => Promise<number> } {
  let running: (() => Promise<void>) | null = null;
  let runs = 0;
  const stopping: Promise<void>[] = [];
  return {
    onLine(line) {
      if (running === null && STEPS_PHASE_LINE.test(line)) {
        running = busyLoops(count);
        runs += 1;
      } else if (running !== null && TEARDOWN_PHASE_LINE.test(line)) {
        stopping.push(running());
        running = null;
      }
    },
    async stop() {
      if (running !== null) stopping.push(running());
      running = null;
      await Promise.all(stopping);
      return runs;
    },
  };
}
