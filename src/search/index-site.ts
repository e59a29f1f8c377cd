// The site's search index, written into dist/pagefind/ once the pages are: Pagefind
// (the extended build, which segments Chinese into words) reads every page with
// data-pagefind-body (the article and evidence pages; ArticlePage and EvidencePage
// set it) and makes an index per <html lang>, which the search dialog
// (search-dialog.ts) loads when a reader opens it; each heading with an id starts
// a section a result can land on. Run records, home pages and fallbacks are not indexed.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration } from 'astro';
import * as pagefind from 'pagefind';

/**
 * Parts of an article page left out of the index: the raw commands and outputs (the run
 * record's business, and a flood of addresses and rule text that would outrank the prose),
 * the heading every measured figure repeats, the table of contents and heading links (the
 * headings themselves are indexed), the neighbours' titles, the run badge's versions and dates, and the
 * claim matrix's tables per version and of run ids (each claim's statement is indexed once, in its line
 * across every run).
 */
export const NOT_INDEXED = [
  '.step-output',
  '.measured-heading',
  '.toc',
  '.heading-anchor',
  '.series-nav',
  '.run-badge',
  '.claim-matrix-version',
  '.claim-matrix-runs',
];

/** What Pagefind writes that the dialog never loads: its own UIs. */
const UNUSED = /^pagefind-(?:ui|component-ui|modular-ui|highlight)\.(?:js|css)$/;

export function siteSearch(): AstroIntegration {
  return {
    name: 'shice:search',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const site = fileURLToPath(dir);
        const out = join(site, 'pagefind');
        try {
          const { index, errors } = await pagefind.createIndex({ excludeSelectors: NOT_INDEXED });
          if (!index) throw new Error(errors.join('; '));
          const added = await index.addDirectory({ path: site });
          if (added.errors.length > 0) throw new Error(added.errors.join('; '));
          const written = await index.writeFiles({ outputPath: out });
          if (written.errors.length > 0) throw new Error(written.errors.join('; '));
          for (const file of readdirSync(out)) if (UNUSED.test(file)) rmSync(join(out, file));
          logger.info(`search index: ${added.page_count} pages in ${out}`);
        } finally {
          await pagefind.close();
        }
      },
    },
  };
}
