// The bench's site generation for real, at its smallest size: one copy of the
// bench's default article in an evidence site and in its floor, each built once
// by astro, cold, as `npm run bench`'s growth phase builds them. The bench runs
// for minutes and only by hand, so a change that stops its copies building
// (an article linking to one the copies' site does not hold: 074 links 075 with
// <ArticleLink>) would otherwise go unseen until its figures read "not measured".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULTS, parseBenchArgs } from '../../bench/cli-args.ts';
import { growthFigures, growthSeries } from '../../bench/measure/growth.ts';
import type { BenchContext } from '../../bench/measure/context.ts';
import { createProgress } from '../../bench/progress.ts';
import { ARTICLES_DIR, isSnapshotFolder } from '../../bench/site/temp-project.ts';
import { scanMdx } from '../../src/evidence/mdx-scan.ts';
import { LANGS } from '../../src/site.config.ts';

const root = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const slug = DEFAULTS.article;

test("the bench's default article links another article, which its copies' site does not hold", async () => {
  const targets = new Set<string>();
  for (const lang of LANGS) {
    const mdx = await readFile(join(root, ARTICLES_DIR, slug, `${lang}.mdx`), 'utf8');
    for (const tag of scanMdx(mdx).tags) {
      const target = tag.name === 'ArticleLink' && !tag.closing ? tag.attributes.find((a) => a.name === 'slug') : undefined;
      if (target?.kind === 'string' && target.value !== undefined) targets.add(target.value);
    }
  }
  // Without such a link the build below would not show that the copies build whatever the article links to.
  assert.ok(
    [...targets].some((t) => t !== slug),
    `${slug} links no other article (${[...targets].join(', ') || 'no <ArticleLink>'})`,
  );
});

test("the growth phase's smallest site and its floor build, and the size's figure is a measured number", { timeout: 180_000 }, async () => {
  const lines: string[] = [];
  const ctx: BenchContext = {
    root,
    args: { ...parseBenchArgs([]), buildTimeoutSeconds: 150 },
    progress: createProgress({ write: (line: string) => lines.push(line) }),
    cancelSignal: new AbortController().signal,
    cleanups: new Set(),
  };
  const series = await growthSeries(ctx, slug, [{ set: 'all', sizes: [1] }], 1);
  const progress = lines.join('');
  for (const [site, runs] of Object.entries({ evidence: series.evidence, floor: series.floor })) {
    assert.equal(runs.length, 1);
    assert.equal(runs[0]!.failure, null, `the ${site} site of 1 copy: ${runs[0]!.failure}\n${progress}`);
    assert.equal(runs[0]!.builds.length, 1, `the ${site} site of 1 copy built once\n${progress}`);
    // The copy's two article pages at least; the evidence site adds its evidence pages and run records.
    assert.ok(runs[0]!.builds[0]!.htmlFiles >= LANGS.length, `${site}: ${runs[0]!.builds[0]!.htmlFiles} HTML files`);
  }
  assert.equal(series.evidence[0]!.builds[0]!.htmlFiles, series.floor[0]!.builds[0]!.htmlFiles, 'the floor builds the same pages: its run records too');
  const runFolders = readdirSync(join(root, 'content/articles', slug)).filter(isSnapshotFolder).length;
  assert.deepEqual(
    series.pagesPerCopy,
    { article: LANGS.length, evidence: LANGS.length, record: runFolders * LANGS.length },
    'a record per run folder and language',
  );
  assert.equal(ctx.cleanups.size, 0, 'the copies were removed');

  const figure = growthFigures(series.evidence, series.floor).find((f) => f.id === 'growth.1');
  assert.ok(figure, 'a figure for the size of 1 article');
  assert.equal(figure.status, 'measured', figure.reason);
  assert.equal(typeof figure.value, 'number');
  assert.ok(Number.isFinite(figure.value) && (figure.value as number) > 0, `growth.1 = ${figure.value}`);
  assert.equal(figure.value, series.evidence[0]!.builds[0]!.seconds);
  assert.match(figure.note!, /s CPU|CPU unknown/);
});
