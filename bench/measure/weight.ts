// Page weight of each real article page, in every language, from the real
// dist/: what a browser downloads (HTML, CSS, JS, images), raw and gzip,
// and whether the article can be read with scripts off.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LANGS, type Lang } from '../../src/site.config.ts';
import { articlePath } from '../../src/i18n/urls.ts';
import { formatValue, measured, notMeasured, type Figure } from '../figures.ts';
import { cssUrls, distPath, javascriptWeight, pageReferences, weighPage, type Resource } from '../page-weight.ts';
import { missingFragments, proseFragments, visibleText } from '../readable-text.ts';
import { errorMessage, type BenchContext } from './context.ts';
import { ensureRealDist, realArticles } from './real-dist.ts';

export const PAGE_TARGET_BYTES = 40 * 1024;
export const JS_TARGET_BYTES = 4 * 1024;

const kb = (bytes: number) => formatValue(bytes, 'bytes');

/** The page's downloads as files of dist/; a reference outside the build cannot be weighed. */
async function pageResources(root: string, pagePath: string, html: string): Promise<Resource[]> {
  const refs = pageReferences(html);
  const resources: Resource[] = [{ kind: 'html', name: `dist${pagePath}index.html`, bytes: Buffer.from(html) }];
  const load = async (kind: Resource['kind'], url: string, from: string): Promise<Buffer> => {
    const path = distPath(url, from);
    if (path === null) throw new Error(`dist${pagePath}index.html loads ${url} from outside the build; it cannot be weighed`);
    const file = join(root, 'dist', path);
    if (!existsSync(file)) throw new Error(`dist${pagePath}index.html loads ${url}, but dist${path} does not exist`);
    const bytes = await readFile(file);
    resources.push({ kind, name: `dist${path}`, bytes });
    return bytes;
  };
  for (const url of refs.stylesheets) {
    const css = await load('css', url, pagePath);
    // What a stylesheet loads (fonts, images) is downloaded with the page; counted with images.
    for (const asset of cssUrls(css.toString('utf8'))) await load('image', asset, distPath(url, pagePath)!);
  }
  for (const url of refs.scripts) await load('js', url, pagePath);
  for (const url of refs.images) await load('image', url, pagePath);
  refs.inlineScripts.forEach((body, i) => resources.push({ kind: 'js', name: `inline script ${i + 1}`, bytes: Buffer.from(body), inline: true }));
  refs.inlineStyles.forEach((body, i) => resources.push({ kind: 'css', name: `inline style ${i + 1}`, bytes: Buffer.from(body), inline: true }));
  return resources;
}

async function weighArticlePage(ctx: BenchContext, slug: string, lang: Lang): Promise<Figure[]> {
  const pagePath = articlePath(lang, slug);
  const page = `dist${pagePath}index.html`;
  const id = (what: string) => `weight.${slug}.${lang}.${what}`;
  const short = /^\d+(?=-)/.exec(slug)?.[0] ?? slug;
  const label = (what: string) => `article ${short} ${lang}: ${what}`;
  const bases = {
    total: {
      id: id('total'),
      group: 'weight' as const,
      unit: 'bytes' as const,
      label: label('weight, gzip'),
      target: { op: '<=' as const, value: PAGE_TARGET_BYTES },
    },
    html: { id: id('html'), group: 'weight' as const, unit: 'bytes' as const, label: label('HTML, gzip (inline CSS/JS included)') },
    css: { id: id('css'), group: 'weight' as const, unit: 'bytes' as const, label: label('CSS files, gzip') },
    js: {
      id: id('js'),
      group: 'weight' as const,
      unit: 'bytes' as const,
      label: label('JavaScript, gzip'),
      target: { op: '<=' as const, value: JS_TARGET_BYTES },
    },
    images: { id: id('images'), group: 'weight' as const, unit: 'bytes' as const, label: label('images, gzip') },
    readable: {
      id: id('readableWithoutJs'),
      group: 'weight' as const,
      unit: 'yes/no' as const,
      label: label('readable without JavaScript'),
      target: { op: '==' as const, value: true },
    },
  };
  try {
    const html = await readFile(join(ctx.root, page), 'utf8');
    const weight = weighPage(await pageResources(ctx.root, pagePath, html));
    const js = javascriptWeight(weight);
    const raw = (k: keyof typeof weight.byKind) => `raw ${kb(weight.byKind[k].raw)}, ${weight.byKind[k].count} file(s)`;
    const details = { page, total: weight.total, byKind: weight.byKind, inline: weight.inline, items: weight.items };

    // The language the page's text is written in: its own, or the other one on a fallback page.
    const contentLang = existsSync(join(ctx.root, 'content/articles', slug, `${lang}.mdx`)) ? lang : LANGS.find((l) => l !== lang)!;
    const mdxFile = `content/articles/${slug}/${contentLang}.mdx`;
    const fragments = proseFragments(await readFile(join(ctx.root, mdxFile), 'utf8'));
    const missing = missingFragments(fragments, visibleText(html));
    const readableNote = missing.length
      ? `${missing.length} of ${fragments.length} prose pieces of ${mdxFile} are not in the HTML as served, e.g. "${missing[0]!.slice(0, 60)}"`
      : `all ${fragments.length} prose pieces of ${mdxFile} are in the HTML as served, outside scripts and hidden elements`;

    return [
      measured(bases.total, weight.total.gzip, { note: `raw ${kb(weight.total.raw)}; ${weight.items.filter((i) => !i.inline).length} downloads`, details }),
      measured(bases.html, weight.byKind.html.gzip, { note: raw('html') }),
      measured(bases.css, weight.byKind.css.gzip, {
        note: `${raw('css')}; inline in the HTML: ${kb(weight.inline.css.raw)} raw, ${weight.inline.css.count} <style>`,
      }),
      measured(bases.js, js.gzip, { note: `raw ${kb(js.raw)}; ${weight.byKind.js.count} file(s), ${weight.inline.js.count} inline script(s)` }),
      measured(bases.images, weight.byKind.image.gzip, { note: raw('image') }),
      measured(bases.readable, missing.length === 0, { note: readableNote, details: { fragments: fragments.length, missing } }),
    ];
  } catch (error) {
    return Object.values(bases).map((base) => notMeasured(base, `${page}: ${errorMessage(error)}`));
  }
}

export async function measureWeight(ctx: BenchContext): Promise<Figure[]> {
  const total = {
    id: 'weight.total',
    group: 'weight' as const,
    unit: 'bytes' as const,
    label: 'page weight, gzip',
    target: { op: '<=' as const, value: PAGE_TARGET_BYTES },
  };
  try {
    await ensureRealDist(ctx);
    const slugs = await realArticles(ctx.root);
    const figures: Figure[] = [];
    for (const slug of slugs) for (const lang of LANGS) figures.push(...(await weighArticlePage(ctx, slug, lang)));
    return figures;
  } catch (error) {
    return [notMeasured(total, `the project's build failed: ${errorMessage(error)}`)];
  }
}
