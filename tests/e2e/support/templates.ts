// One page of each template for the browser's heavy sweeps (layout at 375 and
// 1280 px, axe in both themes, typography, the reader's checks), chosen by
// measuring the built pages (dist/) for what stresses the template most: the
// longest Chinese title, the widest raw output, the longest table, the most
// drawn text. Each measure picks its page; a template's pages are those picks,
// each once, so the sweeps cost the same for 3 articles as for 75. Every other
// page of the template is the same component over other values: their values
// are checked against the snapshots page by page (pages.spec.ts, tests/built).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { articlePathOf, articleSlugs, evidencePathsOf, runRecordPathsOf, type Lang } from './articles.ts';
import { ROOT } from './runs.ts';

const DIST = join(ROOT, 'dist');

function html(path: string): string {
  const file = join(DIST, path, 'index.html');
  if (!existsSync(file)) throw new Error(`dist${path}index.html: missing; the browser suite runs after \`npm run build\``);
  return readFileSync(file, 'utf8');
}

const decode = (s: string) =>
  s
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The longest line of raw output (in characters) among the page's step outputs and excerpts. */
export function widestOutput(page: string): number {
  let widest = 0;
  for (const m of page.matchAll(/<pre\b[^>]*>([\s\S]*?)<\/pre>/g)) for (const line of decode(m[1]!).split('\n')) widest = Math.max(widest, [...line].length);
  return widest;
}

/** The most rows of any one table of the page, times its columns (the cells a reader meets in it). */
export function longestTable(page: string): number {
  let most = 0;
  for (const m of page.matchAll(/<table\b[\s\S]*?<\/table>/g)) {
    const rows = m[0].match(/<tr\b/g)?.length ?? 0;
    const cells = m[0].match(/<t[dh]\b/g)?.length ?? 0;
    most = Math.max(most, rows * Math.ceil(cells / Math.max(rows, 1)));
  }
  return most;
}

/** The page's title as a reader sees it, in characters. */
export function titleLength(page: string): number {
  const h1 = /<h1\b[^>]*>([\s\S]*?)<\/h1>/.exec(page)?.[1] ?? '';
  return [...decode(h1)].length;
}

/** The text drawn inside the page's charts and packet paths, in characters. */
export function drawnText(page: string): number {
  let count = 0;
  for (const m of page.matchAll(/<svg\b[\s\S]*?<\/svg>/g))
    for (const t of m[0].matchAll(/<text\b[^>]*>([\s\S]*?)<\/text>/g)) count += [...decode(t[1]!)].length;
  return count;
}

/** Values marked inside their sentence as declared or not measured. */
export function inlineMarks(page: string): number {
  return page.match(/<[^>]+\bdata-(?:declared|not-measured)\b[^>]*\bdata-mark=/g)?.length ?? 0;
}

export interface Chosen {
  /** The page's path in the language the sweep asked for. */
  path: string;
  slug: string;
  /** What it was chosen for, and by how much: "the widest raw output (212 characters)". */
  why: string;
}

type Measure = [why: string, measure: (page: string) => number, unit: string];

/**
 * The pages a template's sweeps visit in one language: for each measure, the
 * page that scores highest on it (the first in the list on a tie), each once.
 * Measured on the Chinese page (the longer lines and titles, the first language),
 * the same article's page visited in the language asked. A measure that sees no
 * page fails: a sweep over nothing would pass empty.
 */
function choose(candidates: (lang: Lang) => { slug: string; path: string }[], measures: Measure[], lang: Lang): Chosen[] {
  const measuredOn = candidates('zh');
  const visited = candidates(lang);
  if (measuredOn.length === 0 || visited.length === 0) throw new Error('no built page of this template to choose from: the sweep would pass empty');
  const chosen: Chosen[] = [];
  for (const [why, measure, unit] of measures) {
    const scored = measuredOn.map((c, i) => ({ i, score: measure(html(c.path)) }));
    const best = scored.reduce((a, b) => (b.score > a.score ? b : a));
    const page = visited[best.i]!;
    const already = chosen.find((c) => c.path === page.path);
    if (already) already.why += `; ${why} (${best.score} ${unit})`;
    else chosen.push({ path: page.path, slug: page.slug, why: `${why} (${best.score} ${unit})` });
  }
  return chosen;
}

const articles = (lang: Lang) => articleSlugs().map((slug) => ({ slug, path: articlePathOf(lang, slug) }));
const evidencePages = (lang: Lang) => articleSlugs().flatMap((slug) => evidencePathsOf(lang, slug).map((path) => ({ slug, path })));
/** Every record, the headline's of each article first (so a tie picks a headline record). */
const records = (lang: Lang) => articleSlugs().flatMap((slug) => runRecordPathsOf(lang, slug).map((path) => ({ slug, path })));

const TITLE: Measure = ['the longest title', titleLength, 'characters'];
const OUTPUT: Measure = ['the widest raw output', widestOutput, 'characters'];
const TABLE: Measure = ['the longest table', longestTable, 'cells'];

/** The article pages the layout, axe, typography and language sweeps visit: the longest Chinese title, the widest raw output, the longest table. */
export function articleTemplates(lang: Lang): Chosen[] {
  return choose(articles, [TITLE, OUTPUT, TABLE], lang);
}

/** The article page whose charts and packet paths draw the most text: the one to check they fit a phone. */
export function drawingTemplate(lang: Lang): Chosen {
  return choose(articles, [['the most text drawn in charts and packet paths', drawnText, 'characters']], lang)[0]!;
}

/** The article page with the most values marked declared or not measured inside their sentence. */
export function marksTemplate(lang: Lang): Chosen {
  return choose(articles, [['the most values marked declared or not measured', inlineMarks, 'marks']], lang)[0]!;
}

/** The article page with the longest Chinese title: its header pushes the first headline value furthest down a phone's first screen. */
export function titleTemplate(lang: Lang): Chosen {
  return choose(articles, [TITLE], lang)[0]!;
}

/** The evidence pages to sweep: the longest table (the claim matrices), the widest raw output. */
export function evidenceTemplates(lang: Lang): Chosen[] {
  return choose(evidencePages, [TABLE, OUTPUT], lang);
}

/** The run records to sweep: the widest raw output, the longest table of steps. */
export function recordTemplates(lang: Lang): Chosen[] {
  return choose(records, [OUTPUT, TABLE], lang);
}
