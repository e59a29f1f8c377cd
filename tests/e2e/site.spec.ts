// The bilingual site around the articles, checked in a real browser against the
// built dist/: languages and their links, every internal link, narrow and wide
// screens, accessibility, feeds and the sitemap.
import { expect, test, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import {
  HTML_LANG,
  LANGS,
  articlePathOf,
  articleSlugs,
  homePathOf,
  isWritten,
  lastChangeOf,
  otherLang,
  evidencePathsOf,
  runRecordPathsOf,
  writtenArticles,
  type Lang,
  type WrittenArticle,
} from './support/articles.ts';
import { articleTemplates, evidenceTemplates, recordTemplates } from './support/templates.ts';
import { sidewaysOverflow } from './support/layout.ts';
import { localPathOf, publicUrl } from './support/origin.ts';
import { readFeed, readSitemap } from './support/xml.ts';

interface ArticlePage {
  slug: string;
  lang: Lang;
  path: string;
  /** The file whose text the page shows: its own language's, or the other one's on a fallback page. */
  shown: WrittenArticle;
  written: boolean;
}

const written = writtenArticles();
const slugs = articleSlugs();

function articlePages(): ArticlePage[] {
  return slugs.flatMap((slug) =>
    LANGS.map((lang) => {
      const own = written.find((a) => a.slug === slug && a.lang === lang);
      const shown = own ?? written.find((a) => a.slug === slug)!;
      return { slug, lang, path: articlePathOf(lang, slug), shown, written: own !== undefined };
    }),
  );
}

const pages = articlePages();
const homes = LANGS.map((lang) => ({ lang, path: homePathOf(lang) }));
/** Every run's record, in every language. */
const records = slugs.flatMap((slug) => LANGS.flatMap((lang) => runRecordPathsOf(lang, slug).map((path) => ({ slug, lang, path }))));
/** Every article's evidence page, in every language. */
const evidencePages = slugs.flatMap((slug) => LANGS.flatMap((lang) => evidencePathsOf(lang, slug).map((path) => ({ slug, lang, path }))));
const notFounds = LANGS.map((lang) => ({ lang, path: lang === 'zh' ? '/404.html' : '/en/404.html' }));
/**
 * The pages the heavy sweeps (layout, axe, language, the switcher's round trip) visit: one page of each
 * template, chosen by measuring the built pages for what stresses it (support/templates.ts), in both
 * languages; every page's own values, words about itself and links are checked page by page in
 * pages.spec.ts and tests/built, without these sweeps.
 */
const templates = LANGS.flatMap((lang) => [
  ...articleTemplates(lang).map((c) => ({ ...c, lang, kind: 'article' })),
  ...evidenceTemplates(lang).map((c) => ({ ...c, lang, kind: 'evidence' })),
  ...recordTemplates(lang).map((c) => ({ ...c, lang, kind: 'record' })),
]);
const templateArticles = pages.filter((p) => templates.some((t) => t.path === p.path));

test('the content folder has at least one article to check', () => {
  expect(written.length, 'content/articles/*/{zh,en}.mdx').toBeGreaterThan(0);
});

async function hreflangs(page: Page): Promise<Record<string, string>> {
  const links = await page
    .locator('head link[rel="alternate"][hreflang]')
    .evaluateAll((els) => els.map((el) => [el.getAttribute('hreflang') ?? '', el.getAttribute('href') ?? '']));
  expect(new Set(links.map(([tag]) => tag)).size, 'one link per hreflang').toBe(links.length);
  return Object.fromEntries(links);
}

async function switchLanguage(page: Page, to: Lang): Promise<void> {
  const switcher = page.locator(`a[data-lang-switch="${to}"]`);
  await expect(switcher).toHaveCount(1);
  await expect(switcher).toHaveAttribute('hreflang', HTML_LANG[to]);
  await switcher.click();
  await page.waitForLoadState('load');
}

test.describe('languages', () => {
  for (const { lang, path } of homes) {
    test(`home ${path}: <html lang>, canonical, hreflang, and the switcher there and back`, async ({ page }) => {
      await page.goto(path);
      await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG[lang]);
      await expect(page.locator('head link[rel="canonical"]')).toHaveAttribute('href', publicUrl(path));
      expect(await hreflangs(page)).toEqual({
        'zh-CN': publicUrl('/'),
        en: publicUrl('/en/'),
        'x-default': publicUrl('/'),
      });
      const other = otherLang(lang);
      await switchLanguage(page, other);
      expect(new URL(page.url()).pathname).toBe(homePathOf(other));
      await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG[other]);
      await switchLanguage(page, lang);
      expect(new URL(page.url()).pathname).toBe(path);
    });
  }

  for (const article of templateArticles) {
    test(`article ${article.path}: <html lang>, canonical, hreflang, meta, and the switcher there and back`, async ({ page }) => {
      const { slug, lang, path, shown } = article;
      await page.goto(path);
      await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG[lang]);

      // A fallback page points search engines at the text's own page.
      const canonical = publicUrl(article.written ? path : articlePathOf(shown.lang, slug));
      await expect(page.locator('head link[rel="canonical"]')).toHaveAttribute('href', canonical);
      await expect(page.locator('head meta[property="og:url"]')).toHaveAttribute('content', canonical);

      const translations = LANGS.filter((l) => isWritten(slug, l));
      const expected: Record<string, string> = {};
      for (const l of translations) expected[HTML_LANG[l]] = publicUrl(articlePathOf(l, slug));
      expected['x-default'] = publicUrl(articlePathOf(translations.includes('zh') ? 'zh' : translations[0]!, slug));
      expect(await hreflangs(page)).toEqual(expected);

      await expect(page.locator('h1')).toHaveText(shown.title);
      await expect(page.locator('head meta[name="description"]')).toHaveAttribute('content', shown.summary);
      await expect(page.locator('head meta[property="og:title"]')).toHaveAttribute('content', shown.title);
      await expect(page.locator('head meta[property="og:type"]')).toHaveAttribute('content', 'article');
      await expect(page).toHaveTitle(new RegExp(`^${shown.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · `));
      await expect(page.locator('main article')).toHaveCount(1);

      const position = page.locator('.article-header .series-position');
      await expect(position).toContainText(shown.seriesName);
      await expect(position.locator('[data-ui]')).toHaveText(String(shown.seriesNumber));

      const notice = page.locator('.fallback-notice');
      if (article.written) {
        await expect(notice).toHaveCount(0);
        await expect(page.locator('head meta[name="robots"]')).toHaveCount(0);
      } else {
        await expect(notice).toBeVisible();
        await expect(notice.locator('a')).toHaveAttribute('href', articlePathOf(shown.lang, slug));
        await expect(page.locator('head meta[name="robots"]')).toHaveAttribute('content', 'noindex');
        await expect(page.locator('.article-content')).toHaveAttribute('lang', HTML_LANG[shown.lang]);
      }

      const other = otherLang(lang);
      await switchLanguage(page, other);
      expect(new URL(page.url()).pathname).toBe(articlePathOf(other, slug));
      await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG[other]);
      await switchLanguage(page, lang);
      expect(new URL(page.url()).pathname).toBe(path);
    });
  }
});

test.describe('interface chrome', () => {
  test('the first Tab shows the skip link with a visible focus outline', async ({ page }) => {
    await page.goto(pages[0]!.path);
    await page.keyboard.press('Tab');
    const skip = page.locator('.skip-link');
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    const outline = await skip.evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe('none');
  });

  test('an article reads without JavaScript', async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(pages[0]!.path);
    await expect(page.locator('h1')).toBeVisible();
    await expect(page.locator('main article')).toBeVisible();
    await context.close();
  });

  test('print leaves the language switcher and the series navigation out', async ({ page }) => {
    await page.goto(pages[0]!.path);
    await page.emulateMedia({ media: 'print' });
    await expect(page.locator('.language-switcher')).toBeHidden();
    await expect(page.locator('main article')).toBeVisible();
  });

  for (const lang of LANGS) {
    const notFound = lang === 'zh' ? '/404.html' : '/en/404.html';
    test(`${notFound} is a 404 page in its language`, async ({ page }) => {
      await page.goto(notFound);
      await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG[lang]);
      await expect(page.locator('head meta[name="robots"]')).toHaveAttribute('content', 'noindex');
      await expect(page.locator(`main a[href="${homePathOf(lang)}"]`)).toBeVisible();
    });
  }

  test('a missing page answers 404 with the 404 page', async ({ page }) => {
    const response = await page.goto('/no-such-article/');
    expect(response?.status()).toBe(404);
    await expect(page.locator('html')).toHaveAttribute('lang', HTML_LANG.zh);
    await expect(page.locator('main a[href="/"]')).toBeVisible();
  });
});

test('every template loads everything it asks for: no request fails, none answers an error', async ({ page, baseURL }) => {
  // What a page's stylesheets and scripts load at run time (fonts, modules, the icon), which reading the HTML cannot see;
  // every link, asset and #fragment of every page, and that each is reachable, is checked on the files (tests/built).
  const origin = new URL(baseURL!).origin;
  const problems: string[] = [];
  let current = '';
  page.on('response', (response) => {
    if (new URL(response.url()).origin === origin && response.status() >= 400 && response.url() !== `${origin}${current}`)
      problems.push(`${response.url()}: status ${response.status()} (loaded by ${current})`);
  });
  page.on('requestfailed', (failed) => {
    if (new URL(failed.url()).origin === origin && failed.failure()?.errorText !== 'net::ERR_ABORTED')
      problems.push(`${failed.url()}: ${failed.failure()?.errorText} (loaded by ${current})`);
  });
  const paths = [...new Set([...homes, ...notFounds, ...templates].map((p) => p.path))];
  for (const path of paths) {
    current = path;
    const response = await page.goto(path, { waitUntil: 'load' });
    expect(response?.status(), path).toBe(200);
  }
  expect(problems).toEqual([]);
  expect(paths.length).toBeGreaterThanOrEqual(2 + 2 + 3 * LANGS.length);
});

/** Every rule of the sweep: WCAG 2.2 A and AA and axe's best practices, moderate violations too (heading-order was one). */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
/** What the dark theme changes is colour (its custom properties) and nothing of the markup: axe's colour rules are those it can break. */
const AXE_COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

async function axeViolations(page: Page, builder: (axe: AxeBuilder) => AxeBuilder): Promise<string[]> {
  const results = await builder(new AxeBuilder({ page })).analyze();
  return results.violations.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

// One load per page for its heavy sweeps: the layout at a phone's and a desktop's width, then axe in the
// light theme with every rule and in the dark theme with the colour rules. Screenshots for a person to look
// at are `npm run screenshots`, not a test.
test.describe('narrow and wide screens, axe in both themes', () => {
  // The pages chosen are the heaviest of their template by design: axe on 074's evidence page took over 30 s on a busy machine.
  test.setTimeout(120_000);
  const targets = [...homes, ...notFounds, ...templates].map((t) => t.path);
  for (const path of targets) {
    test(`${path}: no sideways scroll at 375 and 1280 px, no axe violation light or dark`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 375, height: 900 });
      await page.goto(path);
      for (const width of [375, 1280]) {
        await test.step(`${width} px`, async () => {
          await page.setViewportSize({ width, height: 900 });
          const overflow = await sidewaysOverflow(page);
          expect(overflow.culprits, `elements past the edge at ${width} px`).toEqual([]);
          expect(overflow.scrollWidth, `page width at a ${width} px viewport`).toBeLessThanOrEqual(overflow.clientWidth);
        });
      }
      await test.step('axe, light theme, every rule', async () => {
        expect(await axeViolations(page, (axe) => axe.withTags(AXE_TAGS))).toEqual([]);
      });
      await test.step('axe, dark theme, the colour rules', async () => {
        await page.emulateMedia({ colorScheme: 'dark' });
        expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true);
        expect(await axeViolations(page, (axe) => axe.withRules(AXE_COLOUR_RULES))).toEqual([]);
      });
    });
  }
});

test.describe('feeds and sitemap', () => {
  for (const lang of LANGS) {
    const feedPath = lang === 'zh' ? '/rss.xml' : '/en/rss.xml';
    test(`${feedPath} parses and lists every article written in ${lang}, and only those`, async ({ page, request }) => {
      const feed = await readFeed(page, request, feedPath);
      expect(feed.contentType).toMatch(/xml/);
      expect(feed.language).toBe(HTML_LANG[lang]);
      expect(feed.link).toBe(publicUrl(homePathOf(lang)));
      const mine = written.filter((a) => a.lang === lang);
      expect(feed.items.map((item) => localPathOf(item.link)).sort()).toEqual(mine.map((a) => articlePathOf(lang, a.slug)).sort());
      for (const article of mine) {
        const item = feed.items.find((i) => i.link === publicUrl(articlePathOf(lang, article.slug)))!;
        expect(item.title).toBe(article.title);
        expect(item.description).toBe(article.summary);
        expect(new Date(item.pubDate).getTime()).toBe(article.date.getTime());
        // A run after publication is an update: the item says so, in Atom's words (RSS has none).
        expect(item.updated, `${article.slug}: atom:updated`).toBe(`${lastChangeOf(article)}T00:00:00.000Z`);
      }
      const latest = mine.map(lastChangeOf).sort().at(-1)!;
      expect(new Date(feed.lastBuildDate).toISOString(), 'the channel changed last when its latest item did').toBe(`${latest}T00:00:00.000Z`);
    });

    test(`${homePathOf(lang)} announces its feed`, async ({ page }) => {
      await page.goto(homePathOf(lang));
      await expect(page.locator('head link[rel="alternate"][type="application/rss+xml"]')).toHaveAttribute('href', feedPath);
    });
  }

  test('the sitemap parses and lists every written page with its language alternates', async ({ page, request }) => {
    const urls = await readSitemap(page, request, localPathOf);
    const listed = urls.map((u) => localPathOf(u.loc)).sort();
    // Run records are written in every language: their words are the run's own and the site's.
    const expected = [
      ...homes.map((h) => h.path),
      ...pages.filter((p) => p.written).map((p) => p.path),
      ...evidencePages.filter((e) => isWritten(e.slug, e.lang)).map((e) => e.path),
      ...records.map((r) => r.path),
    ].sort();
    expect(listed).toEqual(expected);
    for (const slug of slugs) {
      const translations = LANGS.filter((l) => isWritten(slug, l));
      if (translations.length < 2) continue;
      for (const l of translations) {
        const entry = urls.find((u) => u.loc === publicUrl(articlePathOf(l, slug)))!;
        expect(entry.alternates).toEqual(
          expect.arrayContaining(translations.map((t) => ({ hreflang: HTML_LANG[t], href: publicUrl(articlePathOf(t, slug)) }))),
        );
      }
    }
  });
});
