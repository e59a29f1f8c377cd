// Everything about the site that is not an article, in one place. Plain data,
// importable from astro.config.mjs, pages and Node (tests) alike.

import { siteAddress } from './site-address.ts';

/** Language codes as they appear in content file names (zh.mdx, en.mdx) and URLs (/en/). */
export const LANGS = ['zh', 'en'] as const;
export type Lang = (typeof LANGS)[number];

/** Chinese is the original: served at the root, and the x-default of every page. */
export const DEFAULT_LANG: Lang = 'zh';

/** BCP 47 tags for <html lang>, hreflang and the sitemap. */
export const LANG_TAGS: Record<Lang, string> = { zh: 'zh-CN', en: 'en' };

/** Open Graph wants language_TERRITORY. */
export const OG_LOCALES: Record<Lang, string> = { zh: 'zh_CN', en: 'en_US' };

/** The public URL and base path, from SHICE_SITE_URL (see src/site-address.ts and the README). */
export const SITE_ADDRESS = siteAddress(process.env);

export const site = {
  /** The public URL of the site's root (origin and base path), for canonical URLs, hreflang, Open Graph, RSS and the sitemap. */
  url: SITE_ADDRESS.url,
  title: { zh: '实测', en: 'Measured' } satisfies Record<Lang, string>,
  description: {
    zh: '技术文章，每个数字都来自一次真实运行。',
    en: 'Technical articles in which every number comes from a real run.',
  } satisfies Record<Lang, string>,
  author: { zh: 'bigywater', en: 'bigywater' } satisfies Record<Lang, string>,
  /** Series an article may belong to (frontmatter `series.name`). */
  series: ['Kubernetes'] as const,
  /** China's website filing lines, shown in every footer. */
  filing: {
    icp: { text: '京ICP备2026067502号-1', href: 'https://beian.miit.gov.cn/' },
    police: {
      text: '京公网安备11010502063487号',
      href: 'https://beian.mps.gov.cn/#/query/webSearch?code=11010502063487',
    },
  },
} as const;

export type SeriesName = (typeof site.series)[number];

/**
 * Shiki themes for every code block (markdown config and any component that
 * highlights by itself): light by default, dark under prefers-color-scheme.
 */
export const CODE_THEMES = { light: 'github-light', dark: 'github-dark' } as const;
