// Copies of the project for commands that write into it (a capture writes the
// articles' snapshots, `npm run new` a new article, a build dist/): the command's
// root is then the copy, so the real content/ is never written.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { REFERENCE_ARTICLES, withLinkedArticles } from './reference-articles.ts';

/** A copy filter keeping, of content/articles, only the folders named. */
function onlyArticles(root: string, slugs: readonly string[]): (source: string) => boolean {
  const articles = join(root, 'content/articles');
  return (source) => dirname(source) !== articles || slugs.includes(basename(source));
}

/**
 * Copies what the capture's commands read (kube/: the module files its preparation checks builds against)
 * into `dest/project`; returns that folder. Of the articles, the reference ones and those they link to.
 */
export function projectCopy(root: string, dest: string): string {
  const copy = join(dest, 'project');
  const filter = onlyArticles(root, withLinkedArticles(root, REFERENCE_ARTICLES));
  for (const entry of ['scripts', 'src', 'content', 'kube', 'package.json']) cpSync(join(root, entry), join(copy, entry), { recursive: true, filter });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  return copy;
}

/** What astro (build and dev), `npm run new` and the capture read: the site's code, its articles, the scripts, and the Kubernetes module files a capture's preparation checks its builds against. */
const SITE = ['astro.config.mjs', 'package.json', 'tsconfig.json', 'src', 'content', 'public', 'scripts', 'kube'];
/** Caches astro and vite write into node_modules. */
const CACHES = ['.vite', '.astro'];

/**
 * A copy of the site in a new folder of the temporary folder (`shice-<what>-…`), for astro build and dev
 * as much as for captures. node_modules is a folder of links to the packages, not one link: the caches
 * astro and vite write there land in the copy, not in the shared install. `articles` names the article
 * folders the copy keeps, with those their pages link to (the reference articles when absent): a test
 * pays for the articles it builds or serves, whatever the number of articles in the series.
 */
export function siteCopy(root: string, what: string, options: { articles?: readonly string[] } = {}): string {
  const kept = withLinkedArticles(root, options.articles ?? REFERENCE_ARTICLES);
  const dir = mkdtempSync(join(tmpdir(), `shice-${what}-`));
  for (const entry of SITE) cpSync(join(root, entry), join(dir, entry), { recursive: true, filter: onlyArticles(root, kept) });
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (!CACHES.includes(entry)) symlinkSync(join(root, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  return dir;
}
