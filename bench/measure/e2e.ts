// The browser check's own wall time: the project's Playwright suite against
// the built site, on a port of its own so it never meets another preview.
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { parsePlaywrightSummary } from '../playwright-summary.ts';
import { buildCost, describeBuild, sampleMachine } from '../site/cpu.ts';
import { errorMessage, type BenchContext } from './context.ts';
import { ensureRealDist } from './real-dist.ts';

/** A TCP port nobody listens on right now (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}

/** SIGTERM to what is left of a process group (its leader is gone); none left is fine. */
function stopGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** The suite runs for minutes on a 2-core machine (one worker): its own, longer limit. */
const e2eTimeoutSeconds = (buildTimeoutSeconds: number) => Math.max(600, buildTimeoutSeconds * 2);

export async function measureE2e(ctx: BenchContext): Promise<Figure[]> {
  const base = { id: 'e2e.seconds', group: 'e2e' as const, unit: 's' as const, label: 'browser check (playwright test), wall time' };
  try {
    await ensureRealDist(ctx);
    const cli = join(ctx.root, 'node_modules/@playwright/test/cli.js');
    const port = await freePort();
    const before = sampleMachine();
    const started = performance.now();
    const run = await ctx.progress.task(`browser check: playwright test on port ${port}`, async () => {
      // A process group of its own: stopped (interrupt, timeout), Playwright leaves its preview server and browsers running.
      const child = execa(process.execPath, [cli, 'test'], {
        cwd: ctx.root,
        env: { ...process.env, SHICE_E2E_PORT: String(port) },
        cancelSignal: ctx.cancelSignal,
        timeout: e2eTimeoutSeconds(ctx.args.buildTimeoutSeconds) * 1000,
        detached: true,
        // As Ctrl-C would stop it: Playwright then stops its preview server (its own process group) itself.
        killSignal: 'SIGINT',
        all: true,
        reject: false,
      });
      const result = await child;
      if ((result.isCanceled || result.timedOut) && child.pid !== undefined) stopGroup(child.pid);
      return result;
    });
    const seconds = (performance.now() - started) / 1000;
    // The suite's processes (Playwright, the preview server, Chromium), as they are reaped.
    const cost = buildCost(before, sampleMachine());
    const summary = parsePlaywrightSummary(String(run.all ?? ''));
    const counts = summary ? `${summary.passed} passed, ${summary.failed} failed, ${summary.flaky} flaky, ${summary.skipped} skipped` : 'no summary printed';
    const details = { seconds, cpuSeconds: cost.cpuSeconds, load: [cost.loadBefore, cost.loadAfter], exitCode: run.exitCode ?? null, summary, port };
    if (run.timedOut) return [notMeasured(base, `stopped after ${e2eTimeoutSeconds(ctx.args.buildTimeoutSeconds)} s`, details)];
    if (run.exitCode !== 0) {
      const tail = String(run.all ?? '')
        .trim()
        .split('\n')
        .slice(-3)
        .join(' | ');
      return [
        notMeasured(
          base,
          `the suite failed (exit ${run.exitCode ?? run.signal}; ${counts}): a failing run's time is not the check's time; last lines: ${tail}`,
          details,
        ),
      ];
    }
    return [measured(base, seconds, { note: `${describeBuild(seconds, cost)} (the suite's processes); ${counts}; preview server start included`, details })];
  } catch (error) {
    return [notMeasured(base, errorMessage(error))];
  }
}
