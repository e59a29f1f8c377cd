// Binding overhead: the same N articles built through the evidence pipeline
// and as plain MDX with the values typed in, in one run. The plain MDX comes
// twice: with its code blocks fenced (the build highlights them, as the
// evidence components do: the same page, the baseline of the target) and with
// them as static text (no highlighting anywhere: what the binding costs beside
// a build that does nothing but MDX). Builds run in a mirrored order so that a
// machine getting busier or quieter during the run weighs on every site alike,
// and each site's faster build counts (other work on the machine only adds time).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LANGS } from '../../src/site.config.ts';
import { articlePath, evidencePath } from '../../src/i18n/urls.ts';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { firstDifference, summarizeArticle, type ArticleSummary } from '../fidelity.ts';
import { ratio } from '../stats.ts';
import { astroBuild, type BuildResult } from '../site/astro-build.ts';
import { wasBusy } from '../site/cpu.ts';
import { copySlug } from '../site/copies.ts';
import { plainSources } from '../site/plain-source.ts';
import { generateSite, writeEvidenceCopies, writePlainCopies, type TempProject } from '../site/temp-project.ts';
import { BENCH_CONFIG } from '../site/variant-files.ts';
import { errorMessage, withTemporary, type BenchContext } from './context.ts';

export const BINDING_TARGET = 1.15;
type Site = 'plain' | 'evidence' | 'unhighlighted';
const SITES: readonly Site[] = ['plain', 'evidence', 'unhighlighted'];
const ORDER: Site[] = ['plain', 'evidence', 'unhighlighted', 'unhighlighted', 'evidence', 'plain'];

/** The copy's pages in every language (its article pages, and its evidence pages where it has them), by `<lang> page`. */
async function articlePages(dir: string, slug: string): Promise<Map<string, ArticleSummary>> {
  const pages = new Map<string, ArticleSummary>();
  for (const lang of LANGS) {
    for (const [kind, path] of [
      ['article', articlePath(lang, slug)],
      ['evidence', evidencePath(lang, slug)],
    ] as const) {
      const page = join('dist', path, 'index.html');
      if (kind === 'evidence' && !existsSync(join(dir, page))) continue;
      pages.set(`${lang} ${kind} page`, summarizeArticle(page, await readFile(join(dir, page), 'utf8')));
    }
  }
  return pages;
}

/** Why a plain site does not show the same pages as the evidence site, or null when it does. */
function fidelityProblem(site: string, plain: Map<string, ArticleSummary>, evidence: Map<string, ArticleSummary>): string | null {
  for (const [page, e] of evidence) {
    const p = plain.get(page);
    if (!p) return `the ${site} site has no ${page}`;
    if (e.boundValues === 0) return `the evidence site's ${page} binds no values: the pipeline did not run`;
    if (p.boundValues !== 0) return `the ${site} site's ${page} still has ${p.boundValues} bound values`;
    const difference = firstDifference(p.text, e.text);
    if (difference) return `the ${site} and evidence ${page}s differ in text ${difference}`;
  }
  return null;
}

function bindingBases(n: number) {
  return {
    ratio: {
      id: 'binding.ratio',
      group: 'binding' as const,
      unit: 'x' as const,
      label: `binding overhead: evidence / plain build, ${n} articles`,
      target: { op: '<=' as const, value: BINDING_TARGET },
    },
    perPage: { id: 'binding.perPage', group: 'binding' as const, unit: 'ms/page' as const, label: 'binding overhead per article page' },
    bare: { id: 'binding.ratioUnhighlighted', group: 'binding' as const, unit: 'x' as const, label: 'evidence / plain build without highlighting' },
  };
}

/** A site's fastest build over wall time, and its least CPU time (null unless every build's is known). */
function fastest(builds: readonly BuildResult[]): { wall: number; cpu: number | null } {
  const cpus = builds.map((b) => b.cost.cpuSeconds);
  return { wall: Math.min(...builds.map((b) => b.seconds)), cpu: cpus.every((c) => c !== null) ? Math.min(...(cpus as number[])) : null };
}

/**
 * The binding figures from every build of the three sites and whether each plain site shows
 * the evidence site's text (null: it does). Over wall time, with the same ratio over CPU time
 * beside it: a machine busy with other work lengthens wall times, not CPU times. Pure.
 */
export function bindingFigures(
  n: number,
  builds: Readonly<Record<Site, readonly BuildResult[]>>,
  problems: Readonly<Record<'plain' | 'unhighlighted', string | null>>,
): Figure[] {
  const bases = bindingBases(n);
  const pages = n * LANGS.length;
  const e = fastest(builds.evidence);
  const p = fastest(builds.plain);
  const u = fastest(builds.unhighlighted);
  const busy = Object.values(builds)
    .flat()
    .filter((b) => wasBusy(b.cost)).length;
  const details = {
    articles: n,
    articlePages: pages,
    order: ORDER,
    seconds: Object.fromEntries(SITES.map((site) => [site, builds[site].map((b) => b.seconds)])),
    cpuSeconds: Object.fromEntries(SITES.map((site) => [site, builds[site].map((b) => b.cost.cpuSeconds)])),
    load: Object.fromEntries(SITES.map((site) => [site, builds[site].map((b) => [b.cost.loadBefore, b.cost.loadAfter])])),
  };
  const overCpu = (a: { cpu: number | null }, b: { cpu: number | null }, names: string) =>
    a.cpu === null || b.cpu === null
      ? '; CPU time unknown here'
      : `; over CPU time ${ratio(a.cpu, b.cpu).toFixed(2)}x (${names} ${a.cpu.toFixed(1)} / ${b.cpu.toFixed(1)} s CPU)`;
  const busyNote = busy ? `; ${busy} build(s) ran with the load above the cores: read the CPU ratio` : '';
  const figures: Figure[] = [];
  if (problems.plain) {
    const reason = `${problems.plain}; a ratio of different pages would mean nothing`;
    figures.push(notMeasured(bases.ratio, reason, details), notMeasured(bases.perPage, reason));
  } else {
    figures.push(
      measured(bases.ratio, ratio(e.wall, p.wall), {
        note: `evidence ${e.wall.toFixed(1)} s / plain ${p.wall.toFixed(1)} s wall, faster of ${builds.evidence.length} cold builds each${overCpu(e, p, 'evidence / plain')}${busyNote}; same text on its article and evidence pages`,
        details,
      }),
      measured(bases.perPage, ((e.wall - p.wall) * 1000) / pages, {
        note: `(evidence - plain) / ${pages} article pages, wall${e.cpu === null || p.cpu === null ? '' : `; CPU ${(((e.cpu - p.cpu) * 1000) / pages).toFixed(1)} ms/page`}`,
      }),
    );
  }
  figures.push(
    problems.unhighlighted
      ? notMeasured(bases.bare, problems.unhighlighted, details)
      : measured(bases.bare, ratio(e.wall, u.wall), {
          note: `plain with code as static <pre>: ${u.wall.toFixed(1)} s wall${overCpu(e, u, 'evidence / unhighlighted')}; the evidence site still highlights`,
        }),
  );
  return figures;
}

export async function measureBinding(ctx: BenchContext): Promise<Figure[]> {
  const n = ctx.args.bindingArticles;
  const slug = ctx.args.article;
  const pages = n * LANGS.length;
  const build = { timeoutMs: ctx.args.buildTimeoutSeconds * 1000, cancelSignal: ctx.cancelSignal };
  try {
    const sources = await ctx.progress.task(`probe build of ${slug}: what each of its components renders`, () => plainSources(ctx.root, slug, build));
    const createSite = (site: Site) =>
      ctx.progress.task(`generating the ${site} site (${n} articles)`, () =>
        generateSite(ctx.root, site === 'evidence' ? 'evidence' : 'plain', `${site}-${n}`, (dir) =>
          site === 'evidence'
            ? writeEvidenceCopies(ctx.root, dir, slug, n)
            : writePlainCopies(dir, slug, site === 'plain' ? sources.highlighted : sources.unhighlighted, n),
        ),
      );
    return await withTemporary(
      ctx,
      () => createSite('plain'),
      (plain) =>
        withTemporary(
          ctx,
          () => createSite('evidence'),
          (evidence) =>
            withTemporary(
              ctx,
              () => createSite('unhighlighted'),
              async (unhighlighted) => {
                const projects: Record<Site, TempProject> = { plain, evidence, unhighlighted };
                const builds: Record<Site, BuildResult[]> = { plain: [], evidence: [], unhighlighted: [] };
                const summaries: Partial<Record<Site, Map<string, ArticleSummary>>> = {};
                for (const [i, site] of ORDER.entries()) {
                  if (ctx.cancelSignal.aborted) throw new Error('interrupted');
                  builds[site].push(
                    await ctx.progress.task(`build ${i + 1} of ${ORDER.length}: ${site} site, ${n} articles (${pages} article pages)`, () =>
                      astroBuild(projects[site].dir, { config: BENCH_CONFIG, ...build }),
                    ),
                  );
                  summaries[site] ??= await articlePages(projects[site].dir, copySlug(slug, 1));
                }
                return bindingFigures(n, builds, {
                  plain: fidelityProblem('plain', summaries.plain!, summaries.evidence!),
                  unhighlighted: fidelityProblem('unhighlighted', summaries.unhighlighted!, summaries.evidence!),
                });
              },
            ),
        ),
    );
  } catch (error) {
    return Object.values(bindingBases(n)).map((base) => notMeasured(base, errorMessage(error)));
  }
}
