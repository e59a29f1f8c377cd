// The header's search, in a real browser against the built dist/: nothing of it
// is fetched until a reader opens it; then a Chinese query (segmented into words
// by Pagefind's extended build) and an English one find article 074 in their own
// language, each result opening the section that matched; the evidence pages are
// found too, and the words readers use for an article's terms find that article.
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
        .and(dialog.locator(`a[href^="${articlePathOf(lang, SLUG)}#"]`)),
    ).toBeVisible();
    // The words matched are marked in the excerpt, as text.
    await expect(dialog.locator('.search-results mark').first()).toBeVisible();
    await expect(dialog.getByRole('status')).not.toHaveText('');
    expect(
      requests.some((url) => url.includes('/pagefind/pagefind.js')),
      'Pagefind loaded once opened',
    ).toBe(true);

    // The first result opens the section that matched, named under the page's title: Enter follows it to its heading.
    const first = dialog.locator('.search-results a').first();
    const href = (await first.getAttribute('href'))!;
    expect(href).toMatch(new RegExp(`^${articlePathOf(lang, SLUG)}#.+`));
    const section = (await first.locator('.search-result-section').textContent())!;
    await dialog.getByRole('searchbox').press('Enter');
    await expect(page).toHaveURL(new RegExp(`${href}$`));
    const heading = page.locator(':target');
    await expect(heading).toContainText(section);
    await expect(heading).toHaveText(query === '健康检查' ? /健康检查/ : /health.check/i);
    await expect(heading).toBeInViewport();
  });
}

// Words that are not the article's own (it says 来源地址, the client's address), and a phrase of an evidence page only.
// ("client IP" finds 077 first, whose ClientIP is that very term, and 074 next.)
const found: { lang: Lang; query: string; page: string; section?: RegExp }[] = [
  { lang: 'zh', query: '源 IP', page: articlePathOf('zh', SLUG) },
  { lang: 'en', query: 'source IP', page: articlePathOf('en', SLUG) },
  { lang: 'zh', query: '会话保持', page: articlePathOf('zh', '077-session-affinity') },
  { lang: 'en', query: 'sticky sessions', page: articlePathOf('en', '077-session-affinity') },
  { lang: 'zh', query: '已发表的原文', page: `${articlePathOf('zh', SLUG)}evidence/`, section: /已发表的原文/ },
  { lang: 'en', query: 'published original', page: `${articlePathOf('en', SLUG)}evidence/`, section: /published original/ },
];

for (const { lang, query, page: expected, section } of found) {
  test(`${lang}: "${query}" finds ${expected} first${section ? ', at its section' : ''}`, async ({ page }) => {
    await page.goto(homePathOf(lang));
    const dialog = await search(page, query);
    const first = dialog.locator('.search-results a').first();
    await expect(first).toHaveAttribute('href', section ? new RegExp(`^${expected}#`) : expected);
    if (section) await expect(first.locator('.search-result-section')).toHaveText(section);
    // An evidence page's result says whose evidence it is.
    if (expected.endsWith('/evidence/'))
      await expect(first.locator('.search-result-title')).toHaveText(lang === 'zh' ? /^证据 · externalTrafficPolicy/ : /^Evidence · externalTrafficPolicy/);
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
