// The one loader of an article: content/articles/<slug>/article.ts, its default
// export (defineArticle), checked and put in the form every reader takes. The
// build, the dev server, capture, merge, matrix, bench and scaffold test read
// articles through here; the pages' copy, bundled by Vite, passes the module it
// imported to `articleFrom`.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Experiment } from '../experiment/types.ts';
import type { FactDef } from '../evidence/facts.ts';
import type { ClaimDef } from '../evidence/claims.ts';
import type { LineTemplates } from '../evidence/template.ts';
import type { ArticleDefinitions } from '../evidence/article/from-disk.ts';
import type { ComparisonRow } from '../evidence/article/variants.ts';
import type { Claim } from './article.ts';
import type { ChartDef, PacketPathDef, WalkthroughStop } from './parts.ts';

export const ARTICLES = 'content/articles';
export const DEFINITION = 'article.ts';

/** An article as every reader takes it: its experiment, fact definitions with their ids, claims, lines and parts. */
export interface Article extends ArticleDefinitions {
  slug: string;
  /** content/articles/<slug>/article.ts, relative to the project: what messages name. */
  file: string;
  experiment: Experiment;
  comparisonRows?: ComparisonRow[];
  charts: ChartDef[];
  paths: PacketPathDef[];
  walkthrough?: WalkthroughStop[];
}

export const articleDir = (root: string, slug: string): string => join(root, ARTICLES, slug);
export const definitionFile = (slug: string): string => `${ARTICLES}/${slug}/${DEFINITION}`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown): string => (v === undefined ? 'nothing' : v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v);

function factDefs(specs: unknown, field: string, file: string, problems: string[]): FactDef[] {
  if (!isObject(specs)) {
    problems.push(`${file}: field "${field}": expected an object of facts by id, got ${describe(specs)}`);
    return [];
  }
  return Object.entries(specs).flatMap(([id, spec]) => {
    if (isObject(spec) && typeof spec.step === 'string' && typeof spec.derive === 'function') return [{ ...(spec as Omit<FactDef, 'id'>), id }];
    problems.push(`${file}: field "${field}", fact "${id}": expected a fact (stdout(...), http.status(...), fromStep(...), ...), got ${describe(spec)}`);
    return [];
  });
}

function claimDefs(claims: unknown, field: string, file: string, problems: string[]): ClaimDef[] {
  if (claims === undefined) return [];
  if (!Array.isArray(claims)) {
    problems.push(`${file}: field "${field}": expected a list of claims, got ${describe(claims)}`);
    return [];
  }
  return claims.flatMap((c: Partial<Claim>, i) => {
    if (isObject(c) && typeof c.holds === 'function')
      return [
        { id: String(c.id), statement: { zh: String(c.zh ?? ''), en: String(c.en ?? '') }, holds: c.holds, ...(c.variants ? { variants: c.variants } : {}) },
      ];
    problems.push(`${file}: field "${field}", item ${i + 1}: expected { id, zh, en, holds }, got ${describe(c)}`);
    return [];
  });
}

function list<T>(value: unknown, field: string, file: string, problems: string[]): T[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value as T[];
  problems.push(`${file}: field "${field}": expected a list, got ${describe(value)}`);
  return [];
}

/**
 * An article from what its article.ts exports by default. Pure. Every problem is one line
 * naming the file and the field; they are thrown together.
 */
export function articleFrom(exported: unknown, slug: string, file = definitionFile(slug)): Article {
  if (!isObject(exported)) throw new Error(`${file}: expected \`export default defineArticle({...})\`, got ${describe(exported)} as the default export`);
  const problems: string[] = [];
  const experiment = exported.experiment as Experiment | undefined;
  if (!isObject(experiment)) problems.push(`${file}: field "experiment": expected the experiment (cluster, manifests, steps), got ${describe(experiment)}`);
  else if (experiment.slug !== slug)
    problems.push(`${file}: field "experiment.slug": expected "${slug}" (the folder's name), got ${JSON.stringify(experiment.slug)}`);
  const facts = factDefs(exported.facts, 'facts', file, problems);
  let variantFactDefs: Record<string, FactDef[]> | undefined;
  if (exported.variantFacts !== undefined) {
    if (!isObject(exported.variantFacts)) problems.push(`${file}: field "variantFacts": expected facts by variant, got ${describe(exported.variantFacts)}`);
    else
      variantFactDefs = Object.fromEntries(
        Object.entries(exported.variantFacts).map(([variant, specs]) => [variant, factDefs(specs, `variantFacts.${variant}`, file, problems)]),
      );
  }
  if (!isObject(exported.lines)) problems.push(`${file}: field "lines": expected each step's measured line, by step id, got ${describe(exported.lines)}`);
  const claims = claimDefs(exported.claims, 'claims', file, problems);
  const comparisons = exported.comparisons === undefined ? undefined : claimDefs(exported.comparisons, 'comparisons', file, problems);
  const charts = list<ChartDef>(exported.charts, 'charts', file, problems);
  const paths = list<PacketPathDef>(exported.paths, 'paths', file, problems);
  const walkthrough = exported.walkthrough === undefined ? undefined : list<WalkthroughStop>(exported.walkthrough, 'walkthrough', file, problems);
  const comparisonRows = exported.comparisonRows === undefined ? undefined : list<ComparisonRow>(exported.comparisonRows, 'comparisonRows', file, problems);
  if (problems.length) throw new Error(problems.join('\n'));
  return {
    slug,
    file,
    experiment: experiment!,
    factDefs: facts,
    lines: exported.lines as LineTemplates,
    claimDefs: claims,
    charts,
    paths,
    ...(variantFactDefs ? { variantFactDefs } : {}),
    ...(comparisons ? { comparisonDefs: comparisons } : {}),
    ...(walkthrough ? { walkthrough } : {}),
    ...(comparisonRows ? { comparisonRows } : {}),
  };
}

/** The slugs of every article with a definition, sorted. */
export async function listArticleSlugs(root: string): Promise<string[]> {
  const entries = await readdir(join(root, ARTICLES), { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && existsSync(join(root, ARTICLES, e.name, DEFINITION)))
    .map((e) => e.name)
    .sort();
}

/** An article read from disk; `fresh` (a token) imports it anew, past Node's module cache: dev re-checks after an edit. */
export async function loadArticle(root: string, slug: string, fresh?: string): Promise<Article> {
  const path = join(articleDir(root, slug), DEFINITION);
  const file = definitionFile(slug);
  if (!existsSync(path))
    throw new Error(`${file}: missing (an article is one definition: \`export default defineArticle({...})\`; npm run new -- <slug> writes one)`);
  const url = pathToFileURL(resolve(path));
  if (fresh !== undefined) url.search = `?shice-dev=${encodeURIComponent(fresh)}`;
  const module = (await import(url.href)) as { default?: unknown };
  return articleFrom(module.default, slug, file);
}
