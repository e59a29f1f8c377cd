// The lab capture, timed from the outside: `npm run capture -- --driver lab
// --out <temp>` as a user runs it, set against its floor (the waits the
// steps cannot avoid), with the steps, setup and teardown apart. The
// snapshots go to a temporary folder: the article's own stay as they are.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { findProgram, missingPrerequisite } from '../../src/capture/lab/tools.ts';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { labTimings, type TimedStep } from '../lab-timing.ts';
import { errorMessage, withTemporary, type BenchContext } from './context.ts';

export const LAB_TARGET_RATIO = 1.5;

const FIGURES = {
  ratio: { id: 'lab.ratio', group: 'lab' as const, unit: 'x' as const, label: 'lab capture: wall time / floor', target: { op: '<=' as const, value: LAB_TARGET_RATIO } },
  wall: { id: 'lab.wall', group: 'lab' as const, unit: 's' as const, label: 'lab capture: wall time' },
  floor: { id: 'lab.floor', group: 'lab' as const, unit: 's' as const, label: 'lab capture: floor (required waits)' },
  steps: { id: 'lab.steps', group: 'lab' as const, unit: 's' as const, label: 'lab capture: steps only' },
  stepsRatio: { id: 'lab.stepsRatio', group: 'lab' as const, unit: 'x' as const, label: 'lab capture: steps only / floor' },
  setup: { id: 'lab.setup', group: 'lab' as const, unit: 's' as const, label: 'lab capture: setup' },
  teardown: { id: 'lab.teardown', group: 'lab' as const, unit: 's' as const, label: 'lab capture: teardown' },
};

/** One line saying the lab was not measured, and why. */
export function labNotMeasured(reason: string): Figure[] {
  return [notMeasured(FIGURES.ratio, reason)];
}

/** Why the lab cannot run here, or null. */
export function labUnavailable(): string | null {
  return missingPrerequisite(
    { platform: process.platform, uid: process.getuid?.() ?? null, pathVariable: process.env.PATH },
    (program) => findProgram(program, process.env.PATH),
  );
}

export async function measureLab(ctx: BenchContext): Promise<Figure[]> {
  if (ctx.args.skipLab) return labNotMeasured('skipped (--skip-lab)');
  const unavailable = labUnavailable();
  if (unavailable) return labNotMeasured(unavailable);
  try {
    return await withTemporary(ctx, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'shice-bench-lab-'));
      return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
    }, async ({ dir }) => {
      const argv = [join(ctx.root, 'scripts/capture.ts'), '--driver', 'lab', '--out', dir];
      const startMs = Date.now();
      const run = await ctx.progress.task('lab capture: npm run capture -- --driver lab --out <temp>', async () => {
        const child = execa(process.execPath, argv, { cwd: ctx.root, cancelSignal: ctx.cancelSignal, all: true, reject: false, timeout: ctx.args.buildTimeoutSeconds * 1000 });
        // The capture's own progress, passed through as it comes.
        child.all?.on('data', (chunk: Buffer) => {
          for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) ctx.progress.note(`  capture │ ${line.replace(/\r|\x1b\[2K/g, '')}`);
        });
        return await child;
      });
      const endMs = Date.now();
      if (run.timedOut) return labNotMeasured(`the capture took longer than ${ctx.args.buildTimeoutSeconds} s and was stopped`);
      if (run.exitCode !== 0) {
        const last = String(run.all ?? '').trim().split('\n').at(-1) ?? '';
        return labNotMeasured(`the capture exited ${run.exitCode ?? run.signal}: ${last}`);
      }

      const steps: TimedStep[] = [];
      const slugs = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
      if (!slugs.length) return labNotMeasured(`the capture wrote no snapshots to ${dir}`);
      for (const slug of slugs) steps.push(...loadSnapshots(join(dir, slug)).steps.values());
      const t = labTimings({ startMs, endMs }, steps);
      const s = (ms: number) => ms / 1000;
      const details = { articles: slugs, ...t };
      if (t.floorMs === 0) {
        return [
          notMeasured(FIGURES.ratio, 'no step had to wait: no curl timed out (exit 28), so there is no floor to compare with', details),
          measured(FIGURES.wall, s(t.wallMs)),
        ];
      }
      const waits = t.waits.map((w) => `${w.step} ${s(w.ms)} s`).join(', ');
      return [
        measured(FIGURES.ratio, t.wallMs / t.floorMs, { note: `whole capture, process start to exit, against the curl timeouts it must sit out`, details }),
        measured(FIGURES.wall, s(t.wallMs), { note: `${slugs.length} article(s), ${steps.length} steps` }),
        measured(FIGURES.floor, s(t.floorMs), { note: `curl --max-time of the steps that timed out: ${waits}` }),
        measured(FIGURES.steps, s(t.stepsMs), { note: 'sum of the steps\' durationMs' }),
        measured(FIGURES.stepsRatio, t.stepsMs / t.floorMs),
        measured(FIGURES.setup, s(t.setupMs), { note: 'process start to the first step: Node, preflight, namespaces, nginx, rules' }),
        measured(FIGURES.teardown, s(t.teardownMs), { note: `end of the last step to exit: snapshots written, lab taken down${t.betweenStepsMs > 50 ? `; ${s(t.betweenStepsMs).toFixed(1)} s more between steps` : ''}` }),
      ];
    });
  } catch (error) {
    return labNotMeasured(errorMessage(error));
  }
}
