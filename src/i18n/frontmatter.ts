// The frontmatter of content/articles/<slug>/<lang>.mdx: what the site needs to
// list, link and announce an article in one language. Astro validates every
// file against it at build time (src/content.config.ts); plain Node can use it too.
import { z } from 'zod';
import { LANGS, site } from '../site.config.ts';
import { xmlForbiddenCharacter } from '../xml-text.ts';

/**
 * Text of the front matter: it goes into the RSS feed, the sitemap and the og card's SVG, so a character
 * XML 1.0 forbids (a vertical tab pasted from a word processor) is refused, the build naming the file,
 * the field and where it is.
 */
const text = () =>
  z
    .string()
    .trim()
    .min(1)
    .superRefine((value, ctx) => {
      const found = xmlForbiddenCharacter(value);
      if (found) ctx.addIssue({ code: 'custom', message: `holds ${found}, a control character XML 1.0 forbids (the RSS feed could not be read); remove it` });
    });

export const articleFrontmatterSchema = z.strictObject({
  title: text(),
  /** One or two sentences: the home page, <meta name="description">, Open Graph and RSS use it. */
  summary: text(),
  /** Publication day, YAML `2026-12-02`. */
  date: z.coerce.date(),
  /** Must match the file name (zh.mdx -> zh). */
  lang: z.enum(LANGS),
  series: z.strictObject({
    name: z.enum(site.series),
    number: z.number().int().positive(),
  }),
  /** Fact id -> why only this language shows it; the parity check of the two languages reads it. */
  languageSpecificFacts: z.record(z.string().min(1), text()).optional(),
  /**
   * The words readers search with for what the article calls otherwise ("源 IP" for its 来源地址):
   * indexed with the article's text, never shown.
   */
  searchTerms: z.array(text()).optional(),
});

export type ArticleFrontmatter = z.infer<typeof articleFrontmatterSchema>;

/**
 * The frontmatter of content/articles/<slug>/evidence.<lang>.mdx, the article's evidence page:
 * its language, and the facts only this language binds (as for the article).
 */
export const evidenceFrontmatterSchema = z.strictObject({
  lang: z.enum(LANGS),
  languageSpecificFacts: z.record(z.string().min(1), text()).optional(),
});
