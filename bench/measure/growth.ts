// Growth: generated sites of several sizes, every article evidence-bound, in
// every language; the marginal cost of one more article page is the slope of
// the least-squares line through (pages, seconds). Each size is built twice,
// cold, and the faster build counts: other work on the machine only ever adds
// time, and with three sizes one slow build would bend the line.
import { LANGS } from '../../src/site.config.ts';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { growthShape, leastSquares, type Point } from '../stats.ts';
import { astroBuild, BuildTimeout } from '../site/astro-build.ts';
import { createProjectCopy, writeEvidenceCopies } from '../site/temp-project.ts';
import { BENCH_CONFIG } from '../site/variant-files.ts';
import { errorMessage, withTemporary, type BenchContext } from './context.ts';

export const MARGINAL_TARGET_MS = 20;
export const GROWTH_BUILDS = 2;

export async function measureGrowth(ctx: BenchContext): Promise<Figure[]> {
  const slug = ctx.args.article;
  const figures: Figure[] = [];
  const points: Point[] = [];
  for (const n of ctx.args.sizes) {
    const pages = n * LANGS.length;
    const base = { id: `growth.${n}`, group: 'growth' as const, unit: 's' as const, label: `build of ${n} article(s), ${pages} article pages` };
    try {
      const result = await withTemporary(ctx,
        () => ctx.progress.task(`generating an evidence site of ${n} article(s)`, async () => {
          const project = await createProjectCopy(ctx.root, 'evidence', String(n));
          await writeEvidenceCopies(ctx.root, project.dir, slug, n);
          return project;
        }),
        async (project) => {
          const builds = [];
          for (let i = 1; i <= GROWTH_BUILDS; i++) {
            builds.push(await ctx.progress.task(`growth: building ${n} article(s), ${pages} article pages (${i} of ${GROWTH_BUILDS})`,
              () => astroBuild(project.dir, { config: BENCH_CONFIG, timeoutMs: ctx.args.buildTimeoutSeconds * 1000, cancelSignal: ctx.cancelSignal })));
          }
          return builds;
        });
      const seconds = Math.min(...result.map((b) => b.seconds));
      points.push({ x: pages, y: seconds });
      figures.push(measured(base, seconds, {
        note: `faster of ${result.length} cold builds (${result.map((b) => b.seconds.toFixed(1)).join(' s, ')} s); ${result[0]!.htmlFiles} HTML files`,
        details: { articles: n, articlePages: pages, htmlFiles: result[0]!.htmlFiles, seconds: result.map((b) => b.seconds) },
      }));
    } catch (error) {
      const reason = error instanceof BuildTimeout
        ? `too slow on this machine: stopped after ${ctx.args.buildTimeoutSeconds} s (--build-timeout)`
        : errorMessage(error);
      figures.push(notMeasured(base, reason));
    }
  }

  const marginal = {
    id: 'growth.marginal', group: 'growth' as const, unit: 'ms/page' as const,
    label: 'marginal cost of one more article page', target: { op: '<=' as const, value: MARGINAL_TARGET_MS },
  };
  const shape = { id: 'growth.shape', group: 'growth' as const, unit: 'x' as const, label: 'growth: last / first marginal cost' };
  const missing = ctx.args.sizes.length - points.length;
  const partial = missing ? `; from ${points.length} of ${ctx.args.sizes.length} sizes` : '';
  if (points.length < 2) {
    figures.push(notMeasured(marginal, `needs at least 2 measured sizes, got ${points.length}`));
  } else {
    const fit = leastSquares(points);
    figures.push(measured(marginal, fit.slope * 1000, {
      note: `least-squares slope, r² ${fit.r2.toFixed(3)}, intercept ${fit.intercept.toFixed(1)} s${partial}`,
      details: { points, slopeSecondsPerPage: fit.slope, interceptSeconds: fit.intercept, r2: fit.r2 },
    }));
  }
  if (points.length < 3) {
    figures.push(notMeasured(shape, `needs at least 3 measured sizes, got ${points.length}`));
  } else {
    const growth = growthShape(points);
    if (growth.bend === null) figures.push(notMeasured(shape, 'the first size step cost nothing: no ratio to form', { shape: growth.shape }));
    else figures.push(measured(shape, growth.bend, { note: `${growth.shape}${partial}`, details: { shape: growth.shape } }));
  }
  return figures;
}
