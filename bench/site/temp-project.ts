// Throwaway copies of the project with generated articles, under the OS temp
// folder: never the real content/ folder. node_modules is a real folder of
// symlinks to the project's packages, so the caches Astro and Vite write
// (node_modules/.astro, node_modules/.vite) stay inside the copy.
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LANGS, type Lang } from '../../src/site.config.ts';
import { copySlug, renameExperimentSlug, renameRunSlug, renumberSeries } from './copies.ts';
import { ARTICLE_BODY_PATH, BENCH_CONFIG, PLAIN_ARTICLE_BODY, RUN_RECORD_ROUTES, benchConfig, type Variant } from './variant-files.ts';

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

async function linkNodeModules(root: string, dir: string): Promise<void> {
  const source = join(root, 'node_modules');
  const target = join(dir, 'node_modules');
  await mkdir(target);
  for (const entry of await readdir(source)) {
    if (!OWN_CACHES.has(entry)) await symlink(join(source, entry), join(target, entry));
  }
}

export interface ArticleMdx {
  lang: Lang;
  /** The file relative to the project, for messages. */
  file: string;
  text: string;
}

/** The article's MDX files by name (zh.mdx, en.mdx); throws naming the folder when it has none. `purpose` ends the message. */
export async function readArticleMdx(root: string, slug: string, purpose: string): Promise<Map<string, ArticleMdx>> {
  const sources = new Map<string, ArticleMdx>();
  for (const lang of LANGS) {
    const file = `${ARTICLES_DIR}/${slug}/${lang}.mdx`;
    if (existsSync(join(root, file))) sources.set(`${lang}.mdx`, { lang, file, text: await readFile(join(root, file), 'utf8') });
  }
  if (sources.size === 0) throw new Error(`${ARTICLES_DIR}/${slug}: no zh.mdx or en.mdx ${purpose}`);
  return sources;
}

/** A copy of the project, without articles, set up as `variant`. */
export async function createProjectCopy(root: string, variant: Variant, label: string): Promise<TempProject> {
  const dir = await mkdtemp(join(tmpdir(), `shice-bench-${variant}-${label}-`));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await linkNodeModules(root, dir);
    for (const file of PROJECT_FILES) await cp(join(root, file), join(dir, file), { recursive: true });
    await writeFile(join(dir, BENCH_CONFIG), benchConfig(variant));
    if (variant === 'plain') {
      await writeFile(join(dir, ARTICLE_BODY_PATH), PLAIN_ARTICLE_BODY);
      for (const route of RUN_RECORD_ROUTES) await rm(join(dir, route), { recursive: true, force: true });
    }
    await mkdir(join(dir, ARTICLES_DIR), { recursive: true });
  } catch (error) {
    await remove();
    throw error;
  }
  return { dir, variant, remove };
}

/** The article folder under a new slug: everything but dot-folders (a capture's staging), series number `number` (null: as it is). */
async function copyArticle(root: string, dir: string, sourceSlug: string, slug: string, number: number | null): Promise<string> {
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
  for (const name of await readdir(to)) {
    if (!name.endsWith('.mdx') || number === null) continue;
    const file = join(to, name);
    await writeFile(file, renumberSeries(await readFile(file, 'utf8'), file, number));
  }
  if (slug !== sourceSlug) {
    const experiment = join(to, 'article.ts');
    await writeFile(experiment, renameExperimentSlug(await readFile(experiment, 'utf8'), experiment, sourceSlug, slug));
    const run = join(to, 'snapshots/run.yaml');
    await writeFile(run, renameRunSlug(await readFile(run, 'utf8'), run, sourceSlug, slug));
  }
  return to;
}

/** `count` copies of the article with everything the evidence pipeline reads. */
export async function writeEvidenceCopies(root: string, dir: string, sourceSlug: string, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) await copyArticle(root, dir, sourceSlug, copySlug(sourceSlug, i), i);
}

/** `count` copies of the plain MDX (one text per language file name), nothing else. */
export async function writePlainCopies(dir: string, sourceSlug: string, mdxByFile: ReadonlyMap<string, string>, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const target = join(dir, ARTICLES_DIR, copySlug(sourceSlug, i));
    await mkdir(target);
    for (const [name, text] of mdxByFile) await writeFile(join(target, name), renumberSeries(text, join(target, name), i));
  }
}

/** The article under its own slug, its MDX files replaced (the probe's marked MDX). */
export async function writeArticleWithMdx(root: string, dir: string, slug: string, mdxByFile: ReadonlyMap<string, string>): Promise<void> {
  const to = await copyArticle(root, dir, slug, slug, null);
  for (const [name, text] of mdxByFile) await writeFile(join(to, name), text);
}
