// The one loader of an article: content/articles/<slug>/article.ts, its default
// export (defineArticle), checked and put in the form every reader takes. The
// build, the dev server, capture, merge, matrix, bench and scaffold test read
// articles through here; the pages' copy, bundled by Vite, passes the module it
// imported to `articleFrom`.
import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Experiment } from '../experiment/types.ts';
import type { FactDef } from '../evidence/facts.ts';
import type { ClaimDef } from '../evidence/claims.ts';
import type { LineTemplates } from '../evidence/template.ts';
import type { ArticleDefinitions } from '../evidence/runs/from-disk.ts';
import type { ComparisonRow } from '../evidence/runs/variants.ts';
import type { Claim } from './article.ts';
import type { ChartDef, PacketPathDef, WalkthroughStop } from './parts.ts';
import { quoteProblem, type CitationDef } from '../evidence/upstream.ts';
import { quoted } from '../evidence/terminal-text.ts';
import { STEP_ID_RULE, stepIdSchema } from '../evidence/schema.ts';
import { runFactCollisions } from '../evidence/run-facts.ts';
import { folderNameProblem, shownSlug } from './slug.ts';
import { authorFileProblem, isInside } from './author-file.ts';

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
  citations: CitationDef[];
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

function citationDefs(value: unknown, file: string, problems: string[]): CitationDef[] {
  if (value === undefined) return [];
  if (!isObject(value)) {
    problems.push(`${file}: field "citations": expected citations by id, got ${describe(value)}`);
    return [];
  }
  return Object.entries(value).flatMap(([id, c]) => {
    const field = `${file}: field "citations.${id}"`;
    if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) problems.push(`${field}: expected an id of lower-case letters, digits and hyphens`);
    else if (!isObject(c) || typeof c.file !== 'string' || /^\/|\.\./.test(c.file))
      problems.push(`${field}: expected { file, lines, about } with file a path inside kubernetes/kubernetes, got ${describe(isObject(c) ? c.file : c)}`);
    else if (!Array.isArray(c.lines) || !c.lines.every((l) => typeof l === 'string') || !c.lines.some((l) => l.trim() !== ''))
      problems.push(`${field}.lines: expected the cited lines, as strings, not all empty, got ${describe(c.lines)}`);
    else if (quoteProblem(c.lines as string[]) !== null) problems.push(`${field}.lines: ${quoteProblem(c.lines as string[])}`);
    else if (!isObject(c.about) || typeof c.about.zh !== 'string' || typeof c.about.en !== 'string')
      problems.push(`${field}.about: expected { zh, en }, got ${describe(c.about)}`);
    else return [{ id, file: c.file, lines: c.lines as string[], about: { zh: c.about.zh, en: c.about.en } }];
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
 * What a step refers to that the experiment does not have: a client step a delete or a
 * recreate waits on must be an exec step that runs before it; a recreated pod's manifest must be
 * one the experiment applies.
 */
function stepProblems(experiment: Experiment, file: string): string[] {
  const problems: string[] = [];
  // A null or malformed field is named here, not met later as "Cannot read properties of null".
  if (experiment.cluster !== undefined && !isObject(experiment.cluster))
    problems.push(`${file}: field "experiment.cluster": expected the cluster (threeNodeCluster(), ...), got ${describe(experiment.cluster)}`);
  if (experiment.manifests !== undefined && (!Array.isArray(experiment.manifests) || !experiment.manifests.every((m) => typeof m === 'string')))
    problems.push(`${file}: field "experiment.manifests": expected a list of paths relative to the article's folder, got ${describe(experiment.manifests)}`);
  if (experiment.steps !== undefined && !Array.isArray(experiment.steps))
    problems.push(`${file}: field "experiment.steps": expected a list of steps (exec(...), ...), got ${describe(experiment.steps)}`);
  if (problems.length) return problems;
  const steps = experiment.steps ?? [];
  steps.forEach((step, i) => {
    const field = `experiment.steps.${i}`;
    const raw: unknown = step;
    if (!isObject(raw) || typeof raw.id !== 'string') {
      problems.push(`${file}: field "${field}": expected a step (exec(...), ...) with an id, got ${describe(step)}`);
      return;
    }
    // A step id names the step's file: the snapshot schema's one rule, said here before anything runs.
    if (!stepIdSchema.safeParse(step.id).success)
      problems.push(`${file}: field "${field}.id": expected ${STEP_ID_RULE}, got ${quoted(String(step.id).slice(0, 80))}`);
    if (step.kind !== 'exec' && 'settleClient' in step) {
      const probe = steps.findIndex((s) => s.id === step.settleClient.step);
      if (probe < 0 || probe > i || steps[probe]!.kind !== 'exec')
        problems.push(
          `${file}: field "${field}.settleClient.step": expected the id of an exec step before "${step.id}", got ${JSON.stringify(step.settleClient.step)}`,
        );
      if (step.settleClient.until !== 'answered' && step.settleClient.until !== 'failed')
        problems.push(`${file}: field "${field}.settleClient.until": expected "answered" or "failed", got ${JSON.stringify(step.settleClient.until)}`);
    }
    if (step.kind === 'recreate-pod' && !(experiment.manifests ?? []).includes(step.manifest))
      problems.push(
        `${file}: field "${field}.manifest": expected one of experiment.manifests (${experiment.manifests.join(', ')}), got ${JSON.stringify(step.manifest)}`,
      );
  });
  return problems;
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
  else problems.push(...stepProblems(experiment, file));
  const facts = factDefs(exported.facts, 'facts', file, problems);
  let variantFactDefs: Record<string, FactDef[]> | undefined;
  if (exported.variantFacts !== undefined) {
    if (!isObject(exported.variantFacts)) problems.push(`${file}: field "variantFacts": expected facts by variant, got ${describe(exported.variantFacts)}`);
    else
      variantFactDefs = Object.fromEntries(
        Object.entries(exported.variantFacts).map(([variant, specs]) => [variant, factDefs(specs, `variantFacts.${variant}`, file, problems)]),
      );
  }
  if (isObject(experiment) && Array.isArray(experiment.steps)) {
    const steps = experiment.steps.map((s) => s?.id).filter((id): id is string => typeof id === 'string');
    const nodes = Array.isArray(experiment.cluster?.nodes)
      ? experiment.cluster.nodes.map((n) => n?.name).filter((n): n is string => typeof n === 'string')
      : [];
    const own: Array<[string, FactDef]> = [
      ...facts.map((d): [string, FactDef] => ['facts', d]),
      ...Object.entries(variantFactDefs ?? {}).flatMap(([variant, defs]) => defs.map((d): [string, FactDef] => [`variantFacts.${variant}`, d])),
    ];
    const taken = runFactCollisions(
      own.map(([, d]) => d.id),
      steps,
      nodes,
    );
    for (const [field, d] of own)
      if (taken.has(d.id))
        problems.push(
          `${file}: field "${field}", fact "${d.id}": every run has this fact already (${taken.get(d.id)}, src/evidence/run-facts.ts); expected an id of its own, e.g. "${d.id.replace(/\.[^.]*$/, '')}.<what it reads>"`,
        );
  }
  if (!isObject(exported.lines)) problems.push(`${file}: field "lines": expected each step's measured line, by step id, got ${describe(exported.lines)}`);
  const claims = claimDefs(exported.claims, 'claims', file, problems);
  const comparisons = exported.comparisons === undefined ? undefined : claimDefs(exported.comparisons, 'comparisons', file, problems);
  const charts = list<ChartDef>(exported.charts, 'charts', file, problems);
  const paths = list<PacketPathDef>(exported.paths, 'paths', file, problems);
  const walkthrough = exported.walkthrough === undefined ? undefined : list<WalkthroughStop>(exported.walkthrough, 'walkthrough', file, problems);
  const comparisonRows = exported.comparisonRows === undefined ? undefined : list<ComparisonRow>(exported.comparisonRows, 'comparisonRows', file, problems);
  const citations = citationDefs(exported.citations, file, problems);
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
    citations,
    ...(variantFactDefs ? { variantFactDefs } : {}),
    ...(comparisons ? { comparisonDefs: comparisons } : {}),
    ...(walkthrough ? { walkthrough } : {}),
    ...(comparisonRows ? { comparisonRows } : {}),
  };
}

/** An entry of content/articles as found on disk (`articleEntry` reads it; `articleEntryProblem` judges it). */
export type ArticleEntry =
  | { kind: 'absent' | 'folder' | 'other' }
  /** `real`: where the link leads, links resolved, or null when nothing is there. */
  | { kind: 'link'; target: string; real: string | null; realIsFolder: boolean };

/** Every reader of articles refuses these: ArticleFolderError's message is one line per refused entry. */
export class ArticleFolderError extends Error {
  override name = 'ArticleFolderError';
}

export { isInside } from './author-file.ts';

/**
 * The problem with content/articles/<name> in one line, or null. A link to a folder inside the project is
 * the folder it leads to; a link to nothing, or out of the project (`realRoot`, links resolved), would make
 * the build, the capture or the scaffold read or write files that are no part of the checkout. Pure.
 */
export function articleEntryProblem(name: string, entry: ArticleEntry, realRoot: string): string | null {
  if (entry.kind !== 'link') return null;
  // A name of printable ASCII as it is; any other quoted, JSON-escaped (a line feed would print a line of its own).
  const shown = `${ARTICLES}/${/^[!#-~]+$/.test(name) ? name : shownSlug(name)}: a symbolic link to ${quoted(entry.target)}`;
  if (entry.real === null) return `${shown}, which does not exist; expected the article's folder (remove the link or make it a folder)`;
  const leads = entry.real === entry.target ? '' : ` (it leads to ${quoted(entry.real)})`;
  if (!isInside(entry.real, realRoot)) return `${shown}${leads}, outside the project; expected the article's folder inside the project`;
  return null;
}

/** What content/articles/<name> is, without following a link further than to say where it leads. */
export function articleEntry(root: string, name: string): ArticleEntry {
  const path = join(root, ARTICLES, name);
  let entry;
  try {
    entry = lstatSync(path);
  } catch {
    return { kind: 'absent' };
  }
  if (entry.isDirectory()) return { kind: 'folder' };
  if (!entry.isSymbolicLink()) return { kind: 'other' };
  try {
    const real = realpathSync(path);
    return { kind: 'link', target: readlinkSync(path), real, realIsFolder: statSync(real).isDirectory() };
  } catch {
    return { kind: 'link', target: readlinkSync(path), real: null, realIsFolder: false };
  }
}

/** The problem with the folder of the article `slug`, or null: one line naming it (see articleEntryProblem). */
export function articleFolderProblem(root: string, slug: string): string | null {
  return articleEntryProblem(slug, articleEntry(root, slug), realpathSync(root));
}

/**
 * The article folders of content/articles (real folders, and links to folders inside the project), sorted,
 * whether or not they hold a definition; a link that leads nowhere or out of the project, and a folder
 * whose name is no slug (src/authoring/slug.ts), throw an ArticleFolderError naming each.
 */
export function articleFolders(root: string): string[] {
  const realRoot = realpathSync(root);
  const problems: string[] = [];
  const folders: string[] = [];
  for (const name of readdirSync(join(root, ARTICLES)).sort()) {
    const entry = articleEntry(root, name);
    const isFolder = entry.kind === 'folder' || (entry.kind === 'link' && entry.realIsFolder);
    // Every folder's name is a slug, or the folder is refused here, named escaped: a line feed or ESC
    // in it printed raw in the dry run, the matrix and the build, which then failed in Vite.
    const problem = articleEntryProblem(name, entry, realRoot) ?? (isFolder ? folderNameProblem(name) : null);
    if (problem) problems.push(problem);
    else if (isFolder) folders.push(name);
  }
  if (problems.length) throw new ArticleFolderError(problems.join('\n'));
  return folders;
}

/** The slugs of every article with a definition, sorted; throws an ArticleFolderError for a folder that is a link leading nowhere or out of the project. */
export async function listArticleSlugs(root: string): Promise<string[]> {
  return articleFolders(root).filter((name) => existsSync(join(root, ARTICLES, name, DEFINITION)));
}

/** An article read from disk; `fresh` (a token) imports it anew, past Node's module cache: dev re-checks after an edit. */
export async function loadArticle(root: string, slug: string, fresh?: string): Promise<Article> {
  const path = join(articleDir(root, slug), DEFINITION);
  const file = definitionFile(slug);
  const folderProblem = articleFolderProblem(root, slug) ?? folderNameProblem(slug);
  if (folderProblem) throw new ArticleFolderError(folderProblem);
  if (!existsSync(path))
    throw new Error(`${file}: missing (an article is one definition: \`export default defineArticle({...})\`; npm run new -- <slug> writes one)`);
  const url = pathToFileURL(resolve(path));
  if (fresh !== undefined) url.search = `?shice-dev=${encodeURIComponent(fresh)}`;
  let module: { default?: unknown };
  try {
    module = (await import(url.href)) as { default?: unknown };
  } catch (error) {
    if (error instanceof SyntaxError) throw new Error(await syntaxErrorLine(path, file, error));
    // What the definition threw while it loaded (measured() refusing an id two steps give): named by its file.
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(message.startsWith(file) ? message : `${file}: ${message}`, { cause: error });
  }
  const article = articleFrom(module.default, slug, file);
  const outside = authorFileProblems(root, article);
  if (outside.length) throw new Error(outside.join('\n'));
  return article;
}

/**
 * Every file the article names (its manifests, its declared facts' files) that resolves outside the checkout,
 * one line each naming the field (src/authoring/author-file.ts): refused before anything reads them.
 */
export function authorFileProblems(root: string, article: Article): string[] {
  const from = join(ARTICLES, article.slug);
  const named: Array<[string, unknown]> = [
    ...(Array.isArray(article.experiment.manifests) ? article.experiment.manifests : []).map((m, i): [string, unknown] => [`experiment.manifests.${i}`, m]),
    ...article.factDefs.filter((d) => d.declared).map((d): [string, unknown] => [`facts.${d.id}`, d.declared!.file]),
    ...Object.entries(article.variantFactDefs ?? {}).flatMap(([variant, defs]) =>
      defs.filter((d) => d.declared).map((d): [string, unknown] => [`variantFacts.${variant}.${d.id}`, d.declared!.file]),
    ),
  ];
  return named.flatMap(([field, path]) => {
    if (typeof path !== 'string')
      return [`${article.file}: field "${field}": expected a path relative to the article's folder, got ${JSON.stringify(path) ?? typeof path}`];
    const problem = authorFileProblem(root, from, path);
    return problem ? [`${article.file}: field "${field}": ${problem}`] : [];
  });
}

/**
 * A syntax error of an article.ts in one line naming the file, line and column: Node's own message
 * ("Expression expected") names neither. TypeScript finds where, loaded only when it is needed.
 */
async function syntaxErrorLine(path: string, file: string, error: SyntaxError): Promise<string> {
  const message = error.message.split('\n')[0]!;
  try {
    const ts = (await import('typescript')).default;
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const found = (source as unknown as { parseDiagnostics?: readonly import('typescript').Diagnostic[] }).parseDiagnostics?.[0];
    if (found?.start !== undefined) {
      const at = source.getLineAndCharacterOfPosition(found.start);
      return `${file}:${at.line + 1}:${at.character + 1}: syntax error: ${ts.flattenDiagnosticMessageText(found.messageText, ' ')}`;
    }
  } catch {
    // No TypeScript to say where: Node's message alone.
  }
  return `${file}: syntax error: ${message}`;
}
