// Every article, found by Vite at build time (its one definition, article.ts,
// checked by src/authoring/load.ts's `articleFrom`), and its evidence: snapshots
// read once per article and kept for the whole build (a page binds many facts;
// the files are read and validated once). Under `npm run dev` the evidence is
// kept while the article's files and definition are unchanged (PageEvidence):
// an edit or a capture is seen on the next page, and the 36 pages of an
// article do not each read and derive its runs again.
import type { ArticleEvidence } from '../../evidence/runs/types.ts';
import type { ComparisonRow } from '../../evidence/runs/variants.ts';
import { evidenceFromDisk } from '../../evidence/runs/from-disk.ts';
import { articleFrom, definitionFile, type Article } from '../../authoring/load.ts';
import type { ChartDef, PacketPathDef, WalkthroughStop } from '../../authoring/parts.ts';
import { articleTarget, evidenceMemo, PageEvidence } from './evidence-memo.ts';
import { readUpstreamRecord } from '../../evidence/upstream-disk.ts';
import { UPSTREAM_FILE, type CitationDef, type UpstreamRecord } from '../../evidence/upstream.ts';

const modules = import.meta.glob<{ default?: unknown }>('/content/articles/*/article.ts', { eager: true });
const definitions = new Map(Object.entries(modules).map(([path, m]) => [path.split('/').at(-2)!, m.default]));

const checked = new Map<string, { exported: unknown; article: Article }>();

/** The article's definition, checked once per module object; in dev, a changed article.ts is a new module, so it is checked again. */
function articleOf(slug: string): Article {
  if (!definitions.has(slug)) throw new Error(`${definitionFile(slug)}: missing (an article is one definition: \`export default defineArticle({...})\`)`);
  const exported = definitions.get(slug);
  const kept = checked.get(slug);
  if (kept && kept.exported === exported) return kept.article;
  const article = articleFrom(exported, slug);
  checked.set(slug, { exported, article });
  return article;
}

const cache = new Map<string, ArticleEvidence>();
const devPages = new PageEvidence();

/** The article's evidence, or an error naming the file that is missing. */
export function articleEvidence(slug: string): ArticleEvidence {
  // In dev, snapshots and facts may change under the server: derived again when a file or the definition has.
  if (import.meta.env.DEV) {
    const target = articleTarget(process.cwd(), slug);
    return devPages.evidence(target, definitions.get(slug), () =>
      evidenceFromDisk(slug, target.snapshotsDir, articleOf(slug), { variants: true, draft: target.draft }),
    );
  }
  const cached = cache.get(slug);
  if (cached) return cached;
  const target = articleTarget(process.cwd(), slug);
  // Derived once already by the build's check (../check/integration.ts), from these very files: take it.
  const remembered = evidenceMemo().recall(target);
  if (remembered) {
    cache.set(slug, remembered);
    return remembered;
  }
  // As the build's check derives it: every environment's and variant's runs (from-disk.ts).
  const evidence = evidenceFromDisk(slug, target.snapshotsDir, articleOf(slug), { variants: true, draft: target.draft });
  cache.set(slug, evidence);
  return evidence;
}

/** The article's step-by-step stops; an article that uses <Walkthrough /> must declare them. */
export function walkthroughOf(slug: string): WalkthroughStop[] {
  const article = articleOf(slug);
  if (!article.walkthrough) throw new Error(`${article.file}: expected a field "walkthrough" (the article uses <Walkthrough />)`);
  return article.walkthrough;
}

/** The rows of the article's comparison across variants; an article that uses <VariantComparison /> must declare them. */
export function comparisonRowsOf(slug: string): ComparisonRow[] {
  const article = articleOf(slug);
  if (!article.comparisonRows) throw new Error(`${article.file}: expected a field "comparisonRows" (the article uses <VariantComparison />)`);
  return article.comparisonRows;
}

/** A chart the article declares (<Chart id="..." />). */
export function chartOf(slug: string, id: string): ChartDef {
  const article = articleOf(slug);
  const def = article.charts.find((c) => c.id === id);
  if (!def)
    throw new Error(
      `${article.file}: field "charts": no chart "${id}" (the article uses <Chart id="${id}" />); it declares: ${article.charts.map((c) => c.id).join(', ') || 'none'}`,
    );
  return def;
}

/** A packet's path the article declares (<PacketPath id="..." />), with the file that declares it (for messages). */
export function packetPathOf(slug: string, id: string): { def: PacketPathDef; file: string } {
  const article = articleOf(slug);
  const def = article.paths.find((p) => p.id === id);
  if (!def)
    throw new Error(
      `${article.file}: field "paths": no path "${id}" (the article uses <PacketPath id="${id}" />); it declares: ${article.paths.map((p) => p.id).join(', ') || 'none'}`,
    );
  return { def, file: article.file };
}

const citationCache = new Map<string, { defs: CitationDef[]; record: UpstreamRecord }>();

/** The article's citations and the upstream lines kept for them (upstream.yaml), read once per build; in dev, on every page. */
export function citationsOf(slug: string): { defs: CitationDef[]; record: UpstreamRecord } {
  const kept = import.meta.env.DEV ? undefined : citationCache.get(slug);
  if (kept) return kept;
  const shown = `content/articles/${slug}/${UPSTREAM_FILE}`;
  const { record, problems } = readUpstreamRecord(articleTarget(process.cwd(), slug).articleDir, shown);
  if (problems.length) throw new Error(problems.join('\n'));
  const citations = { defs: articleOf(slug).citations, record: record ?? new Map() };
  citationCache.set(slug, citations);
  return citations;
}
