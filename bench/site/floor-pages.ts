// The growth floor's pages for one article: the evidence site's own pages of
// copy 1 (article, evidence page, every run record, both languages), built once,
// untimed, and each page's content (what the layout's <main> holds) kept as
// HTML. A floor copy's routes emit that HTML in the same layout (floorRoute in
// variant-files.ts), so a floor page shows what the evidence site's shows and
// costs Astro nothing but the layout and the bytes: the floor of a page of that
// kind. Only the reading of dist/ is I/O; the rest is pure.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LANGS } from '../../src/site.config.ts';
import { articlePath, evidencePath } from '../../src/i18n/urls.ts';
import { astroBuild } from './astro-build.ts';
import { copySlug, renumberSeries } from './copies.ts';
import { ARTICLES_DIR, generateSite, readArticleMdx, writeEvidenceCopies } from './temp-project.ts';
import { BENCH_CONFIG, FLOOR_PAGES_DIR, floorPageFile } from './variant-files.ts';

export interface FloorPages {
  /** FLOOR_PAGES_DIR/<slug>/ file name (`zh/article.html`, `en/run/v1.34~lab.html`) -> the page's content. */
  html: Map<string, string>;
  /** The article's MDX file name -> its front matter alone: the collection's entry, no body to compile. */
  entries: Map<string, string>;
}

const MAIN = /<main\b[^>]*>([\s\S]*)<\/main>/;

/** What a built page's <main> holds; throws naming the page when it has none. */
export function mainContent(html: string, page: string): string {
  const found = MAIN.exec(html);
  if (!found) throw new Error(`${page}: no <main> element to take the floor's content from`);
  return found[1]!;
}

/** An MDX file's front matter, its fences included. */
function frontMatterOnly(mdx: string, file: string): string {
  const found = /^---\r?\n[\s\S]*?\r?\n---\r?\n/.exec(mdx);
  if (!found) throw new Error(`${file}: no front matter`);
  return found[0];
}

/** Every index.html under `dir`, as paths relative to it (`v1.34/lab/index.html`). */
async function indexPages(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, encoding: 'utf8' }).catch(() => [] as string[]);
  return entries.filter((path) => path === 'index.html' || path.endsWith('/index.html')).sort();
}

export async function floorPages(root: string, slug: string, options: { timeoutMs: number; cancelSignal?: AbortSignal }): Promise<FloorPages> {
  const sources = await readArticleMdx(root, slug, "to take the floor's entries from");
  const entries = new Map([...sources].filter(([, s]) => s.page === 'article').map(([name, s]) => [name, frontMatterOnly(s.text, s.file)]));
  const site = await generateSite(root, 'evidence', 'floor-source', (dir) => writeEvidenceCopies(root, dir, slug, 1));
  try {
    await astroBuild(site.dir, { config: BENCH_CONFIG, ...options });
    const copy = copySlug(slug, 1);
    const html = new Map<string, string>();
    const take = async (path: string, file: string) => {
      const page = join('dist', path);
      html.set(file, mainContent(await readFile(join(site.dir, page), 'utf8'), `the floor's source build, ${page}`));
    };
    for (const lang of LANGS) {
      await take(`${articlePath(lang, copy)}index.html`, floorPageFile(lang, 'article'));
      if ([...sources.values()].some((s) => s.page === 'evidence')) await take(`${evidencePath(lang, copy)}index.html`, floorPageFile(lang, 'evidence'));
      const runs = join(site.dir, 'dist', `${articlePath(lang, copy)}run`);
      for (const page of await indexPages(runs)) {
        const param = page === 'index.html' ? undefined : page.slice(0, -'/index.html'.length);
        await take(`${articlePath(lang, copy)}run/${page}`, floorPageFile(lang, 'record', param));
      }
    }
    return { html, entries };
  } finally {
    await site.remove();
  }
}

/** `count` copies of the floor's pages (floorPages): each article's entry (front matter alone) and its pages' content. */
export async function writeFloorCopies(dir: string, sourceSlug: string, pages: FloorPages, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const slug = copySlug(sourceSlug, i);
    await mkdir(join(dir, ARTICLES_DIR, slug));
    for (const [name, text] of pages.entries) await writeFile(join(dir, ARTICLES_DIR, slug, name), renumberSeries(text, `${ARTICLES_DIR}/${slug}/${name}`, i));
    for (const [name, html] of pages.html) {
      const file = join(dir, FLOOR_PAGES_DIR, slug, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, html);
    }
  }
}
