// Article 074 bound to two runs, on its evidence page: the comparison across
// kube-proxy's modes has a column per measured run and every cell bound to, and
// equal to, its own run's snapshot; the nftables run's output and record have
// places of their own.
import { expect, test } from '@playwright/test';
import { article074 } from '../support/articles.ts';
import { committedSnapshots, deriveRuns, HEADLINE_074, numericTokens, SLUG, VARIANTS_074, type Variant074 } from './support/evidence.ts';

const LANGS = [
  { lang: 'zh' as const, path: `/${SLUG}/` },
  { lang: 'en' as const, path: `/en/${SLUG}/` },
];

const runs = deriveRuns(committedSnapshots);
const comparisonRows = article074.comparisonRows!;

for (const { lang, path } of LANGS) {
  test(`${lang}: every cell of the comparison is bound and equals its variant's snapshot`, async ({ page }) => {
    await page.goto(`${path}evidence/`);
    const figure = page.locator('figure.variant-comparison');
    await expect(figure).toHaveCount(1);
    await expect(figure).toHaveAttribute('data-comparison', VARIANTS_074.join(' '));

    const header = await figure
      .locator('thead th[data-variant]')
      .evaluateAll((ths) => ths.map((th) => ({ variant: th.getAttribute('data-variant'), run: th.getAttribute('data-run') })));
    expect(header).toEqual(VARIANTS_074.map((variant) => ({ variant, run: runs[HEADLINE_074][variant].runId })));

    const rows = await figure.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        row: tr.getAttribute('data-row'),
        label: tr.querySelector('th')?.textContent ?? '',
        cells: [...tr.querySelectorAll('td')].map((td) => ({
          bound: [...td.querySelectorAll('[data-fact]')].map((el) => ({
            id: el.getAttribute('data-fact'),
            step: el.getAttribute('data-step'),
            variant: el.getAttribute('data-variant'),
            run: el.getAttribute('data-run'),
            raw: el.getAttribute('data-raw'),
            text: el.textContent ?? '',
          })),
          text: td.textContent ?? '',
        })),
      })),
    );
    expect(rows.map((r) => r.row)).toEqual(comparisonRows.map((r) => r.fact));
    for (const [i, row] of rows.entries()) {
      expect(row.label).toBe(comparisonRows[i]!.label[lang]);
      expect(row.cells.length, `${row.row}: a cell per measured run`).toBe(VARIANTS_074.length);
      for (const [j, cell] of row.cells.entries()) {
        const variant = VARIANTS_074[j]! as Variant074;
        const evidence = runs[HEADLINE_074][variant];
        expect(cell.bound.length, `${row.row} (${variant}): the cell is one bound value`).toBe(1);
        const el = cell.bound[0]!;
        expect(cell.text, `${row.row} (${variant}): nothing but the bound value`).toBe(el.text);
        expect(el.id).toBe(row.row);
        expect(el.variant).toBe(variant);
        expect(el.run, `${row.row} (${variant}): the run id of its own run`).toBe(evidence.runId);
        const fact = evidence.facts.get(el.id!)!;
        expect(el.step).toBe(fact.step);
        expect(el.text, `${row.row} (${variant}): the value of that run`).toBe(fact.value);
        expect(el.raw).toBe(fact.raw ?? null);
        // Independent of the extractors: the number is written in that run's own snapshot file.
        const file = evidence.rawFiles.get(el.step!)!;
        for (const token of numericTokens(el.raw ?? el.text)) expect(file, `${row.row} (${variant}): "${token}" in its snapshot`).toContain(token);
      }
    }

    // Which modes were measured and which were not.
    expect(await figure.locator('[data-variant-measured]').evaluateAll((els) => els.map((e) => e.textContent))).toEqual([...VARIANTS_074]);
    expect(await figure.locator('[data-variant-not-measured]').evaluateAll((els) => els.map((e) => e.textContent))).toEqual(['ipvs']);
  });

  test(`${lang}: the nftables run's table, figure and record have their own places, bound to that run`, async ({ page }) => {
    await page.goto(`${path}evidence/`);
    const nft = runs[HEADLINE_074].nftables;
    const figure = page.locator('figure[data-measured="local-via-worker2 nft-worker2"][data-variant="nftables"]');
    await expect(figure).toHaveAttribute('data-run', nft.runId);
    // The nftables run's raw output is on its own record, where the figure links; the article's own run keeps its places in the article.
    const record = `${path}run/nftables/`;
    await expect(figure.locator(`.measured-links a[href="${record}#output-nft-worker2"]`)).toHaveCount(1);
    await expect(page.locator('#output-nftables-nft-worker2')).toHaveCount(0);
    await expect(page.locator('#provenance-nftables')).toHaveAttribute('data-run', nft.runId);
    await expect(page.locator('#provenance-nftables [data-fact="run.id"]').first()).toHaveText(nft.runId);
    await expect(page.locator(`#provenance-nftables a[href="${record}"]`)).toHaveCount(1);

    await page.goto(`${record}#output-nft-worker2`);
    await expect(page.locator('.run-record')).toHaveAttribute('data-run', nft.runId);
    const output = page.locator('#output-nft-worker2');
    await expect(output).toBeVisible();
    await expect(output).toContainText('map no-endpoint-nodeports');
    await expect(output).toContainText(nft.facts.get('nft-worker2.drop.element')!.value);
    await expect(page.locator('#run-step-nft-worker2')).toHaveCount(1);
    // Every value on the nftables record is bound to that run.
    for (const el of await page.$$eval('[data-fact]', (els) =>
      els.map((e) => ({ variant: e.getAttribute('data-variant'), run: e.getAttribute('data-run') })),
    )) {
      expect(el).toEqual({ variant: 'nftables', run: nft.runId });
    }
    await page.goto(path);
    await expect(page.locator('#output-local-via-worker2')).toHaveCount(1);
    await page.goto(`${path}evidence/`);
    for (const href of await page.locator('figure.variant-comparison thead a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))) {
      await expect(page.locator(href!)).toHaveCount(1);
    }
  });
}
