// The frontmatter of content/articles/<slug>/<lang>.mdx: what the site needs to
// list, link and announce an article in one language. Astro validates every
// file against it at build time (src/content.config.ts); plain Node can use it too.
import { z } from 'zod';
import { LANGS, site } from '../site.config.ts';

export const articleFrontmatterSchema = z.strictObject({
  title: z.string().trim().min(1),
  /** One or two sentences: the home page, <meta name="description">, Open Graph and RSS use it. */
  summary: z.string().trim().min(1),
  /** Publication day, YAML `2026-12-02`. */
  date: z.coerce.date(),
  /** Must match the file name (zh.mdx -> zh). */
  lang: z.enum(LANGS),
  series: z.strictObject({
    name: z.enum(site.series),
    number: z.number().int().positive(),
  }),
  /** Fact id -> why only this language shows it; the parity check of the two languages reads it. */
  languageSpecificFacts: z.record(z.string().min(1), z.string().trim().min(1)).optional(),
});

export type ArticleFrontmatter = z.infer<typeof articleFrontmatterSchema>;

/**
 * The frontmatter of content/articles/<slug>/evidence.<lang>.mdx, the article's evidence page:
 * its language, and the facts only this language binds (as for the article).
 */
export const evidenceFrontmatterSchema = z.strictObject({
  lang: z.enum(LANGS),
  languageSpecificFacts: z.record(z.string().min(1), z.string().trim().min(1)).optional(),
});
