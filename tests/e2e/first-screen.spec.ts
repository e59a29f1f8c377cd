// An article reads as the original does: its first headline value on a phone's
// first screen, and its running prose no longer than the original's (074's), the
// later articles no longer than 074's.
// Prose is counted as the reading review counted it: the non-space characters of
// <p> and <li> text inside <article>, outside figures, tables, code, details,
// navigation, SVG and asides (the evidence a click away is not read in passing).
import { expect, test, type Page } from '@playwright/test';
import { articlePathOf, LANGS } from './support/articles.ts';
import { titleTemplate } from './support/templates.ts';

/** The published original of 074 in Chinese has 3,061 such characters: the article may have as many, no more. */
const PROSE_BUDGET_074_ZH = 3061;

async function runningProse(page: Page): Promise<number> {
  return page.$eval('article', (article) => {
    const skip = 'figure, table, pre, code, details, nav, svg, aside';
    let count = 0;
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement!;
      if (!parent.closest('p, li') || parent.closest(skip)) continue;
      count += (node.textContent ?? '').replace(/\s/g, '').length;
    }
    return count;
  });
}

test.use({ viewport: { width: 375, height: 812 } });

// The article with the longest Chinese title (measured on the built pages): its header pushes the value furthest down.
for (const lang of LANGS) {
  for (const { path } of [titleTemplate(lang)]) {
    test(`${path}: the first headline value is on the first screen of a phone`, async ({ page }) => {
      await page.goto(path);
      const value = page.locator('.headline-value [data-fact]').first();
      await expect(value).toBeVisible();
      const box = (await value.boundingBox())!;
      expect(box.y + box.height, 'the value ends above the fold at 812 px').toBeLessThanOrEqual(812);
    });
  }
}

// 074 is measured against its own original; 075, 076 and 077, written later, against 074 as it is.
test('074 in Chinese: running prose no longer than its published original; 075, 076 and 077 no longer than 074', async ({ page }) => {
  await page.goto(articlePathOf('zh', '074-external-traffic-policy'));
  const own = await runningProse(page);
  expect(own, 'a page that lost its prose would pass too easily').toBeGreaterThan(1000);
  expect(own).toBeLessThanOrEqual(PROSE_BUDGET_074_ZH);
  for (const slug of ['075-local-uneven-weights', '076-internal-traffic-policy', '077-session-affinity']) {
    await page.goto(articlePathOf('zh', slug));
    const count = await runningProse(page);
    expect(count, `${slug}: a page that lost its prose would pass too easily`).toBeGreaterThan(1000);
    expect(count, `${slug}: no longer than 074 (${own})`).toBeLessThanOrEqual(own);
  }
});
