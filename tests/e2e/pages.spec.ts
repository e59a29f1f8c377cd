// Every article page and every evidence page, in both languages, loaded once
// each and read in one go: every bound value (data-fact), measured line and
// excerpt is what the committed snapshots of the run it names say (derived
// afresh, tests/e2e/support/runs.ts), no digit of the prose is unbound, and the
// page's own words about itself (languages, canonical URL, title, series, dates,
// link-preview card, versions) are right. The load is as cheap as a page load
// gets: one browser context for the worker, no stylesheet, font or image fetched,
// no screenshot. What needs a laid-out page (layout, axe, typography, clicks) is
// checked on one page of each template, chosen to stress it (templates.spec.ts);
// the run records are checked against their snapshots without a browser
// (tests/built). This file's cost grows by four page loads an article.
import { test as base, expect, type Page } from '@playwright/test';
import { HTML_LANG, LANGS, articlePathOf, homePathOf, isWritten, otherLang, runDayOf, writtenArticles, type Lang } from './support/articles.ts';
import { versionsOf as declaredVersions } from '../../src/experiment/kubernetes.ts';
import { publicUrl } from './support/origin.ts';
import {
  boundValueProblems,
  everyArticleRuns,
  excerptProblems,
  measuredFigureProblems,
  runNamed,
  type ArticleRuns,
  type BoundElement,
  type Excerpt,
  type MeasuredFigure,
} from './support/runs.ts';

/** Fetched by a page only to be looked at: the checks here read the DOM. */
const NOT_NEEDED = new Set(['stylesheet', 'font', 'image', 'media']);

const test = base.extend<object, { lean: Page }>({
  lean: [
    async ({ browser }, use, workerInfo) => {
      const context = await browser.newContext({ baseURL: workerInfo.project.use.baseURL });
      await context.route('**/*', (route) => (NOT_NEEDED.has(route.request().resourceType()) ? route.abort() : route.fallback()));
      const page = await context.newPage();
      await use(page);
      await context.close();
    },
    { scope: 'worker' },
  ],
});

const everyRun = await everyArticleRuns();
const written = writtenArticles();

test('there is an article to check, and every written article has its runs', () => {
  expect(everyRun.length, 'content/articles/*/article.ts').toBeGreaterThan(0);
  expect(new Set(written.map((a) => a.slug))).toEqual(new Set(everyRun.map((r) => r.slug)));
});

/** Everything the checks read of a page, in one evaluate. */
interface PageRead {
  status: number;
  htmlLang: string;
  articleRun: string | null;
  bound: BoundElement[];
  figures: MeasuredFigure[];
  excerpts: Excerpt[];
  stray: string[];
  provenance: { version: string | null; environment: string | null; variant: string | null; run: string | null }[];
  head: Record<string, string | null>;
  hreflang: [string, string][];
  title: string;
  h1: string;
  seriesName: string;
  seriesNumber: string | null;
  fallback: { href: string | null } | null;
  contentLang: string | null;
  switcher: { href: string | null; hreflang: string | null; count: number };
  seriesNav: { prev: string | null; next: string | null };
  looseChromeDigits: string[];
  filings: [string | null, string | null];
  meta: {
    published: string | null;
    measuredText: string | null;
    measuredStep: string | null;
    measuredRun: string | null;
    measuredTime: string | null;
    text: string;
  };
  headlineValues: string[];
  versionTables: string[];
  cells: { version: string; run: string; href: string | null }[];
  captions: { version: string; run: string | null; text: string }[];
  matrixNotMeasured: string | null | undefined;
  sentenceLinks: { version: string; run: string; href: string; text: string }[];
  sentenceNotMeasured: string | null | undefined;
}

async function readPage(page: Page, path: string): Promise<PageRead> {
  const response = await page.goto(path, { waitUntil: 'domcontentloaded' });
  const read = await page.evaluate(() => {
    const attr = (el: Element | null | undefined, name: string) => el?.getAttribute(name) ?? null;
    const names = (el: Element) => ({
      environment: attr(el, 'data-environment'),
      variant: attr(el, 'data-variant'),
      version: attr(el, 'data-version'),
      run: attr(el, 'data-run'),
    });
    const article = document.querySelector('article[data-run]');
    const stray: string[] = [];
    if (article) {
      const allowed = '[data-fact], [data-measured], [data-ui], [data-not-measured], [data-source] pre, script, style';
      const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        // A number, not a digit inside a name: worker2 and iproute2 are names.
        if (!/(?<![\p{L}_-])\d/u.test(text)) continue;
        if (node.parentElement?.closest(allowed)) continue;
        stray.push(text.trim().slice(0, 80));
      }
    }
    const loose: string[] = [];
    for (const root of document.querySelectorAll('.site-header, .site-footer, .series-position, .article-meta, .article-list__date')) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode())
        if (/\d/.test(node.textContent ?? '') && !node.parentElement?.closest('[data-ui]')) loose.push(node.textContent!.trim());
    }
    const meta = (key: string) => attr(document.querySelector(`head meta[property="${key}"], head meta[name="${key}"]`), 'content');
    const measured = document.querySelector('.article-header .article-meta [data-fact="run.date"]');
    const sentence = document.querySelector('p.evidence-link');
    const notMeasured = (root: Element | null) => (root ? attr(root.querySelector('[data-versions-not-measured]'), 'data-versions-not-measured') : undefined);
    return {
      htmlLang: document.documentElement.lang,
      articleRun: attr(article, 'data-run'),
      bound: [...document.querySelectorAll('[data-fact]')].map((el) => ({
        id: el.getAttribute('data-fact')!,
        step: attr(el, 'data-step'),
        text: el.textContent ?? '',
        raw: attr(el, 'data-raw'),
        declared: attr(el, 'data-declared'),
        ...names(el),
      })),
      figures: [...document.querySelectorAll('figure[data-measured]')].map((fig) => ({
        ...names(fig),
        steps: fig.getAttribute('data-measured')!.split(' '),
        heading: fig.querySelector('figcaption')?.textContent ?? '',
        lines: [...fig.querySelectorAll(':scope > .measured-lines > li')].map((li) => ({
          step: attr(li, 'data-step'),
          text: li.textContent ?? '',
          factSteps: [...li.querySelectorAll('[data-fact]')].map((f) => attr(f, 'data-step')),
        })),
      })),
      excerpts: [...document.querySelectorAll('figure[data-excerpt]')].map((fig) => ({
        step: fig.getAttribute('data-excerpt')!,
        ...names(fig),
        mark: fig.querySelector('figcaption .excerpt-mark')?.textContent ?? null,
        lines: [...fig.querySelectorAll('pre .excerpt-line')].map((l) =>
          l.classList.contains('excerpt-gap') ? null : (l.textContent ?? '').replace(/\u200b/g, ''),
        ),
      })),
      stray,
      provenance: [...document.querySelectorAll('section.provenance')].map(names),
      head: {
        canonical: attr(document.querySelector('head link[rel="canonical"]'), 'href'),
        description: meta('description'),
        robots: meta('robots'),
        ogTitle: meta('og:title'),
        ogType: meta('og:type'),
        ogUrl: meta('og:url'),
        ogImage: meta('og:image'),
        ogImageAlt: meta('og:image:alt'),
        ogImageWidth: meta('og:image:width'),
        ogImageHeight: meta('og:image:height'),
        ogImageType: meta('og:image:type'),
        twitterCard: meta('twitter:card'),
      },
      hreflang: [...document.querySelectorAll('head link[rel="alternate"][hreflang]')].map(
        (el) => [attr(el, 'hreflang') ?? '', attr(el, 'href') ?? ''] as [string, string],
      ),
      title: document.title,
      h1: document.querySelector('h1')?.textContent ?? '',
      seriesName: document.querySelector('.article-header .series-position')?.textContent ?? '',
      seriesNumber: document.querySelector('.article-header .series-position [data-ui]')?.textContent ?? null,
      fallback: document.querySelector('.fallback-notice') ? { href: attr(document.querySelector('.fallback-notice a'), 'href') } : null,
      contentLang: attr(document.querySelector('.article-content'), 'lang'),
      switcher: (() => {
        const all = document.querySelectorAll('a[data-lang-switch]');
        return { href: attr(all[0], 'href'), hreflang: attr(all[0], 'hreflang'), count: all.length };
      })(),
      seriesNav: {
        prev: attr(document.querySelector('.series-nav a[rel="prev"]'), 'href'),
        next: attr(document.querySelector('.series-nav a[rel="next"]'), 'href'),
      },
      looseChromeDigits: loose,
      filings: [
        document.querySelector('.site-footer [data-ui="filing-icp"]')?.textContent ?? null,
        document.querySelector('.site-footer [data-ui="filing-police"]')?.textContent ?? null,
      ] as [string | null, string | null],
      meta: {
        published: attr(document.querySelector('.article-header .article-meta time[data-ui="published"]'), 'datetime'),
        measuredText: measured?.textContent ?? null,
        measuredStep: attr(measured, 'data-step'),
        measuredRun: attr(measured, 'data-run'),
        measuredTime: attr(document.querySelector('.article-header .article-meta time[data-ui="measured"]'), 'datetime'),
        text: (document.querySelector('.article-header .article-meta')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
      },
      headlineValues: [...document.querySelectorAll('.headline-value')].map((el) => (el.textContent ?? '').trim()),
      versionTables: [...document.querySelectorAll('.claim-matrix .table-scroll[data-version]')].map((e) => e.getAttribute('data-version')!),
      cells: [...document.querySelectorAll('.claim-matrix td.claim-cell[data-version]')].map((td) => ({
        version: td.getAttribute('data-version')!,
        run: td.getAttribute('data-run')!,
        href: attr(td.querySelector('a'), 'href'),
      })),
      captions: [...document.querySelectorAll('.claim-matrix .table-scroll[data-version] caption [data-fact="version.kubernetes"]')].map((c) => ({
        version: c.closest('.table-scroll')!.getAttribute('data-version')!,
        run: attr(c, 'data-run'),
        text: c.textContent ?? '',
      })),
      matrixNotMeasured: notMeasured(document.querySelector('.claim-matrix')),
      sentenceLinks: [...(sentence?.querySelectorAll('a[data-version]') ?? [])].map((a) => ({
        version: a.getAttribute('data-version')!,
        run: a.getAttribute('data-run')!,
        href: a.getAttribute('href')!,
        text: a.textContent ?? '',
      })),
      sentenceNotMeasured: notMeasured(sentence),
    };
  });
  return { status: response?.status() ?? 0, ...read };
}

/** The values, lines, excerpts and prose of an article or evidence page against the runs' snapshots. */
function bindingProblems(read: PageRead, runs: ArticleRuns, lang: Lang): string[] {
  const problems = [
    ...boundValueProblems(read.bound, runs),
    ...measuredFigureProblems(read.figures, runs, lang),
    ...excerptProblems(read.excerpts, runs, lang),
    ...read.stray.map((s) => `a digit in the prose outside a bound element: "${s}"`),
  ];
  if (read.articleRun !== runs.headline.runId) problems.push(`article[data-run="${read.articleRun}"], expected the headline run ${runs.headline.runId}`);
  return problems;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The runs of each measured version, by minor (the headline's first), and the declared versions with none. */
function versionsOf(runs: ArticleRuns): { measured: string[]; notMeasured: string[] } {
  const declared = declaredVersions(runs.article.experiment).map((r) => r.minor);
  const measured = [...new Set(runs.runs.map((r) => r.version))];
  return { measured, notMeasured: declared.filter((v) => !measured.includes(v)) };
}

for (const runs of everyRun) {
  const { slug } = runs;
  for (const lang of LANGS) {
    const path = articlePathOf(lang, slug);
    test(`${path} and its evidence page: every bound value, line and excerpt is its run's, and the page says what it is`, async ({ lean: page }) => {
      const own = written.find((a) => a.slug === slug && a.lang === lang);
      const shown = own ?? written.find((a) => a.slug === slug)!;
      const versions = versionsOf(runs);

      // The article.
      const read = await readPage(page, path);
      expect(read.status, path).toBe(200);
      expect(bindingProblems(read, runs, lang), `${path}: bound to the snapshots`).toEqual([]);
      expect(read.bound.length, `${path}: the article binds facts`).toBeGreaterThan(20);

      // Its language, its URL and the text it shows (a fallback page points search engines at the text's own page).
      expect(read.htmlLang).toBe(HTML_LANG[lang]);
      const canonical = publicUrl(own ? path : articlePathOf(shown.lang, slug));
      expect([read.head['canonical'], read.head['ogUrl']]).toEqual([canonical, canonical]);
      const translations = LANGS.filter((l) => isWritten(slug, l));
      const alternates: Record<string, string> = Object.fromEntries(translations.map((l) => [HTML_LANG[l], publicUrl(articlePathOf(l, slug))]));
      alternates['x-default'] = publicUrl(articlePathOf(translations.includes('zh') ? 'zh' : translations[0]!, slug));
      expect(new Set(read.hreflang.map(([tag]) => tag)).size, 'one link per hreflang').toBe(read.hreflang.length);
      expect(Object.fromEntries(read.hreflang)).toEqual(alternates);
      expect(read.h1).toBe(shown.title);
      expect([read.head['description'], read.head['ogTitle'], read.head['ogType']]).toEqual([shown.summary, shown.title, 'article']);
      expect(read.title).toMatch(new RegExp(`^${escape(shown.title)} · `));
      expect(read.seriesName).toContain(shown.seriesName);
      expect(read.seriesNumber).toBe(String(shown.seriesNumber));
      if (own) expect([read.fallback, read.head['robots']]).toEqual([null, null]);
      else {
        expect(read.fallback).toEqual({ href: articlePathOf(shown.lang, slug) });
        expect(read.head['robots']).toBe('noindex');
        expect(read.contentLang).toBe(HTML_LANG[shown.lang]);
      }
      // The switcher leads to the other language's page (templates.spec.ts clicks it there and back).
      expect(read.switcher).toEqual({ href: articlePathOf(otherLang(lang), slug), hreflang: HTML_LANG[otherLang(lang)], count: 1 });

      // Its neighbours in the series.
      // The articles of its series as this language shows them (a fallback shows the other language's text).
      const sameSeries = everyRun
        .map((r) => written.find((a) => a.slug === r.slug && a.lang === lang) ?? written.find((a) => a.slug === r.slug)!)
        .filter((a) => a.seriesName === shown.seriesName)
        .map((a) => ({ slug: a.slug, number: a.seriesNumber }));
      const n = shown.seriesNumber;
      const previous = sameSeries.filter((a) => a.number < n).sort((a, b) => b.number - a.number)[0];
      const next = sameSeries.filter((a) => a.number > n).sort((a, b) => a.number - b.number)[0];
      expect(read.seriesNav).toEqual({ prev: previous ? articlePathOf(lang, previous.slug) : null, next: next ? articlePathOf(lang, next.slug) : null });

      // Every digit of the chrome sits in a data-ui element; the filing numbers are there.
      expect(read.looseChromeDigits).toEqual([]);
      expect(read.filings).toEqual(['京ICP备2026067502号-1', '京公网安备11010502063487号']);

      // Published and measured, the measured day bound to the article's own run.
      const published = shown.date.toISOString().slice(0, 10);
      const measuredDay = runDayOf(slug);
      expect(read.meta).toEqual({
        published,
        measuredText: measuredDay,
        measuredStep: 'run',
        measuredRun: null,
        measuredTime: measuredDay,
        text: lang === 'zh' ? `发布于 ${published} · 实测于 ${measuredDay}` : `Published ${published} · measured ${measuredDay}`,
      });

      // The link-preview card's tags; its alt names every headline value (tests/built checks the PNG of every card, templates.spec.ts decodes one).
      expect(read.head['ogImage']).toMatch(/\/og\.png$/);
      expect([read.head['ogImageWidth'], read.head['ogImageHeight'], read.head['ogImageType'], read.head['twitterCard']]).toEqual([
        '1200',
        '630',
        'image/png',
        'summary_large_image',
      ]);
      expect(read.head['ogImageAlt']?.startsWith(read.head['ogTitle']!)).toBe(true);
      expect(read.headlineValues.length).toBeGreaterThan(0);
      for (const value of read.headlineValues) expect(read.head['ogImageAlt']).toContain(value);

      // The one sentence names the versions the claims held on, each bound to a run of it, linking its record.
      if (versions.measured.length > 1) {
        const named = read.sentenceLinks.filter((l) => l.text === l.version);
        expect(named.map((l) => l.version)).toEqual(versions.measured);
        for (const link of named) {
          const run = runs.runs.find((r) => r.runId === link.run);
          expect(run?.version, `${link.version}: ${link.run} is a run of it`).toBe(link.version);
          expect(link.href, `${link.href} is the record of ${link.run}`).toBe(`${path}run/${run!.recordSuffix}`);
        }
      }
      if (versions.notMeasured.length) expect(read.sentenceNotMeasured).toBe(versions.notMeasured.join(' '));

      // The evidence page.
      const evidencePath = `${path}evidence/`;
      const evidence = await readPage(page, evidencePath);
      expect(evidence.status, evidencePath).toBe(200);
      expect(bindingProblems(evidence, runs, lang), `${evidencePath}: bound to the snapshots`).toEqual([]);
      // Each run of the headline version has values on the page, and its record a provenance note.
      const headlineRuns = runs.runs.filter((r) => r.version === runs.headline.version);
      for (const run of headlineRuns)
        expect(
          evidence.bound.some((el) => runNamed(runs, el, el.id) === run),
          `${evidencePath}: a value of the run in ${run.environment}, ${run.variant ?? 'its one mode'}`,
        ).toBe(true);
      expect(evidence.provenance.length, `${evidencePath}: a provenance note per run of the headline version`).toBe(headlineRuns.length);
      // A claim table per measured version, every cell bound to a run of that version and linking into that version's records.
      expect(evidence.versionTables).toEqual(versions.measured);
      for (const minor of versions.measured) {
        const ids = runs.runs
          .filter((r) => r.version === minor)
          .map((r) => r.runId)
          .sort();
        const cells = evidence.cells.filter((c) => c.version === minor);
        expect(cells.length, minor).toBeGreaterThan(0);
        expect([...new Set(cells.map((c) => c.run))].sort(), `${minor}: every run of the version has its column`).toEqual(ids);
        const record = `${path}run/${minor === runs.headline.version ? '' : `${minor}/`}`;
        for (const cell of cells) if (cell.href !== null) expect(cell.href.startsWith(record), `${minor}: ${cell.href}`).toBe(true);
        // Its caption names the release its bound run's API server answered: a release of that minor.
        const caption = evidence.captions.find((c) => c.version === minor);
        const bound = runs.runs.find((r) => r.runId === caption?.run);
        expect(bound?.version, `${minor}: the caption is bound to a run of the version`).toBe(minor);
        expect(caption!.text).toBe(bound!.kubernetes);
        expect(bound!.kubernetes.startsWith(`${minor}.`), `${minor}: its run answered ${bound!.kubernetes}`).toBe(true);
      }
      expect(evidence.matrixNotMeasured ?? null).toBe(versions.notMeasured.length ? versions.notMeasured.join(' ') : null);
    });
  }
}

test.describe('the home pages list every article', () => {
  for (const lang of LANGS) {
    test(`${homePathOf(lang)}: newest first, with number, title, date and summary; every digit of the chrome in data-ui`, async ({ lean: page }) => {
      const read = await readPage(page, homePathOf(lang));
      expect(read.status).toBe(200);
      expect(read.looseChromeDigits).toEqual([]);
      expect(read.filings).toEqual(['京ICP备2026067502号-1', '京公网安备11010502063487号']);
      const items = await page.$$eval('.article-list__item', (els) =>
        els.map((item) => ({
          slug: item.getAttribute('data-slug'),
          number: item.querySelector('.series-position [data-ui]')?.textContent ?? null,
          title: item.querySelector('a')?.textContent ?? null,
          href: item.querySelector('a')?.getAttribute('href') ?? null,
          date: item.querySelector('time')?.getAttribute('datetime') ?? null,
          summary: item.querySelector('.article-list__summary')?.textContent ?? null,
        })),
      );
      const expected = everyRun
        .map(({ slug }) => written.find((a) => a.slug === slug && a.lang === lang) ?? written.find((a) => a.slug === slug)!)
        .sort((a, b) => b.date.getTime() - a.date.getTime() || b.seriesNumber - a.seriesNumber)
        .map((a) => ({
          slug: a.slug,
          number: String(a.seriesNumber),
          title: a.title,
          href: articlePathOf(lang, a.slug),
          date: a.date.toISOString().slice(0, 10),
          summary: a.summary,
        }));
      expect(items).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);
    });
  }
});
