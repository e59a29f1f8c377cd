// What a reader's review of the site (issue 35) found, checked on the built pages:
// the days an article was published and measured, rules and commands set as code
// and broken only between their tokens, charts that fit a phone, no English
// left untranslated on a Chinese page, named step outputs, the claim matrix's
// cells and the marks of values that are not measurements.
import { expect, test } from '@playwright/test';
import { articlePathOf, runDayOf, writtenArticles } from './support/articles.ts';

const written = writtenArticles();

test.describe('an article says when it was published and when it was measured', () => {
  for (const article of written) {
    const path = articlePathOf(article.lang, article.slug);
    test(`${path}: both days in the header, the measured one bound to its run`, async ({ page }) => {
      await page.goto(path);
      const meta = page.locator('.article-header .article-meta');
      const published = article.date.toISOString().slice(0, 10);
      await expect(meta.locator('time[data-ui="published"]')).toHaveAttribute('datetime', published);
      const measured = meta.locator('[data-fact="run.date"]');
      // The article's own run (snapshots/), bound as every value of the article is: no data-run of another run.
      await expect(measured).toHaveText(runDayOf(article.slug));
      await expect(measured).toHaveAttribute('data-step', 'run');
      expect(await measured.getAttribute('data-run')).toBeNull();
      await expect(meta.locator('time[data-ui="measured"]')).toHaveAttribute('datetime', runDayOf(article.slug));
      await expect(meta).toHaveText(
        article.lang === 'zh' ? `发布于 ${published} · 实测于 ${runDayOf(article.slug)}` : `Published ${published} · measured ${runDayOf(article.slug)}`,
      );
    });
  }
});
