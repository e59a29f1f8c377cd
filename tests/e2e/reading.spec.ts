// What a reader's hands meet on an article page, in a real browser against the
// built dist/: the table of contents marking the section in view.
import { expect, test } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { articlePathOf } from './support/articles.ts';
import { SLUG } from './support/evidence.ts';

test.describe('table of contents', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('marks the link of the section in view with aria-current, and only that one', async ({ page }) => {
    await page.goto(articlePathOf('en', SLUG));
    const links = page.locator('[data-toc] a');
    const count = await links.count();
    expect(count).toBeGreaterThanOrEqual(4);
    const current = page.locator('[data-toc] a[aria-current]');
    // Down the page section by section, then back up to the second one (a jump over several).
    for (const i of [0, 1, count - 2, 1]) {
      const id = decodeURIComponent((await links.nth(i).getAttribute('href'))!.slice(1));
      await page.locator(`[id="${id}"]`).evaluate((h) => h.scrollIntoView({ block: 'start' }));
      await expect(current).toHaveCount(1);
      await expect(links.nth(i)).toHaveAttribute('aria-current', 'location');
    }
    const results = await new AxeBuilder({ page }).include('[data-toc]').analyze();
    expect(results.violations.map((v) => v.id)).toEqual([]);
  });
});
