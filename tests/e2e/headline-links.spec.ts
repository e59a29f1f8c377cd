// A headline value is one tap from the raw output that decided it: every
// headline value read from a step links to that step's output on the page, and
// following the link shows it (its folded block opens), in both languages.
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';
import { expect, test } from '@playwright/test';
import { articlePathOf, isWritten, LANGS } from './support/articles.ts';

for (const slug of REFERENCE_ARTICLES) {
  for (const lang of LANGS.filter((l) => isWritten(slug, l))) {
    const path = articlePathOf(lang, slug);
    test(`${path}: each headline value read from a step links to that step's output, which the link shows`, async ({ page }) => {
      await page.goto(path);
      const values = await page.$$eval('.headline-value [data-fact]', (elements) =>
        elements.map((el) => ({ step: el.getAttribute('data-step'), link: el.closest('a.headline-link')?.getAttribute('href') ?? null })),
      );
      const fromSteps = values.filter((v) => v.step !== 'run' && v.step !== 'declared');
      expect(fromSteps.length, 'the headlines show values read from steps').toBeGreaterThan(0);
      expect(
        fromSteps.filter((v) => v.link !== `#output-${v.step}`),
        'values without a link to their step',
      ).toEqual([]);

      const first = page.locator('.headline-value a.headline-link').first();
      const target = (await first.getAttribute('href'))!;
      const output = page.locator(target);
      await expect(output).toHaveCount(1);
      await first.click();
      await expect(page).toHaveURL(new RegExp(`${target}$`));
      await expect(output).toBeVisible();
      await expect(output).toBeInViewport();
    });
  }
}
