// The header's search, in a real browser against the built dist/: nothing of it
// is fetched until a reader opens it; then a Chinese query (segmented into words
// by Pagefind's extended build) and an English one find article 074 in their own
// language, and the results link to that language's page.
import { expect, test, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { articlePathOf, homePathOf, type Lang } from './support/articles.ts';

const SLUG = '074-external-traffic-policy';
/** What opening the search loads: the dialog's code, Pagefind's script, its WebAssembly and the index. */
const SEARCH_ASSET = /\/pagefind\/|search-dialog/;

/** Every URL the page requests from now on. */
function requestsOf(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  return urls;
}

async function search(page: Page, query: string) {
  await page.getByRole('button', { name: /^(搜索|Search)$/ }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByRole('searchbox').fill(query);
  return dialog;
}

const queries: { lang: Lang; query: string }[] = [
  { lang: 'zh', query: '健康检查' },
  { lang: 'en', query: 'health check' },
];

for (const { lang, query } of queries) {
  test(`${lang}: "${query}" finds article 074 in ${lang}, and nothing of search loads before the dialog opens`, async ({ page }) => {
    const requests = requestsOf(page);
    await page.goto(homePathOf(lang));
    await page.waitForLoadState('load');
    expect(
      requests.filter((url) => SEARCH_ASSET.test(url)),
      'search assets requested on page load',
    ).toEqual([]);

    const dialog = await search(page, query);
    // Among the results, whatever else the series holds that speaks of health checks.
    await expect(
      dialog
        .getByRole('link')
        .filter({ hasText: /externalTrafficPolicy/ })
        .and(dialog.locator(`a[href="${articlePathOf(lang, SLUG)}"]`)),
    ).toBeVisible();
    // The words matched are marked in the excerpt, as text.
    await expect(dialog.locator('.search-results mark').first()).toBeVisible();
    await expect(dialog.getByRole('status')).not.toHaveText('');
    expect(
      requests.some((url) => url.includes('/pagefind/pagefind.js')),
      'Pagefind loaded once opened',
    ).toBe(true);

    // Enter follows the first result.
    const first = await dialog.locator('.search-results a').first().getAttribute('href');
    expect(first).toMatch(lang === 'zh' ? /^\/[^/]+\/$/ : /^\/en\/[^/]+\/$/);
    await dialog.getByRole('searchbox').press('Enter');
    await expect(page).toHaveURL(new RegExp(`${first}$`));
  });
}

test('the index holds the prose, not the raw outputs the article and its run records show', async ({ page }) => {
  // A key of worker's `ip -j address` output, on article 074's page (folded) and its run records, never in its
  // prose. (Pagefind also finds words a query starts with: 'ifindex' would find "if".)
  const word = 'valid_life_time';
  await page.goto(articlePathOf('en', SLUG));
  await expect(page.locator('.step-output').filter({ hasText: word }).first()).toBeAttached();
  const dialog = await search(page, word);
  await expect(dialog.getByRole('status')).toHaveText('Nothing found.');
  await expect(dialog.locator('.search-results li')).toHaveCount(0);
});

test('the open dialog with results has no axe violation, and Escape closes it', async ({ page }) => {
  await page.goto(articlePathOf('zh', SLUG));
  const dialog = await search(page, '健康检查');
  await expect(dialog.locator('.search-results a').first()).toBeVisible();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const results = await new AxeBuilder({ page })
      .include('dialog')
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
      .analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  }
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: '搜索' })).toBeFocused();
});
