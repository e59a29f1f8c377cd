// Copies of the project for commands that write into it (a capture writes the
// articles' snapshots, `npm run new` a new article, a build dist/): the command's
// root is then the copy, so the real content/ is never written.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** Copies what the capture's commands read (kube/: the module files its preparation checks builds against) into `dest/project`; returns that folder. */
export function projectCopy(root: string, dest: string): string {
  const copy = join(dest, 'project');
  for (const entry of ['scripts', 'src', 'content', 'kube', 'package.json']) cpSync(join(root, entry), join(copy, entry), { recursive: true });
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
 * folders the copy keeps (every one when absent): a test that builds or serves one article pays for that
 * one, whatever the number of articles in the series.
 */
export function siteCopy(root: string, what: string, options: { articles?: readonly string[] } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), `shice-${what}-`));
  const articles = join(root, 'content/articles');
  for (const slug of options.articles ?? []) {
    if (!existsSync(join(articles, slug))) throw new Error(`siteCopy: content/articles/${slug} does not exist`);
  }
  const kept = (source: string) => {
    if (options.articles === undefined || dirname(source) !== articles) return true;
    return options.articles.includes(basename(source));
  };
  for (const entry of SITE) cpSync(join(root, entry), join(dir, entry), { recursive: true, filter: kept });
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (!CACHES.includes(entry)) symlinkSync(join(root, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  return dir;
}
