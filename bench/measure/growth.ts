// Growth: generated sites of several sizes, every article evidence-bound, in
// every language; the marginal cost of one more article page is the slope of
// the least-squares line through (pages, seconds). Every size is built
// GROWTH_BUILDS times, cold, the sizes interleaved (1, 50, 200, 200, 50, 1) so
// that load from elsewhere lands on all of them alike; the faster build of a
// size counts, since other work only ever adds time. Each build's CPU time and
// the load average are reported beside its wall time, and the slope is also
// taken over CPU time: a busy machine cannot pass for a slow build.
import { LANGS } from '../../src/site.config.ts';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { growthShape, interleavedOrder, leastSquares, type Point } from '../stats.ts';
import { astroBuild, BuildTimeout, type BuildResult } from '../site/astro-build.ts';
import { describeBuild, wasBusy } from '../site/cpu.ts';
import { createProjectCopy, writeEvidenceCopies, type TempProject } from '../site/temp-project.ts';
import { BENCH_CONFIG } from '../site/variant-files.ts';
import { errorMessage, type BenchContext } from './context.ts';

export const MARGINAL_TARGET_MS = 12;
export const GROWTH_BUILDS = 2;

interface SizeRun {
  n: number;
  project: TempProject | null;
  builds: BuildResult[];
  failure: string | null;
}

export async function measureGrowth(ctx: BenchContext): Promise<Figure[]> {
  const slug = ctx.args.article;
  const runs = new Map<number, SizeRun>(ctx.args.sizes.map((n) => [n, { n, project: null, builds: [], failure: null }]));
  const removeAll = async () => {
    for (const run of runs.values()) await run.project?.remove();
  };
  ctx.cleanups.add(removeAll);
  try {
    for (const run of runs.values()) {
      try {
        run.project = await ctx.progress.task(`generating an evidence site of ${run.n} article(s)`, async () => {
          const project = await createProjectCopy(ctx.root, 'evidence', String(run.n));
          await writeEvidenceCopies(ctx.root, project.dir, slug, run.n);
          return project;
        });
      } catch (error) {
        run.failure = errorMessage(error);
      }
    }
    const order = interleavedOrder(ctx.args.sizes, GROWTH_BUILDS);
    for (const [i, n] of order.entries()) {
      const run = runs.get(n)!;
      if (!run.project || run.failure) continue;
      const pages = n * LANGS.length;
      try {
        run.builds.push(await ctx.progress.task(`growth: build ${i + 1} of ${order.length}, ${n} article(s), ${pages} article pages`,
          () => astroBuild(run.project!.dir, { config: BENCH_CONFIG, timeoutMs: ctx.args.buildTimeoutSeconds * 1000, cancelSignal: ctx.cancelSignal })));
      } catch (error) {
        run.failure = error instanceof BuildTimeout
          ? `too slow on this machine: stopped after ${ctx.args.buildTimeoutSeconds} s (--build-timeout)`
          : errorMessage(error);
      }
    }
  } finally {
    ctx.cleanups.delete(removeAll);
    await removeAll();
  }
  return growthFigures(ctx.args.sizes.map((n) => runs.get(n)!));
}

/** The figures of a growth run; pure, so the arithmetic is tested apart from any build. */
export function growthFigures(runs: readonly Pick<SizeRun, 'n' | 'builds' | 'failure'>[]): Figure[] {
  const figures: Figure[] = [];
  const wall: Point[] = [];
  const cpu: Point[] = [];
  let busy = 0;
  for (const run of runs) {
    const pages = run.n * LANGS.length;
    const base = { id: `growth.${run.n}`, group: 'growth' as const, unit: 's' as const, label: `build of ${run.n} article(s), ${pages} article pages` };
    if (run.failure || run.builds.length === 0) {
      figures.push(notMeasured(base, run.failure ?? 'no build finished'));
      continue;
    }
    const fastest = run.builds.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    wall.push({ x: pages, y: fastest.seconds });
    const cpus = run.builds.map((b) => b.cost.cpuSeconds).filter((c): c is number => c !== null);
    if (cpus.length === run.builds.length) cpu.push({ x: pages, y: Math.min(...cpus) });
    busy += run.builds.filter((b) => wasBusy(b.cost)).length;
    figures.push(measured(base, fastest.seconds, {
      note: `faster of ${run.builds.length} cold builds: ${run.builds.map((b) => describeBuild(b.seconds, b.cost)).join('; ')}; ${fastest.htmlFiles} HTML files`,
      details: {
        articles: run.n, articlePages: pages, htmlFiles: fastest.htmlFiles,
        seconds: run.builds.map((b) => b.seconds),
        cpuSeconds: run.builds.map((b) => b.cost.cpuSeconds),
        load: run.builds.map((b) => [b.cost.loadBefore, b.cost.loadAfter]),
      },
    }));
  }

  const sizes = runs.length;
  const partial = wall.length < sizes ? `; from ${wall.length} of ${sizes} sizes` : '';
  const busyNote = busy ? `; ${busy} build(s) ran with the load above the cores: read the CPU slope` : '';
  const marginal = {
    id: 'growth.marginal', group: 'growth' as const, unit: 'ms/page' as const,
    label: 'marginal cost of one more article page', target: { op: '<=' as const, value: MARGINAL_TARGET_MS },
  };
  if (wall.length < 2) {
    figures.push(notMeasured(marginal, `needs at least 2 measured sizes, got ${wall.length}`));
  } else {
    const fit = leastSquares(wall);
    const noCpu = cpu.length === 0 ? '; CPU time unknown here (it is read from /proc, Linux only)' : '';
    figures.push(measured(marginal, fit.slope * 1000, {
      note: `least-squares slope of wall time, r² ${fit.r2.toFixed(3)}, intercept ${fit.intercept.toFixed(1)} s${partial}${busyNote}${noCpu}`,
      details: { points: wall, slopeSecondsPerPage: fit.slope, interceptSeconds: fit.intercept, r2: fit.r2 },
    }));
  }
  const marginalCpu = { id: 'growth.marginalCpu', group: 'growth' as const, unit: 'ms/page' as const, label: 'marginal CPU time of one more article page' };
  // Without /proc (not Linux) there is no CPU time at all: no figure, rather than a failure of the run.
  if (cpu.length === 0 && wall.length > 0) {
    // nothing to report
  } else if (cpu.length < 2) {
    figures.push(notMeasured(marginalCpu, `needs at least 2 sizes with CPU time, got ${cpu.length}`));
  } else {
    const fit = leastSquares(cpu);
    figures.push(measured(marginalCpu, fit.slope * 1000, {
      note: `least-squares slope of CPU time (all the build's processes, user + system), r² ${fit.r2.toFixed(3)}; above the wall slope when the build uses more than one core`,
      details: { points: cpu, slopeSecondsPerPage: fit.slope, interceptSeconds: fit.intercept, r2: fit.r2 },
    }));
  }
  const shape = { id: 'growth.shape', group: 'growth' as const, unit: 'x' as const, label: 'growth: last / first marginal cost' };
  if (wall.length < 3) {
    figures.push(notMeasured(shape, `needs at least 3 measured sizes, got ${wall.length}`));
  } else {
    const growth = growthShape(wall);
    if (growth.bend === null) figures.push(notMeasured(shape, 'the first size step cost nothing: no ratio to form', { shape: growth.shape }));
    else figures.push(measured(shape, growth.bend, { note: `${growth.shape}${partial}`, details: { shape: growth.shape } }));
  }
  return figures;
}
