// Throwaway copies of the project with generated articles, under the OS temp
// folder: never the real content/ folder. node_modules is a real folder of
// symlinks to the project's packages, so the caches Astro and Vite write
// (node_modules/.astro, node_modules/.vite) stay inside the copy.
import { cp, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LANGS, type Lang } from '../../src/site.config.ts';
import { makeTempDir } from '../temp-dirs.ts';
import { copyRunFolder, copySlug, pointArticleLinksAt, renameExperimentSlug, renumberSeries } from './copies.ts';
import {
  ARTICLE_BODY_PATH,
  BENCH_CONFIG,
  OG_CARD_ROUTES,
  PLAIN_ARTICLE_BODY,
  PLAIN_REGISTRY,
  REGISTRY_KEPT_PATH,
  REGISTRY_PATH,
  FLOOR_ROUTE_FILES,
  ROUTES_LEFT_OUT,
  RUN_RECORD_ROUTES,
  benchConfig,
  floorRoute,
  type PageKind,
  type PageSet,
  type Variant,
} from './variant-files.ts';

/** Project files a build reads, besides content/ and node_modules/. */
const PROJECT_FILES = ['src', 'public', 'astro.config.mjs', 'tsconfig.json', 'package.json'];
/** Caches inside node_modules that must belong to the copy. */
const OWN_CACHES = new Set(['.astro', '.vite', '.cache']);
export const ARTICLES_DIR = 'content/articles';

export interface TempProject {
  dir: string;
  variant: Variant;
  remove(): Promise<void>;
}

export async function linkNodeModules(root: string, dir: string): Promise<void> {
  const source = join(root, 'node_modules');
  const target = join(dir, 'node_modules');
  await mkdir(target);
  for (const entry of await readdir(source)) {
    if (!OWN_CACHES.has(entry)) await symlink(join(source, entry), join(target, entry));
  }
}

export interface ArticleMdx {
  lang: Lang;
  /** Which page it is: the article (`<lang>.mdx`) or its evidence page (`evidence.<lang>.mdx`). */
  page: 'article' | 'evidence';
  /** The file relative to the project, for messages. */
  file: string;
  text: string;
}

/**
 * The article's MDX files by name: its pages (zh.mdx, en.mdx) and its evidence pages
 * (evidence.zh.mdx, evidence.en.mdx) where it has them; throws naming the folder when it
 * has no page. `purpose` ends the message.
 */
export async function readArticleMdx(root: string, slug: string, purpose: string): Promise<Map<string, ArticleMdx>> {
  const sources = new Map<string, ArticleMdx>();
  for (const page of ['article', 'evidence'] as const) {
    for (const lang of LANGS) {
      const name = page === 'article' ? `${lang}.mdx` : `evidence.${lang}.mdx`;
      const file = `${ARTICLES_DIR}/${slug}/${name}`;
      if (existsSync(join(root, file))) sources.set(name, { lang, page, file, text: await readFile(join(root, file), 'utf8') });
    }
  }
  if (![...sources.values()].some((s) => s.page === 'article')) throw new Error(`${ARTICLES_DIR}/${slug}: no zh.mdx or en.mdx ${purpose}`);
  return sources;
}

export interface CopyOptions {
  /** Keep the routes that draw the Open Graph cards (OG_CARD_ROUTES); without, the pages still name their cards. */
  ogCards?: boolean;
  /** The pages of each article the copy builds (default all); the others' routes are taken out. */
  pages?: PageSet;
}

/** A copy of the project, without articles, set up as `variant`. */
export async function createProjectCopy(root: string, variant: Variant, label: string, options: CopyOptions = {}): Promise<TempProject> {
  const { dir, remove } = await makeTempDir(`${variant}-${label}`);
  try {
    await linkNodeModules(root, dir);
    for (const file of PROJECT_FILES) await cp(join(root, file), join(dir, file), { recursive: true });
    await writeFile(join(dir, BENCH_CONFIG), benchConfig(variant));
    if (!options.ogCards) for (const route of OG_CARD_ROUTES) await rm(join(dir, route), { force: true });
    if (variant === 'plain' || variant === 'floor') {
      await writeFile(join(dir, ARTICLE_BODY_PATH), PLAIN_ARTICLE_BODY);
      await rename(join(dir, REGISTRY_PATH), join(dir, REGISTRY_KEPT_PATH));
      await writeFile(join(dir, REGISTRY_PATH), PLAIN_REGISTRY);
      for (const route of RUN_RECORD_ROUTES) await rm(join(dir, route), { recursive: true, force: true });
    }
    if (variant === 'floor') {
      for (const [kind, files] of Object.entries(FLOOR_ROUTE_FILES) as [PageKind, readonly [string, string]][]) {
        for (const [i, file] of files.entries()) {
          await mkdir(dirname(join(dir, file)), { recursive: true });
          await writeFile(join(dir, file), floorRoute(i === 0 ? 'zh' : 'en', kind));
        }
      }
    }
    for (const route of ROUTES_LEFT_OUT[options.pages ?? 'all']) await rm(join(dir, route), { recursive: true, force: true });
    await mkdir(join(dir, ARTICLES_DIR), { recursive: true });
  } catch (error) {
    await remove();
    throw error;
  }
  return { dir, variant, remove };
}

/** A copy of the project as `variant`, filled by `fill` (its articles); removed again when filling it fails. */
export async function generateSite(
  root: string,
  variant: Variant,
  label: string,
  fill: (dir: string) => Promise<void>,
  options: CopyOptions = {},
): Promise<TempProject> {
  const project = await createProjectCopy(root, variant, label, options);
  try {
    await fill(project.dir);
  } catch (error) {
    await project.remove();
    throw error;
  }
  return project;
}

/** The article's page in one language, as the `articles` collection names it (src/content.config.ts); its evidence page is `evidence.<lang>.mdx`. */
export const isArticleMdx = (name: string): boolean => LANGS.some((lang) => name === `${lang}.mdx`);
/** A folder of an article's runs: `snapshots`, and beside it one per environment and variant (`snapshots.lab.nftables`). */
export const isSnapshotFolder = (name: string): boolean => /^snapshots(\.[a-z0-9-]+)*$/.test(name);

/**
 * Copy `index` of the article folder, under `slug`: everything but dot-folders (a capture's
 * staging); its MDX links to other articles point at the copy (pointArticleLinksAt), the article
 * pages (not the evidence pages, whose frontmatter has no series) get series number `index`, and
 * every run its own id. Returns the folder and the run ids it holds.
 */
async function copyArticle(root: string, dir: string, sourceSlug: string, slug: string, index: number): Promise<{ to: string; runIds: string[] }> {
  const from = join(root, ARTICLES_DIR, sourceSlug);
  const to = join(dir, ARTICLES_DIR, slug);
  await cp(from, to, {
    recursive: true,
    filter: (path) =>
      !path
        .slice(from.length)
        .split('/')
        .some((p) => p.startsWith('.')),
  });
  const runIds: string[] = [];
  const shown = (...parts: string[]) => [ARTICLES_DIR, slug, ...parts].join('/');
  const entries = await readdir(to, { withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.mdx')) continue;
    const file = join(to, entry.name);
    const mdx = pointArticleLinksAt(await readFile(file, 'utf8'), shown(entry.name), slug);
    await writeFile(file, isArticleMdx(entry.name) ? renumberSeries(mdx, shown(entry.name), index) : mdx);
  }
  const experiment = join(to, 'article.ts');
  await writeFile(experiment, renameExperimentSlug(await readFile(experiment, 'utf8'), shown('article.ts'), sourceSlug, slug));
  for (const entry of entries) {
    if (!entry.isDirectory() || !isSnapshotFolder(entry.name)) continue;
    const folder = join(to, entry.name);
    const names = (await readdir(folder)).filter((name) => name.endsWith('.yaml'));
    const files = new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(folder, name), 'utf8')] as const)));
    const copy = copyRunFolder(files, { folder: shown(entry.name), fromSlug: sourceSlug, toSlug: slug, index });
    for (const [name, text] of copy.files) if (text !== files.get(name)) await writeFile(join(folder, name), text);
    runIds.push(copy.runId);
  }
  return { to, runIds };
}

/** `count` copies of the article with everything the evidence pipeline reads. */
export async function writeEvidenceCopies(root: string, dir: string, sourceSlug: string, count: number): Promise<void> {
  // Each copy's runs have ids of their own; two the same would be a mistake here, not the site's.
  const seen = new Map<string, string>();
  for (let i = 1; i <= count; i++) {
    const slug = copySlug(sourceSlug, i);
    for (const runId of (await copyArticle(root, dir, sourceSlug, slug, i)).runIds) {
      if (seen.has(runId))
        throw new Error(`${ARTICLES_DIR}/${slug}: run id ${runId} is also one of ${seen.get(runId)}'s; expected every copy's runs to have their own`);
      seen.set(runId, slug);
    }
  }
}

/** `count` copies of the plain MDX (file name -> text: the article's pages and its evidence pages), nothing else. */
export async function writePlainCopies(dir: string, sourceSlug: string, mdxByFile: ReadonlyMap<string, string>, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const slug = copySlug(sourceSlug, i);
    const target = join(dir, ARTICLES_DIR, slug);
    await mkdir(target);
    for (const [name, text] of mdxByFile)
      await writeFile(join(target, name), isArticleMdx(name) ? renumberSeries(text, `${ARTICLES_DIR}/${slug}/${name}`, i) : text);
  }
}

/**
 * Copy 1 of the article, as the evidence sites have it (its slug, its runs' ids), with its MDX
 * files replaced (the probe's marked MDX): what the probe renders is then what the compared page
 * of every site shows, down to the run id in its badge.
 */
export async function writeProbeCopy(root: string, dir: string, sourceSlug: string, mdxByFile: ReadonlyMap<string, string>): Promise<void> {
  const { to } = await copyArticle(root, dir, sourceSlug, copySlug(sourceSlug, 1), 1);
  for (const [name, text] of mdxByFile) await writeFile(join(to, name), text);
}
