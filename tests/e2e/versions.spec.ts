// Kubernetes versions where readers look: the evidence page's claim matrix has a
// table per measured version, every cell bound to that version's own run and
// linking to its record; the article's sentence names the versions its claims
// held on, each bound to a run of that version; a declared version without runs
// is named as not measured. Expectations are read from the committed runs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { expect, test } from '@playwright/test';
import { articlePathOf, LANGS } from './support/articles.ts';
import { ROOT } from './support/evidence.ts';
import { article074, article075, article076 } from '../support/articles.ts';
import { headlineVersion, versionsOf } from '../../src/experiment/kubernetes.ts';

/** A version's runs as their run.yaml records them (id, and the release the API server answered), from every snapshots folder of that version. */
function runsOf(slug: string, minor: string, headline: string): Array<{ runId: string; kubernetes: string }> {
  const dir = join(ROOT, 'content/articles', slug);
  const ofVersion = (name: string) => {
    const version = /^snapshots\.(v\d+\.\d+)(\.|$)/.exec(name)?.[1] ?? headline;
    return version === minor;
  };
  return readdirSync(dir)
    .filter((name) => /^snapshots(\.|$)/.test(name) && ofVersion(name) && existsSync(join(dir, name, 'run.yaml')))
    .map((name) => load(readFileSync(join(dir, name, 'run.yaml'), 'utf8')) as { runId: string; versions: { kubernetes: string } })
    .map((run) => ({ runId: run.runId, kubernetes: run.versions.kubernetes }));
}

/** The run ids of a version's runs, sorted. */
const runIdsOf = (slug: string, minor: string, headline: string): string[] =>
  runsOf(slug, minor, headline)
    .map((r) => r.runId)
    .sort();

for (const article of [article074, article075, article076]) {
  const slug = article.experiment.slug;
  const headline = headlineVersion(article.experiment).minor;
  const declared = versionsOf(article.experiment).map((r) => r.minor);
  const measured = declared.filter((minor) => runIdsOf(slug, minor, headline).length > 0);
  const notMeasured = declared.filter((minor) => !measured.includes(minor));

  for (const lang of LANGS) {
    test(`${articlePathOf(lang, slug)}evidence/: a table per measured Kubernetes version, each cell bound to that version's run`, async ({ page }) => {
      await page.goto(`${articlePathOf(lang, slug)}evidence/`);
      const tables = page.locator('.claim-matrix .table-scroll[data-version]');
      expect(await tables.evaluateAll((els) => els.map((e) => e.getAttribute('data-version')))).toEqual(measured);
      for (const minor of measured) {
        const ids = runIdsOf(slug, minor, headline);
        const cells = await page
          .locator(`.claim-matrix td.claim-cell[data-version="${minor}"]`)
          .evaluateAll((tds) => tds.map((td) => ({ run: td.getAttribute('data-run')!, href: td.querySelector('a')?.getAttribute('href') ?? null })));
        expect(cells.length, minor).toBeGreaterThan(0);
        expect([...new Set(cells.map((c) => c.run))].sort(), `${minor}: every run of the version has its column`).toEqual(ids);
        const record = `${articlePathOf(lang, slug)}run/${minor === headline ? '' : `${minor}/`}`;
        for (const cell of cells) if (cell.href !== null) expect(cell.href.startsWith(record), `${minor}: ${cell.href}`).toBe(true);
        // The table names the release its run's API server answered: a release of that minor.
        const caption = page.locator(`.claim-matrix .table-scroll[data-version="${minor}"] caption [data-fact="version.kubernetes"]`);
        // ... the very release its bound run's run.yaml records.
        const boundRun = await caption.getAttribute('data-run');
        const bound = runsOf(slug, minor, headline).find((r) => r.runId === boundRun);
        expect(bound, `${minor}: the caption is bound to a run of the version`).toBeTruthy();
        await expect(caption).toHaveText(bound!.kubernetes);
        expect(bound!.kubernetes.startsWith(`${minor}.`), `${minor}: its run answered ${bound!.kubernetes}`).toBe(true);
      }
      if (notMeasured.length)
        await expect(page.locator('.claim-matrix [data-versions-not-measured]')).toHaveAttribute('data-versions-not-measured', notMeasured.join(' '));
      else await expect(page.locator('.claim-matrix [data-versions-not-measured]')).toHaveCount(0);
    });

    test(`${articlePathOf(lang, slug)}: the one sentence names the versions the claims held on, each bound to a run of it`, async ({ page }) => {
      await page.goto(articlePathOf(lang, slug));
      const sentence = page.locator('p.evidence-link');
      if (measured.length > 1) {
        const links = await sentence
          .locator('a[data-version]')
          .evaluateAll((as) =>
            as.map((a) => ({ version: a.getAttribute('data-version')!, run: a.getAttribute('data-run')!, href: a.getAttribute('href')!, text: a.textContent })),
          );
        const named = links.filter((l) => l.text === l.version);
        expect(named.map((l) => l.version)).toEqual(measured);
        for (const link of named) {
          expect(runIdsOf(slug, link.version, headline), link.version).toContain(link.run);
          const response = await page.request.get(link.href);
          expect(response.status(), link.href).toBe(200);
          expect(await response.text(), `${link.href} is the record of ${link.run}`).toContain(link.run);
        }
      }
      if (notMeasured.length)
        await expect(sentence.locator('[data-versions-not-measured]')).toHaveAttribute('data-versions-not-measured', notMeasured.join(' '));
    });
  }
}
