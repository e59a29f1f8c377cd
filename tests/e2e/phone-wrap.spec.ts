// Raw output is read whole on a phone: at 375 px, no command, output, excerpt or
// argv of any step runs past its box (every line wraps inside it), on the
// articles, their evidence pages and their run records, in both languages.
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';
import { expect, test, type Page } from '@playwright/test';
import { articlePathOf, evidencePathsOf, isWritten, LANGS, runRecordPathsOf } from './support/articles.ts';

test.use({ viewport: { width: 375, height: 812 } });

/** Every step block of the page wider than its box, with its step and the width it needs. */
async function cutBlocks(page: Page, path: string): Promise<string[]> {
  const response = await page.goto(path, { waitUntil: 'domcontentloaded' });
  expect(response?.status(), path).toBe(200);
  return page.evaluate(() => {
    // Folded outputs are measured open, as a reader who opens them sees them.
    for (const details of document.querySelectorAll('details')) details.open = true;
    const blocks = [...document.querySelectorAll('.step-output pre, pre.excerpt-block, pre.argv-block')] as HTMLElement[];
    return blocks
      .filter((pre) => pre.scrollWidth > pre.clientWidth + 1)
      .map(
        (pre) =>
          `${pre.closest('[data-step]')?.getAttribute('data-step') ?? pre.getAttribute('data-measured') ?? '?'}: ${pre.scrollWidth} px in ${pre.clientWidth}`,
      );
  });
}

for (const slug of REFERENCE_ARTICLES) {
  for (const lang of LANGS.filter((l) => isWritten(slug, l))) {
    test(`${articlePathOf(lang, slug)}: at 375 px every step's command and output wraps inside its box`, async ({ page }) => {
      const paths = [articlePathOf(lang, slug), ...evidencePathsOf(lang, slug), runRecordPathsOf(lang, slug)[0]!];
      let blocks = 0;
      for (const path of paths) {
        expect(await cutBlocks(page, path), `${path}: blocks past the edge`).toEqual([]);
        blocks += await page.locator('.step-output pre, pre.excerpt-block, pre.argv-block').count();
      }
      expect(blocks, 'the pages show step output').toBeGreaterThan(5);
    });
  }
}
