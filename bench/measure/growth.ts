// Growth: generated sites of several sizes, every article evidence-bound, in
// every language; the marginal cost of one more article page is the slope of
// the least-squares line through (pages, seconds). Beside each evidence site
// the bench builds its floor: a site of the same size whose pages (article,
// evidence page, run records) emit what the evidence site's pages hold, read
// from one untimed build of it, in the same layout (floor-pages.ts): Astro's
// own cost for a page of that content, nothing derived, bound, checked or
// highlighted. So the
// marginal cost is also read as a ratio to Astro's own cost on this machine in
// this run: for the whole copy, and per kind of page (article, evidence page,
// run record), each kind read as the difference between two sets of the same
// copies' pages (variant-files.ts, PAGE_SETS).
// Every site is built GROWTH_BUILDS times, cold, in buildOrder (by size, odd
// rounds reversed) and the two sites of a size alternating which goes first, so
// that load from elsewhere lands on all of them alike; the faster build of a
// site counts, since other work only ever adds time. The page sets without run
// records are built at more copies (kindSetSizes): their kinds' pages must
// stand above the builds' spread. Each build's CPU time and the load average
// are reported beside its wall time, and the slope is also taken over CPU
// time: a busy machine cannot pass for a slow build.
import { LANGS } from '../../src/site.config.ts';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { growthShape, interleavedOrder, leastSquares, type LineFit, type Point } from '../stats.ts';
import { astroBuild, BuildTimeout, type BuildResult } from '../site/astro-build.ts';
import { describeBuild, wasBusy } from '../site/cpu.ts';
import { generateSite, writeEvidenceCopies, type TempProject } from '../site/temp-project.ts';
import { BENCH_CONFIG, PAGE_SETS, type PageSet } from '../site/variant-files.ts';
import { floorPages, writeFloorCopies, type FloorPages } from '../site/floor-pages.ts';
import { errorMessage, withTemporary, type BenchContext } from './context.ts';

/**
 * The target, as a ratio to the floor: the issue that once set 12 ms a page measured Astro's floor
 * for the same prose at about 6 ms on its machine. A ratio holds on any machine; milliseconds hold
 * only on the one they were measured on, and only for the pages they were set on (a copy now brings
 * 34 more pages beside its two article pages), so the slope itself has no target.
 */
export const OVER_FLOOR_TARGET = 2;
export const GROWTH_BUILDS = 2;

type Site = 'evidence' | 'floor';

export interface SizeRun {
  n: number;
  project: TempProject | null;
  builds: BuildResult[];
  failure: string | null;
}

/** The floor's pages of one copy, read from the evidence site's own build of copy 1 (floor-pages.ts). */
function floorSources(ctx: BenchContext, slug: string): Promise<FloorPages> {
  return ctx.progress.task(`building the evidence site of one copy of ${slug}, untimed: the floor's pages are its pages' content`, () =>
    floorPages(ctx.root, slug, { timeoutMs: ctx.args.buildTimeoutSeconds * 1000, cancelSignal: ctx.cancelSignal }),
  );
}

/** A copy's pages of each kind, as the floor's source build wrote them. Pure. */
export function pagesOf(pages: FloorPages): PagesPerCopy {
  const names = [...pages.html.keys()];
  return {
    article: names.filter((n) => n.endsWith('/article.html')).length,
    evidence: names.filter((n) => n.endsWith('/evidence.html')).length,
    record: names.filter((n) => n.includes('/run/')).length,
  };
}

export interface SitePair {
  /** Per size, in the order asked: the evidence site's builds, or why it has none. */
  evidence: SizeRun[];
  /** Per size: its floor's. */
  floor: SizeRun[];
}

/** Every page of every copy (`all`), and the other page sets asked for, each an evidence site and its floor. */
export interface GrowthSeries extends SitePair {
  sets: Partial<Record<Exclude<PageSet, 'all'>, SitePair>>;
  /** The copy's pages of each kind, as the evidence site builds them; null when the floor's sources could not be read. */
  pagesPerCopy: PagesPerCopy | null;
}

/** One copy's pages of each kind. */
export interface PagesPerCopy {
  article: number;
  evidence: number;
  record: number;
}

/** A page set and the sizes (copies of the article) it is built at. */
export interface SetPlan {
  set: PageSet;
  sizes: readonly number[];
}

/**
 * The sizes the page sets other than `all` are built at: the smallest of the series and three times
 * its largest. Without their run records a copy's pages cost a fraction of a full copy's, so more
 * copies are needed for a kind's pages (two a copy) to stand well above the builds' spread. Pure.
 */
export function kindSetSizes(sizes: readonly number[]): number[] {
  const smallest = Math.min(...sizes);
  return [smallest, Math.max(...sizes) * KIND_SET_SCALE];
}
export const KIND_SET_SCALE = 3;

/**
 * The growth series' build order: every (set, size) once a round, by size and then page set, so
 * that the sets a kind's cost is read between are built next to each other; odd rounds in reverse,
 * so that load from elsewhere lands on all alike. Pure.
 */
export function buildOrder(plans: readonly SetPlan[], rounds: number): Array<[PageSet, number]> {
  const jobs = plans
    .flatMap((plan) => plan.sizes.map((n): [PageSet, number] => [plan.set, n]))
    .sort((a, b) => a[1] - b[1] || PAGE_SETS.indexOf(a[0]) - PAGE_SETS.indexOf(b[0]));
  return interleavedOrder(jobs, rounds);
}

/**
 * The growth series without its figures: for each page set planned ('all' always, at the sizes of
 * the first plan for it or `[1]`), an evidence site and its floor at each of its sizes, generated in
 * temporary copies of the project, each built `rounds` times, cold, in buildOrder, the two sites of
 * a job alternating which goes first. A site that could not be generated or built has its reason
 * in `failure`; the copies are removed before it returns, however it ends.
 */
export async function growthSeries(ctx: BenchContext, slug: string, plans: readonly SetPlan[], rounds = GROWTH_BUILDS): Promise<GrowthSeries> {
  const planned = plans.some((p) => p.set === 'all') ? plans : [{ set: 'all' as const, sizes: [1] }, ...plans];
  const key = (site: Site, set: PageSet, n: number) => `${site} ${set} ${n}`;
  const runs = new Map<string, SizeRun>();
  for (const { set, sizes } of planned)
    for (const site of ['evidence', 'floor'] as const) for (const n of sizes) runs.set(key(site, set, n), { n, project: null, builds: [], failure: null });
  const removeAll = async () => {
    for (const run of runs.values()) await run.project?.remove();
  };
  ctx.cleanups.add(removeAll);
  let floor: FloorPages | null = null;
  try {
    let floorFailure: string | null = null;
    try {
      floor = await floorSources(ctx, slug);
    } catch (error) {
      floorFailure = errorMessage(error);
    }
    for (const [set, n] of buildOrder(planned, 1)) {
      for (const site of ['evidence', 'floor'] as const) {
        if (ctx.cancelSignal.aborted) break;
        const run = runs.get(key(site, set, n))!;
        if (site === 'floor' && floor === null) {
          run.failure = floorFailure;
          continue;
        }
        const what = site === 'evidence' ? 'an evidence site' : "its floor (the same pages' content, Astro alone)";
        try {
          run.project = await ctx.progress.task(`generating ${what} of ${n} article(s), ${set === 'all' ? 'every page' : set}`, () =>
            generateSite(
              ctx.root,
              site === 'evidence' ? 'evidence' : 'floor',
              `${site}-${set}-${n}`,
              (dir) => (site === 'evidence' ? writeEvidenceCopies(ctx.root, dir, slug, n) : writeFloorCopies(dir, slug, floor!, n)),
              { pages: set },
            ),
          );
        } catch (error) {
          run.failure = errorMessage(error);
        }
      }
    }
    const order = buildOrder(planned, rounds).flatMap(([set, n], i): Array<[Site, PageSet, number]> => {
      const pair: Array<[Site, PageSet, number]> = [
        ['evidence', set, n],
        ['floor', set, n],
      ];
      return i % 2 === 0 ? pair : pair.reverse();
    });
    for (const [i, [site, set, n]] of order.entries()) {
      if (ctx.cancelSignal.aborted) break;
      const run = runs.get(key(site, set, n))!;
      if (!run.project || run.failure) continue;
      try {
        run.builds.push(
          await ctx.progress.task(
            `growth: build ${i + 1} of ${order.length}, ${site === 'evidence' ? 'evidence site' : 'floor'}, ${n} article(s), ${set === 'all' ? 'every page' : set}`,
            () => astroBuild(run.project!.dir, { config: BENCH_CONFIG, timeoutMs: ctx.args.buildTimeoutSeconds * 1000, cancelSignal: ctx.cancelSignal }),
          ),
        );
      } catch (error) {
        run.failure =
          error instanceof BuildTimeout ? `too slow on this machine: stopped after ${ctx.args.buildTimeoutSeconds} s (--build-timeout)` : errorMessage(error);
      }
    }
  } finally {
    ctx.cleanups.delete(removeAll);
    await removeAll();
  }
  const pair = (set: PageSet): SitePair => {
    const sizes = planned.find((p) => p.set === set)!.sizes;
    return {
      evidence: sizes.map((n) => runs.get(key('evidence', set, n))!),
      floor: sizes.map((n) => runs.get(key('floor', set, n))!),
    };
  };
  const sets_: GrowthSeries['sets'] = {};
  for (const { set } of planned) if (set !== 'all') sets_[set] = pair(set);
  const pagesPerCopy = floor === null ? null : pagesOf(floor);
  return { ...pair('all'), sets: sets_, pagesPerCopy };
}

export async function measureGrowth(ctx: BenchContext): Promise<Figure[]> {
  const slug = ctx.args.article;
  const kindSizes = kindSetSizes(ctx.args.sizes);
  const plans = PAGE_SETS.map((set) => ({ set, sizes: set === 'all' ? ctx.args.sizes : kindSizes }));
  const series = await growthSeries(ctx, slug, plans, GROWTH_BUILDS);
  return [
    ...growthFigures(series.evidence, series.floor),
    ...pageKindFigures(series),
    articleWorkFigure(series),
    seriesSiteFigure(SERIES_ARTICLES, ctx.cancelSignal.aborted ? { failure: 'interrupted' } : await seriesSiteBuild(ctx, slug)),
    // Interrupted: no more builds (the run writes no result anyway).
    ogCardFigure(OG_ARTICLES, ctx.cancelSignal.aborted ? { with: [], without: [], failure: 'interrupted' } : await ogCardBuilds(ctx, slug)),
  ];
}

/** The series as its author will have it: 75 articles. */
export const SERIES_ARTICLES = 75;

/** One cold build of a site of `SERIES_ARTICLES` copies of the article, as a user builds it: every page, its cards drawn, the search index. */
async function seriesSiteBuild(ctx: BenchContext, slug: string): Promise<BuildResult | { failure: string }> {
  try {
    return await withTemporary(
      ctx,
      () =>
        ctx.progress.task(`generating a site of ${SERIES_ARTICLES} articles (copies of ${slug}), its Open Graph cards included`, () =>
          generateSite(ctx.root, 'evidence', `series-${SERIES_ARTICLES}`, (dir) => writeEvidenceCopies(ctx.root, dir, slug, SERIES_ARTICLES), {
            ogCards: true,
          }),
        ),
      (project) =>
        ctx.progress.task(`building the ${SERIES_ARTICLES}-article site, cold`, () =>
          astroBuild(project.dir, { config: BENCH_CONFIG, timeoutMs: ctx.args.buildTimeoutSeconds * 1000 * 4, cancelSignal: ctx.cancelSignal }),
        ),
    );
  } catch (error) {
    return { failure: error instanceof BuildTimeout ? `too slow on this machine: ${errorMessage(error)}` : errorMessage(error) };
  }
}

/** The 75-article site's cold build: wall time, with its CPU time, peak memory and pages beside it. Pure. */
export function seriesSiteFigure(n: number, build: BuildResult | { failure: string }): Figure {
  const base = { id: 'growth.seriesSite', group: 'growth' as const, unit: 's' as const, label: `${n}-article site: one cold build, every page and card` };
  if ('failure' in build) return notMeasured(base, build.failure);
  const memory = build.peakRssBytes === null ? 'peak memory not read' : `peak memory ${(build.peakRssBytes / 2 ** 20).toFixed(0)} MiB (the build process)`;
  return measured(base, build.seconds, {
    note: `${build.cost.cpuSeconds === null ? 'CPU time not read' : `CPU ${build.cost.cpuSeconds.toFixed(1)} s`}, ${memory}, ${build.htmlFiles} HTML pages; load ${build.cost.loadBefore.toFixed(1)} -> ${build.cost.loadAfter.toFixed(1)}`,
    details: { cpuSeconds: build.cost.cpuSeconds, peakRssBytes: build.peakRssBytes, htmlFiles: build.htmlFiles },
  });
}

/** Copies in the sites that measure the Open Graph cards: 40 cards, a build of well under a minute without them. */
export const OG_ARTICLES = 20;
type OgSite = 'with' | 'without';
/** Mirrored, so that load from elsewhere falls on both alike. */
const OG_ORDER: OgSite[] = ['with', 'without', 'without', 'with'];

export interface OgCardBuilds {
  with: BuildResult[];
  without: BuildResult[];
  failure: string | null;
}

/** The evidence site of OG_ARTICLES copies built with its Open Graph cards and without them, each twice, cold. */
async function ogCardBuilds(ctx: BenchContext, slug: string): Promise<OgCardBuilds> {
  const builds: OgCardBuilds = { with: [], without: [], failure: null };
  const create = (site: OgSite) =>
    ctx.progress.task(`generating an evidence site of ${OG_ARTICLES} articles ${site} its Open Graph cards`, () =>
      generateSite(ctx.root, 'evidence', `og-${site}-${OG_ARTICLES}`, (dir) => writeEvidenceCopies(ctx.root, dir, slug, OG_ARTICLES), {
        ogCards: site === 'with',
      }),
    );
  try {
    await withTemporary(
      ctx,
      () => create('with'),
      (withCards) =>
        withTemporary(
          ctx,
          () => create('without'),
          async (withoutCards) => {
            for (const [i, site] of OG_ORDER.entries()) {
              if (ctx.cancelSignal.aborted) throw new Error('interrupted');
              const dir = (site === 'with' ? withCards : withoutCards).dir;
              builds[site].push(
                await ctx.progress.task(`Open Graph cards: build ${i + 1} of ${OG_ORDER.length}, evidence site ${site} them, ${OG_ARTICLES} articles`, () =>
                  astroBuild(dir, { config: BENCH_CONFIG, timeoutMs: ctx.args.buildTimeoutSeconds * 1000, cancelSignal: ctx.cancelSignal }),
                ),
              );
            }
          },
        ),
    );
  } catch (error) {
    builds.failure =
      error instanceof BuildTimeout ? `too slow on this machine: stopped after ${ctx.args.buildTimeoutSeconds} s (--build-timeout)` : errorMessage(error);
  }
  return builds;
}

/**
 * What drawing the Open Graph cards adds to the build, per article page (each has one card):
 * the faster build with them less the faster without, over wall time, and the same over CPU
 * time in the note. The growth sites leave the cards out (OG_CARD_ROUTES); this is their cost. Pure.
 */
export function ogCardFigure(n: number, builds: OgCardBuilds): Figure {
  const pages = n * LANGS.length;
  const base = { id: 'growth.ogCard', group: 'growth' as const, unit: 'ms/page' as const, label: 'Open Graph card of one more article page' };
  if (builds.failure || !builds.with.length || !builds.without.length) return notMeasured(base, builds.failure ?? 'no build finished');
  const perPage = (a: number, b: number) => ((a - b) * 1000) / pages;
  const least = (list: BuildResult[], of: (b: BuildResult) => number | null) => {
    const values = list.map(of);
    return values.every((v) => v !== null) ? Math.min(...(values as number[])) : null;
  };
  const wall = perPage(
    least(builds.with, (b) => b.seconds)!,
    least(builds.without, (b) => b.seconds)!,
  );
  const cpuWith = least(builds.with, (b) => b.cost.cpuSeconds);
  const cpuWithout = least(builds.without, (b) => b.cost.cpuSeconds);
  const cpu = cpuWith === null || cpuWithout === null ? null : perPage(cpuWith, cpuWithout);
  const busy = [...builds.with, ...builds.without].filter((b) => wasBusy(b.cost)).length;
  const list = (site: OgSite) => builds[site].map((b) => describeBuild(b.seconds, b.cost)).join('; ');
  return measured(base, wall, {
    note: `(faster build with the cards - without) / ${pages} article pages, wall${cpu === null ? '' : `; CPU ${cpu.toFixed(1)} ms/page`}${busy ? `; ${busy} build(s) ran with the load above the cores` : ''}; with: ${list('with')}; without: ${list('without')}; not in the growth sites above`,
    details: {
      articles: n,
      articlePages: pages,
      order: OG_ORDER,
      withSeconds: builds.with.map((b) => b.seconds),
      withoutSeconds: builds.without.map((b) => b.seconds),
      withCpuSeconds: builds.with.map((b) => b.cost.cpuSeconds),
      withoutCpuSeconds: builds.without.map((b) => b.cost.cpuSeconds),
      cpuPerPageMs: cpu,
    },
  });
}

type GrowthRun = Pick<SizeRun, 'n' | 'builds' | 'failure'>;

/** The faster build of each size as points (article pages, seconds), over wall and over CPU time. */
function series(runs: readonly GrowthRun[]): { wall: Point[]; cpu: Point[]; busy: number } {
  const wall: Point[] = [];
  const cpu: Point[] = [];
  let busy = 0;
  for (const run of runs) {
    if (run.failure || run.builds.length === 0) continue;
    const pages = run.n * LANGS.length;
    wall.push({ x: pages, y: Math.min(...run.builds.map((b) => b.seconds)) });
    const cpus = run.builds.map((b) => b.cost.cpuSeconds).filter((c): c is number => c !== null);
    if (cpus.length === run.builds.length) cpu.push({ x: pages, y: Math.min(...cpus) });
    busy += run.builds.filter((b) => wasBusy(b.cost)).length;
  }
  return { wall, cpu, busy };
}

const ms = (fit: LineFit) => fit.slope * 1000;

/** The figures of a growth run; pure, so the arithmetic is tested apart from any build. */
export function growthFigures(runs: readonly GrowthRun[], floorRuns: readonly GrowthRun[] = []): Figure[] {
  const figures: Figure[] = [];
  for (const run of runs) {
    const pages = run.n * LANGS.length;
    const base = { id: `growth.${run.n}`, group: 'growth' as const, unit: 's' as const, label: `build of ${run.n} article(s), ${pages} article pages` };
    if (run.failure || run.builds.length === 0) {
      figures.push(notMeasured(base, run.failure ?? 'no build finished'));
      continue;
    }
    const fastest = run.builds.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const floor = floorRuns.find((f) => f.n === run.n);
    const floorNote = floor && floor.builds.length ? `; its floor: ${floor.builds.map((b) => describeBuild(b.seconds, b.cost)).join('; ')}` : '';
    figures.push(
      measured(base, fastest.seconds, {
        note: `faster of ${run.builds.length} cold builds: ${run.builds.map((b) => describeBuild(b.seconds, b.cost)).join('; ')}; ${fastest.htmlFiles} HTML files${floorNote}`,
        details: {
          articles: run.n,
          articlePages: pages,
          htmlFiles: fastest.htmlFiles,
          seconds: run.builds.map((b) => b.seconds),
          cpuSeconds: run.builds.map((b) => b.cost.cpuSeconds),
          load: run.builds.map((b) => [b.cost.loadBefore, b.cost.loadAfter]),
          ...(floor
            ? { floorSeconds: floor.builds.map((b) => b.seconds), floorCpuSeconds: floor.builds.map((b) => b.cost.cpuSeconds), floorFailure: floor.failure }
            : {}),
        },
      }),
    );
  }

  const { wall, cpu, busy } = series(runs);
  const sizes = runs.length;
  const partial = wall.length < sizes ? `; from ${wall.length} of ${sizes} sizes` : '';
  const busyNote = busy ? `; ${busy} build(s) ran with the load above the cores: read the CPU slope` : '';
  const marginal = {
    id: 'growth.marginal',
    group: 'growth' as const,
    unit: 'ms/page' as const,
    label: 'marginal cost of one more article page (its evidence page and run records with it)',
  };
  const wallFit = wall.length < 2 ? null : leastSquares(wall);
  if (wallFit === null) {
    figures.push(notMeasured(marginal, `needs at least 2 measured sizes, got ${wall.length}`));
  } else {
    const noCpu = cpu.length === 0 ? '; CPU time unknown here (it is read from /proc, Linux only)' : '';
    figures.push(
      measured(marginal, ms(wallFit), {
        note: `least-squares slope of wall time, r² ${wallFit.r2.toFixed(3)}, intercept ${wallFit.intercept.toFixed(1)} s${partial}${busyNote}${noCpu}; without the Open Graph cards (growth.ogCard)`,
        details: { points: wall, slopeSecondsPerPage: wallFit.slope, interceptSeconds: wallFit.intercept, r2: wallFit.r2 },
      }),
    );
  }
  const marginalCpu = { id: 'growth.marginalCpu', group: 'growth' as const, unit: 'ms/page' as const, label: 'marginal CPU time of one more article page' };
  const cpuFit = cpu.length < 2 ? null : leastSquares(cpu);
  // Without /proc (not Linux) there is no CPU time at all: no figure, rather than a failure of the run.
  if (cpu.length === 0 && wall.length > 0) {
    // nothing to report
  } else if (cpuFit === null) {
    figures.push(notMeasured(marginalCpu, `needs at least 2 sizes with CPU time, got ${cpu.length}`));
  } else {
    figures.push(
      measured(marginalCpu, ms(cpuFit), {
        note: `least-squares slope of CPU time (all the build's processes, user + system), r² ${cpuFit.r2.toFixed(3)}; above the wall slope when the build uses more than one core`,
        details: { points: cpu, slopeSecondsPerPage: cpuFit.slope, interceptSeconds: cpuFit.intercept, r2: cpuFit.r2 },
      }),
    );
  }
  if (floorRuns.length) figures.push(...floorFigures(wallFit, cpuFit, floorRuns));
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

/** Astro's own marginal cost for the same prose, and the evidence site's over it (wall; CPU in the note). */
function floorFigures(wallFit: LineFit | null, cpuFit: LineFit | null, floorRuns: readonly GrowthRun[]): Figure[] {
  const floor = { id: 'growth.floor', group: 'growth' as const, unit: 'ms/page' as const, label: 'Astro floor: one more page of the same content' };
  const ratio = {
    id: 'growth.overFloor',
    group: 'growth' as const,
    unit: 'x' as const,
    label: 'marginal cost over the Astro floor',
    target: { op: '<=' as const, value: OVER_FLOOR_TARGET },
  };
  const { wall, cpu } = series(floorRuns);
  const failed = floorRuns.find((r) => r.failure)?.failure;
  if (wall.length < 2) {
    const why = `needs at least 2 measured floor sizes, got ${wall.length}${failed ? ` (${failed})` : ''}`;
    return [notMeasured(floor, why), notMeasured(ratio, why)];
  }
  const floorWall = leastSquares(wall);
  const floorCpu = cpu.length >= 2 ? leastSquares(cpu) : null;
  const figures = [
    measured(floor, ms(floorWall), {
      note: `least-squares slope of wall time, r² ${floorWall.r2.toFixed(3)}${floorCpu ? `; CPU ${ms(floorCpu).toFixed(1)} ms/page` : ''}; every page's content as the evidence site rendered it, emitted in the layout`,
      details: { points: wall, cpuPoints: cpu, slopeSecondsPerPage: floorWall.slope, cpuSlopeSecondsPerPage: floorCpu?.slope ?? null, r2: floorWall.r2 },
    }),
  ];
  if (wallFit === null) return [...figures, notMeasured(ratio, 'the evidence site has no slope')];
  if (floorWall.slope <= 0) return [...figures, notMeasured(ratio, 'the floor cost nothing per page: no ratio to form')];
  const cpuRatio = cpuFit && floorCpu && floorCpu.slope > 0 ? cpuFit.slope / floorCpu.slope : null;
  figures.push(
    measured(ratio, wallFit.slope / floorWall.slope, {
      note: `${ms(wallFit).toFixed(1)} / ${ms(floorWall).toFixed(1)} ms/page wall${cpuRatio === null ? '' : `; over CPU time ${cpuRatio.toFixed(2)}x`}`,
      details: { cpuRatio },
    }),
  );
  return figures;
}

type PageKind = keyof PagesPerCopy;
const PAGE_KINDS: readonly PageKind[] = ['article', 'evidence', 'record'];
/** A kind's cost is the difference between the page set with it and the set without. */
const KIND_SETS: Record<PageKind, [with_: PageSet, without: PageSet]> = {
  article: ['articles', 'none'],
  evidence: ['no-records', 'articles'],
  record: ['all', 'no-records'],
};

/** Per copy of the article: the least-squares slope of the faster build of each size, over wall and CPU time; null below 2 sizes. */
function perCopySlope(runs: readonly GrowthRun[]): { wall: number; cpu: number | null } | null {
  const wall: Point[] = [];
  const cpu: Point[] = [];
  for (const run of runs) {
    if (run.failure || run.builds.length === 0) continue;
    wall.push({ x: run.n, y: Math.min(...run.builds.map((b) => b.seconds)) });
    const cpus = run.builds.map((b) => b.cost.cpuSeconds).filter((c): c is number => c !== null);
    if (cpus.length === run.builds.length) cpu.push({ x: run.n, y: Math.min(...cpus) });
  }
  if (wall.length < 2) return null;
  return { wall: leastSquares(wall).slope, cpu: cpu.length === wall.length ? leastSquares(cpu).slope : null };
}

/**
 * What one more article costs the build apart from its pages: the slope of the page set with none
 * of them (its MDX read, and in the evidence site its runs read, its facts derived, its claims
 * judged), in ms per copy, the floor's beside it. No target: it has no counterpart in Astro. Pure.
 */
export function articleWorkFigure(series: Pick<GrowthSeries, 'sets'>): Figure {
  const base = {
    id: 'growth.perArticle',
    group: 'growth' as const,
    unit: 'ms/article' as const,
    label: 'one more article apart from its pages (evidence derived, claims judged)',
  };
  const none = series.sets.none;
  const evidence = none ? perCopySlope(none.evidence) : null;
  const floor = none ? perCopySlope(none.floor) : null;
  if (evidence === null) return notMeasured(base, 'needs at least 2 sizes of the none set built in the evidence site');
  return measured(base, evidence.wall * 1000, {
    note: `slope of the set with no page of the article, wall${evidence.cpu === null ? '' : `; CPU ${(evidence.cpu * 1000).toFixed(1)} ms`}${floor === null ? '' : `; its floor ${(floor.wall * 1000).toFixed(1)} ms`}`,
    details: { cpuMs: evidence.cpu === null ? null : evidence.cpu * 1000, floorMs: floor === null ? null : floor.wall * 1000 },
  });
}

/**
 * The marginal cost of one more page of each kind (article, evidence, record), over the Astro
 * floor's page of the same kind: what a copy's pages of that kind add to a build, per page, in the
 * evidence site and in its floor, each read as the difference between the slopes of two page sets
 * (KIND_SETS) of the same copies. Wall time is the figure, CPU time in the note. Pure.
 */
export function pageKindFigures(series: Pick<GrowthSeries, 'evidence' | 'floor' | 'sets' | 'pagesPerCopy'>): Figure[] {
  const pair = (set: PageSet): SitePair | undefined => (set === 'all' ? series : series.sets[set]);
  return PAGE_KINDS.map((kind) => {
    const base = {
      id: `growth.overFloor.${kind}`,
      group: 'growth' as const,
      unit: 'x' as const,
      label: `marginal cost over the Astro floor: ${kind === 'record' ? 'run record' : kind} page`,
      target: { op: '<=' as const, value: OVER_FLOOR_TARGET },
    };
    const pages = series.pagesPerCopy?.[kind];
    if (!pages) return notMeasured(base, series.pagesPerCopy === null ? "the floor's sources could not be read" : `the article has no ${kind} page`);
    const [withSet, withoutSet] = KIND_SETS[kind];
    const cost = (site: keyof SitePair) => {
      const withPair = pair(withSet);
      const withoutPair = pair(withoutSet);
      if (!withPair || !withoutPair) return null;
      const a = perCopySlope(withPair[site]);
      const b = perCopySlope(withoutPair[site]);
      if (a === null || b === null) return null;
      return { wall: ((a.wall - b.wall) * 1000) / pages, cpu: a.cpu === null || b.cpu === null ? null : ((a.cpu - b.cpu) * 1000) / pages };
    };
    const evidence = cost('evidence');
    const floor = cost('floor');
    const sets = `the ${withSet} set less the ${withoutSet} set`;
    if (evidence === null || floor === null) return notMeasured(base, `needs at least 2 sizes of ${sets} built, in the evidence site and its floor`);
    if (floor.wall <= 0)
      return notMeasured(
        base,
        `the floor's ${kind} pages cost nothing measurable (${floor.wall.toFixed(1)} ms/page): no ratio to form; the evidence site's cost ${evidence.wall.toFixed(1)} ms/page`,
      );
    const cpuRatio = evidence.cpu !== null && floor.cpu !== null && floor.cpu > 0 ? evidence.cpu / floor.cpu : null;
    return measured(base, evidence.wall / floor.wall, {
      note: `${evidence.wall.toFixed(1)} / ${floor.wall.toFixed(1)} ms per page wall${cpuRatio === null ? '' : `; over CPU time ${cpuRatio.toFixed(2)}x (${evidence.cpu!.toFixed(1)} / ${floor.cpu!.toFixed(1)} ms)`}; ${pages} such pages a copy; slopes of ${sets}`,
      details: { pagesPerCopy: pages, evidenceMs: evidence.wall, floorMs: floor.wall, evidenceCpuMs: evidence.cpu, floorCpuMs: floor.cpu, cpuRatio },
    });
  });
}
