// Every article's evidence, found by Vite at build time: facts.ts and lines.ts
// beside each experiment, snapshots read once per article and kept for the
// whole build (a page binds many facts; the files are read and validated once).
import { resolve } from 'node:path';
import type { FactDef } from '../../evidence/facts.ts';
import type { LineTemplates } from '../../evidence/template.ts';
import type { WalkthroughStop } from '../render/walkthrough.ts';
import type { ClaimDef } from '../../evidence/claims.ts';
import { snapshotsDir } from '../../evidence/article/build.ts';
import type { ArticleEvidence } from '../../evidence/article/types.ts';
import type { ComparisonRow } from '../../evidence/article/variants.ts';
import { buildArticleEnvironments } from '../../evidence/article/environments.ts';
import type { Experiment } from '../../experiment/types.ts';
import type { ChartDef } from '../render/chart.ts';
import type { PacketPathDef } from '../render/packet-path.ts';
import { isDraft } from './draft.ts';
import { evidenceMemo, type MemoTarget } from './evidence-memo.ts';

const factModules = import.meta.glob<{ facts: FactDef[]; variantFacts?: Record<string, FactDef[]>; comparisonRows?: ComparisonRow[] }>(
  '/content/articles/*/facts.ts',
  { eager: true },
);
const experimentModules = import.meta.glob<{ experiment?: Experiment }>('/content/articles/*/experiment.ts', { eager: true });
const walkthroughModules = import.meta.glob<{ walkthrough: WalkthroughStop[] }>('/content/articles/*/walkthrough.ts', { eager: true });
const claimModules = import.meta.glob<{ claims: ClaimDef[]; comparisons?: ClaimDef[] }>('/content/articles/*/claims.ts', { eager: true });
const chartModules = import.meta.glob<{ charts: ChartDef[] }>('/content/articles/*/charts.ts', { eager: true });
const pathModules = import.meta.glob<{ paths: PacketPathDef[] }>('/content/articles/*/paths.ts', { eager: true });
const lineModules = import.meta.glob<{ lines: LineTemplates }>('/content/articles/*/lines.ts', { eager: true });

const slugOf = (path: string) => path.split('/').at(-2)!;
const bySlug = <T>(modules: Record<string, T>) => new Map(Object.entries(modules).map(([path, m]) => [slugOf(path), m]));
const facts = bySlug(factModules);
const lines = bySlug(lineModules);
const walkthroughs = bySlug(walkthroughModules);
const claims = bySlug(claimModules);
const experiments = bySlug(experimentModules);
const charts = bySlug(chartModules);
const packetPaths = bySlug(pathModules);
const cache = new Map<string, ArticleEvidence>();

/** The article's evidence, or an error naming the file that is missing. */
export function articleEvidence(slug: string): ArticleEvidence {
  const cached = cache.get(slug);
  // In dev, snapshots and facts may change under the server: derive afresh on every page.
  if (cached && !import.meta.env.DEV) return cached;
  const articleDir = resolve('content/articles', slug);
  const target: MemoTarget = { slug, articleDir, snapshotsDir: resolve(snapshotsDir(articleDir, slug, process.env.SHICE_SNAPSHOT_ROOT)), draft: isDraft() };
  // Derived once already by the build's check (../check/integration.ts), from these very files: take it.
  const remembered = import.meta.env.DEV ? undefined : evidenceMemo().recall(target);
  if (remembered) {
    cache.set(slug, remembered);
    return remembered;
  }
  const factDefs = facts.get(slug)?.facts;
  if (!factDefs) throw new Error(`content/articles/${slug}/facts.ts: expected an export named "facts" (the article binds measured values)`);
  const templates = lines.get(slug)?.lines;
  if (!templates) throw new Error(`content/articles/${slug}/lines.ts: expected an export named "lines" (the measured lines per step)`);
  // With variants and environments (experiment.ts), every run beside the headline's (environments.ts, variants.ts).
  const evidence = buildArticleEnvironments({
    slug,
    snapshotsDir: target.snapshotsDir,
    experiment: experiments.get(slug)?.experiment ?? null,
    factDefs,
    variantFactDefs: facts.get(slug)?.variantFacts,
    lines: templates,
    linesFile: `content/articles/${slug}/lines.ts`,
    claimDefs: claims.get(slug)?.claims ?? [],
    comparisonDefs: claims.get(slug)?.comparisons,
    claimsFile: `content/articles/${slug}/claims.ts`,
    draft: target.draft,
  });
  cache.set(slug, evidence);
  return evidence;
}

/** The article's step-by-step stops; an article that uses <Walkthrough /> must declare them. */
export function walkthroughOf(slug: string): WalkthroughStop[] {
  const stops = walkthroughs.get(slug)?.walkthrough;
  if (!stops) throw new Error(`content/articles/${slug}/walkthrough.ts: expected an export named "walkthrough" (the article uses <Walkthrough />)`);
  return stops;
}

/** The rows of the article's comparison across variants (facts.ts's `comparisonRows`); an article that uses <VariantComparison /> must declare them. */
export function comparisonRowsOf(slug: string): ComparisonRow[] {
  const rows = facts.get(slug)?.comparisonRows;
  if (!rows) throw new Error(`content/articles/${slug}/facts.ts: expected an export named "comparisonRows" (the article uses <VariantComparison />)`);
  return rows;
}

/** A chart the article declares in charts.ts (<Chart id="..." />). */
export function chartOf(slug: string, id: string): ChartDef {
  const defs = charts.get(slug)?.charts;
  if (!defs) throw new Error(`content/articles/${slug}/charts.ts: expected an export named "charts" (the article uses <Chart id="${id}" />)`);
  const def = defs.find((c) => c.id === id);
  if (!def) throw new Error(`content/articles/${slug}/charts.ts: no chart "${id}"; it declares: ${defs.map((c) => c.id).join(', ') || 'none'}`);
  return def;
}

/** A packet's path the article declares in paths.ts (<PacketPath id="..." />), with the file that declares it (for messages). */
export function packetPathOf(slug: string, id: string): { def: PacketPathDef; file: string } {
  const file = `content/articles/${slug}/paths.ts`;
  const defs = packetPaths.get(slug)?.paths;
  if (!defs) throw new Error(`${file}: expected an export named "paths" (the article uses <PacketPath id="${id}" />)`);
  const def = defs.find((p) => p.id === id);
  if (!def) throw new Error(`${file}: no path "${id}"; it declares: ${defs.map((p) => p.id).join(', ') || 'none'}`);
  return { def, file };
}
