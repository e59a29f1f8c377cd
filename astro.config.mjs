// @ts-check
import { existsSync } from 'node:fs';
import { defineConfig } from 'astro/config';
import mdx from '@astrojs/mdx';
import { satteri } from '@astrojs/markdown-satteri';
import sitemap from '@astrojs/sitemap';
import { CODE_THEMES, DEFAULT_LANG, LANGS, LANG_TAGS, SITE_ADDRESS } from './src/site.config.ts';
import { articleOfPath, withTrailingSlash } from './src/i18n/urls.ts';
import { shiceEvidence } from './src/article/check/integration.ts';
import { siteBounds } from './src/article/check/bounds.ts';
import { siteSearch } from './src/search/index-site.ts';
import { factBinding } from './src/article/render/mdx-facts.ts';
import { xmlText } from './src/xml-text.ts';

/**
 * The sitemap lists pages written in their own language: no 404 pages, and no
 * fallback page (an article shown in the other language until it is translated).
 */
function isWrittenPage(/** @type {string} */ pageUrl) {
  const path = new URL(pageUrl).pathname;
  if (/\/404(?:\.html|\/)?$/.test(path)) return false;
  const article = articleOfPath(path);
  return article === null || existsSync(new URL(`./content/articles/${article.slug}/${article.lang}.mdx`, import.meta.url));
}

export default defineConfig({
  // SHICE_SITE_URL (README, "Deploying"): the public URL, whose path is the base.
  site: SITE_ADDRESS.url,
  base: SITE_ADDRESS.base,
  // Every link the site writes ends with a slash; 'ignore' lets `astro preview`
  // serve /<slug> as well, as static hosts do.
  trailingSlash: 'ignore',
  // 'preserve' keeps en/404.astro as en/404.html, which hosts serve for missing pages under /en/.
  build: { format: 'preserve' },
  i18n: {
    locales: [...LANGS],
    defaultLocale: DEFAULT_LANG,
    routing: { prefixDefaultLocale: false },
  },
  markdown: {
    // Astro's MDX pipeline, which binds each <Fact> of an article's MDX as it compiles (src/article/render/mdx-facts.ts).
    processor: satteri({ hastPlugins: [factBinding()] }),
    shikiConfig: {
      themes: { ...CODE_THEMES },
      defaultColor: 'light',
      wrap: false,
    },
  },
  integrations: [
    // Nothing from outside the checkout is published: links in public/, imports that resolve elsewhere.
    siteBounds(),
    // Then: a page that says something the snapshots do not never gets built.
    shiceEvidence(),
    mdx(),
    // Once the pages are written: the search index of the articles, per language.
    siteSearch(),
    sitemap({
      i18n: { defaultLocale: DEFAULT_LANG, locales: { ...LANG_TAGS } },
      filter: isWrittenPage,
      // With trailingSlash 'ignore' the sitemap would drop the slash the pages' canonical URLs have.
      serialize: (item) => ({
        ...item,
        url: xmlText(withTrailingSlash(item.url)),
        links: item.links?.map((link) => ({ ...link, url: xmlText(withTrailingSlash(link.url)) })),
      }),
    }),
  ],
});
