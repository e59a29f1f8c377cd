// Article 075 in the browser: every bound value is the one derived from its
// committed snapshots, no digit stands outside a bound element, the chart's
// bars are bound and drawn to their length, the table behind it holds the same
// values for screen readers, and the chart follows light and dark.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { deriveFacts } from '../../src/evidence/facts.ts';
import { withRunFacts } from '../../src/evidence/run-facts.ts';
import { POLICIES, ROLES } from '../../content/articles/075-local-uneven-weights/article.ts';
import { article075, experiment075 as experiment } from '../support/articles.ts';
import { environmentFolder, environmentsOf } from '../../src/experiment/environments.ts';
import { versionFolder, versionsOf } from '../../src/experiment/kubernetes.ts';
import { ROOT } from './support/evidence.ts';

const SLUG = '075-local-uneven-weights';
/** A run's facts, derived afresh from its folder with the extractors the build uses. */
function runFacts(dir: string) {
  const snapshots = loadSnapshots(dir);
  // The article's facts and the run's, as the build derives them.
  const defs = withRunFacts(
    article075.factDefs.filter((d) => !d.optional),
    snapshots.run,
  );
  return { runId: snapshots.run.runId, facts: deriveFacts(defs, snapshots) };
}
// Every environment 075 is measured in: the headline's run in snapshots/, each other's in snapshots.<environment>/.
const environments = environmentsOf(experiment);
const headline = environments[0]!;
// And every measured Kubernetes version's runs beside the headline version's (snapshots.<minor>[.<environment>]), keyed `<minor> <environment>`.
const versions = versionsOf(experiment);
const headlineVersion = versions[0]!.minor;
const runs = new Map<string, ReturnType<typeof runFacts>>(
  versions.flatMap((release) => {
    const folder = versionFolder(join(ROOT, 'content/articles', SLUG, 'snapshots'), release, versions[0]!);
    return existsSync(join(folder, 'run.yaml'))
      ? environments.map((e) => [`${release.minor} ${e}`, runFacts(environmentFolder(folder, e, headline))] as const)
      : [];
  }),
);
const { runId: headlineRun, facts } = runs.get(`${headlineVersion} ${headline}`)!;
const PAGES = [
  { lang: 'zh', path: `/${SLUG}/` },
  { lang: 'en', path: `/en/${SLUG}/` },
] as const;

async function strayDigits(page: Page): Promise<string[]> {
  return page.$eval('article[data-run]', (article) => {
    const allowed = '[data-fact], [data-measured], [data-ui], [data-not-measured], [data-source] pre, script, style';
    const stray: string[] = [];
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      if (!/(?<![\p{L}_-])\d/u.test(text)) continue;
      if (node.parentElement?.closest(allowed)) continue;
      stray.push(text.trim().slice(0, 80));
    }
    return stray;
  });
}

for (const { lang, path } of PAGES) {
  test(`${lang}: article 075 binds every value to its run, the chart included; its evidence page binds the other environment`, async ({ page }) => {
    const boundOn = async (url: string) => {
      await page.goto(url);
      await expect(page.locator('article[data-run]')).toHaveAttribute('data-run', headlineRun);
      const bound = await page.$$eval('[data-fact]', (els) =>
        els.map((el) => ({
          id: el.getAttribute('data-fact')!,
          step: el.getAttribute('data-step'),
          text: el.textContent,
          raw: el.getAttribute('data-raw'),
          environment: el.getAttribute('data-environment'),
          version: el.getAttribute('data-version'),
          run: el.getAttribute('data-run'),
        })),
      );
      for (const el of bound) {
        // Bound to the headline's run unless it names another environment, and then to that environment's run by its id.
        const measured = runs.get(`${el.version ?? headlineVersion} ${el.environment ?? headline}`);
        expect(measured, `data-fact="${el.id}": data-version="${el.version}" data-environment="${el.environment}" is measured`).toBeTruthy();
        expect(el.run, el.id).toBe(el.environment === null && el.version === null ? null : measured!.runId);
        const fact = measured!.facts.get(el.id);
        expect(fact, `data-fact="${el.id}" is a fact of its run`).toBeTruthy();
        expect([el.step, el.text, el.raw], el.id).toEqual([fact!.step, fact!.value, fact!.raw ?? null]);
      }
      return bound;
    };
    const onEvidence = await boundOn(`${path}evidence/`);
    expect(
      onEvidence.some((el) => el.environment !== null),
      'the evidence page binds the other environment',
    ).toBe(true);
    expect(await strayDigits(page)).toEqual([]);
    const bound = await boundOn(path);
    expect(bound.length).toBeGreaterThan(50);
    // The article's one sentence about the other runs: measured on several Kubernetes versions, it names
    // each (versions.spec.ts checks their runs); else it links the lab's run, bound to it.
    const lab = runs.get(`${headlineVersion} lab`)!;
    if ((await page.locator('p.evidence-link a[data-version]').count()) === 0)
      await expect(page.locator(`p.evidence-link a[data-environment="lab"][data-run="${lab.runId}"]`)).toHaveCount(1);
    await expect(page.locator('p.evidence-link a[href$="/evidence/"]')).toHaveCount(1);
    expect(await strayDigits(page)).toEqual([]);

    const chart = page.locator('figure[data-chart="shares"]');
    await expect(chart).toHaveCount(1);
    await expect(chart.locator('svg')).toHaveAttribute('aria-hidden', 'true');
    for (const policy of POLICIES) {
      for (const role of ROLES) {
        const id = `spread-${policy}.share.${role}`;
        await expect(chart.locator(`svg text[data-fact="${id}"]`)).toHaveText(facts.get(id)!.value);
        await expect(chart.locator(`table td [data-fact="${id}"]`)).toHaveText(facts.get(id)!.value);
      }
    }
    // Bars are drawn to their share: the lone pod's bar under Local is twice a shared pod's, near enough.
    const width = (i: number) =>
      chart
        .locator('rect.chart-bar')
        .nth(i)
        .evaluate((r) => Number(r.getAttribute('width')));
    const bars = await Promise.all([0, 1, 2, 3, 4, 5].map(width));
    const ratio = bars[3]! / ((bars[4]! + bars[5]!) / 2);
    const expected =
      Number(facts.get('spread-local.share.lone')!.raw) /
      ((Number(facts.get('spread-local.share.shared-1')!.raw) + Number(facts.get('spread-local.share.shared-2')!.raw)) / 2);
    expect(Math.abs(ratio - expected)).toBeLessThan(0.01);
    // The table is there for a screen reader, with a caption and column headers.
    const table = chart.locator('table');
    await expect(table.locator('caption')).toHaveText(await chart.locator('figcaption').innerText());
    expect(await table.locator('thead th').count()).toBe(6);
    expect(await table.locator('tbody tr th[scope="row"]').count()).toBe(6);
  });
}

for (const { lang, path } of PAGES) {
  test(`${lang}: declared values and numbers named in passing are marked as not measured`, async ({ page }) => {
    await page.goto(path);
    const declared = page.locator('[data-fact="declared.web.replicas"]').first();
    await expect(declared).toHaveAttribute('data-declared', 'manifests/web.yaml');
    await expect(declared).toHaveAttribute('data-step', 'declared');
    await expect(declared).toHaveText(facts.get('declared.web.replicas')!.value);
    const mark = await declared.evaluate((el) => getComputedStyle(el, '::after').content);
    expect(mark).toBe(lang === 'zh' ? '"声明"' : '"declared"');
    // Measured values carry no such mark.
    expect(await page.locator('[data-fact="spread-local.count.lone"]').first().getAttribute('data-declared')).toBeNull();
    const passing = page.locator('[data-not-measured]');
    expect(await passing.count()).toBeGreaterThan(0);
    expect(await passing.first().evaluate((el) => getComputedStyle(el, '::after').content)).toBe(lang === 'zh' ? '"非实测"' : '"not measured"');
  });
}

test('the chart follows the colour scheme: its text is the page text colour in light and dark', async ({ page }) => {
  const colours: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.goto(PAGES[1].path);
    const [text, body] = await Promise.all([
      page
        .locator('svg text.chart-value')
        .first()
        .evaluate((el) => getComputedStyle(el).fill),
      page.locator('body').evaluate((el) => getComputedStyle(el).color),
    ]);
    expect(text).toBe(body);
    colours.push(text);
  }
  expect(colours[0]).not.toBe(colours[1]);
});

for (const width of [375, 1280]) {
  test(`at ${width} px no text of the chart is drawn smaller than 12 px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(PAGES[0].path);
    const sizes = await page.locator('figure[data-chart="shares"] svg').evaluate((svg) => {
      // The SVG is scaled to its box: a text's size on screen is its font size times that scale.
      const scale = svg.getBoundingClientRect().width / (svg as SVGSVGElement).viewBox.baseVal.width;
      return [...svg.querySelectorAll('text, tspan')].map((t) => ({ text: t.textContent ?? '', px: parseFloat(getComputedStyle(t).fontSize) * scale }));
    });
    expect(sizes.length).toBeGreaterThan(6);
    expect(sizes.filter((s) => s.px < 12).map((s) => `${s.text} (${s.px.toFixed(1)} px)`)).toEqual([]);
  });
}
