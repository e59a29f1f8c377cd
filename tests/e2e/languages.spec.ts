// The two editions of a page say the same thing: the Chinese and the English
// article, evidence page and run records bind the same values, each from the
// same run (fact id, version, environment, variant and run alike), in a real
// browser against the built dist/. A value only one edition shows is a
// difference a reader of the other never sees.
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';
import { expect, test, type Page } from '@playwright/test';
import { articlePathOf, evidencePathsOf, isWritten, runRecordPathsOf, type Lang } from './support/articles.ts';

async function boundValues(page: Page, path: string): Promise<string[]> {
  const response = await page.goto(path, { waitUntil: 'domcontentloaded' });
  expect(response?.status(), path).toBe(200);
  return page.$$eval('main [data-fact], main [data-translates]', (elements) =>
    [
      ...new Set(
        elements.map((el) =>
          ['data-fact', 'data-version', 'data-environment', 'data-variant', 'data-run']
            .map((name) => {
              // A Chinese page translates a value run.yaml writes in English only, naming the fact it translates.
              const value = name === 'data-fact' ? (el.getAttribute('data-fact') ?? el.getAttribute('data-translates')) : el.getAttribute(name);
              // The driver's words are a fact per language (run.environment.summary.zh): the same value, in the page's.
              return `${name}=${(value ?? '').replace(/^(run\..+)\.(zh|en)$/, '$1.<lang>')}`;
            })
            .join(' '),
        ),
      ),
    ].sort(),
  );
}

const bilingual = REFERENCE_ARTICLES.filter((slug) => isWritten(slug, 'zh') && isWritten(slug, 'en'));

test('every article is written in both languages, so each page has two editions to compare', () => {
  expect(bilingual.length).toBeGreaterThan(2);
});

for (const slug of bilingual) {
  const pages = (lang: Lang) => [articlePathOf(lang, slug), ...evidencePathsOf(lang, slug), runRecordPathsOf(lang, slug)[0]!];
  test(`${slug}: the Chinese and English article, evidence page and run record bind the same values`, async ({ page }) => {
    const [zh, en] = [pages('zh'), pages('en')];
    for (const [i, zhPath] of zh.entries()) {
      const [inZh, inEn] = [await boundValues(page, zhPath), await boundValues(page, en[i]!)];
      expect(inZh.length, `${zhPath} binds values`).toBeGreaterThan(10);
      expect(
        { zhOnly: inZh.filter((v) => !inEn.includes(v)), enOnly: inEn.filter((v) => !inZh.includes(v)) },
        `${zhPath} and ${en[i]}: the same values`,
      ).toEqual({ zhOnly: [], enOnly: [] });
    }
  });
}
