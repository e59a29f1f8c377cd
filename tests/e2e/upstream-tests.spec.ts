// Upstream's own tests on the evidence pages: every test that covers an article
// is listed with the state ginkgo's report of the committed record gives it
// (read afresh here, as the build reads it), in both languages; a test left out
// is listed as such; and the table fits a phone.
import { expect, test } from '@playwright/test';
import { readConformanceRecords } from '../../src/conformance/record.ts';
import { leftOutCovering, testsCovering } from '../../src/conformance/upstream-tests.ts';
import { articleSlugs, evidencePathsOf, isWritten, LANGS } from './support/articles.ts';
import { ROOT } from './support/evidence.ts';

const [record, ...older] = readConformanceRecords(ROOT);

for (const slug of articleSlugs().filter((s) => testsCovering(s).length > 0)) {
  for (const lang of LANGS.filter((l) => isWritten(slug, l))) {
    const path = evidencePathsOf(lang, slug)[0]!;
    test(`${path}: each upstream test that covers it, with its state in the record, and those left out`, async ({ page }) => {
      await page.goto(path);
      const block = page.locator('.upstream-tests');
      await expect(block).toHaveAttribute('data-conformance', record!.folder);
      const rows = await block
        .locator('tr[data-upstream-test]')
        .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-upstream-test'), tr.getAttribute('data-state')]));
      const expected = testsCovering(slug).map((t) => [t.name, record!.outcome.results.find((r) => r.name === t.name)!.state]);
      expect(rows).toEqual(expected);
      const left = await block.locator('li[data-upstream-test]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-upstream-test')));
      expect(left).toEqual(leftOutCovering(slug).map((t) => t.name));
      // Each older release's record, newest first: its release bound to the article's run of it, and what did not pass.
      const others = await block
        .locator('li[data-conformance]')
        .evaluateAll((lis) =>
          lis.map((li) => [
            li.getAttribute('data-conformance'),
            li.querySelector('[data-fact="version.kubernetes"]')?.textContent,
            li.querySelectorAll('[data-state]').length,
          ]),
        );
      const covering = new Set(testsCovering(slug).map((t) => t.name));
      expect(others).toEqual(older.map((r) => [r.folder, r.run.release, r.outcome.results.filter((x) => covering.has(x.name) && x.state !== 'passed').length]));
    });

    test(`${path}: the upstream tests fit a phone`, async ({ browser }) => {
      const page = await browser.newPage({ viewport: { width: 375, height: 800 } });
      await page.goto(path);
      const block = page.locator('.upstream-tests');
      await block.scrollIntoViewIfNeeded();
      const widest = await block.evaluate((el) =>
        Math.max(el.scrollWidth, ...[...el.querySelectorAll('code, td, li')].map((e) => e.getBoundingClientRect().right)),
      );
      expect(widest).toBeLessThanOrEqual(375);
      await page.close();
    });
  }
}
