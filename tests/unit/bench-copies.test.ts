import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { copySlug, renameExperimentSlug, renameRunSlug, renumberSeries } from '../../bench/site/copies.ts';
import { slugProblem } from '../../src/i18n/urls.ts';

const ZH = `---
title: externalTrafficPolicy:保住客户端地址,还是多绕一跳
date: 2026-12-02
lang: zh
series:
  name: Kubernetes
  number: 74
---

正文里的 number: 74 不是 frontmatter。
`;

test('copy slugs are valid site slugs, numbered and sortable', () => {
  assert.equal(copySlug('074-external-traffic-policy', 7), '074-external-traffic-policy-b0007');
  assert.equal(slugProblem(copySlug('074-external-traffic-policy', 200)), null);
  assert.throws(() => copySlug('x', 0), /copySlug: expected an index >= 1, got 0/);
});

test('the series number changes in the frontmatter only', () => {
  const out = renumberSeries(ZH, 'zh.mdx', 12);
  assert.match(out, /^series:\n {2}name: Kubernetes\n {2}number: 12$/m);
  assert.match(out, /正文里的 number: 74 不是 frontmatter。/);
  assert.equal(out.replace('number: 12', 'number: 74'), ZH);
});

test('a frontmatter without series.number is an error naming the file and the field', () => {
  assert.throws(() => renumberSeries('no frontmatter', 'a/zh.mdx', 1), /a\/zh\.mdx: expected a frontmatter block/);
  assert.throws(
    () => renumberSeries('---\ntitle: x\nnumber: 3\n---\n', 'a/en.mdx', 1),
    /a\/en\.mdx: frontmatter field "series\.number": expected a line " {2}number: <n>" under "series:"/,
  );
});

test("article.ts's experiment and run.yaml get the copy's slug", () => {
  const experiment = "const experiment: Experiment = {\n  slug: '074-external-traffic-policy',\n  cluster: threeNodeCluster(),\n";
  assert.match(renameExperimentSlug(experiment, 'article.ts', '074-external-traffic-policy', 'x-b0001'), /slug: 'x-b0001',/);
  assert.throws(() => renameExperimentSlug(experiment, 'article.ts', 'other', 'x'), /article\.ts: field "slug": expected exactly one slug: 'other', found 0/);
  // The article's own definition names its slug once: its experiment's.
  const article = readFileSync(new URL('../../content/articles/074-external-traffic-policy/article.ts', import.meta.url), 'utf8');
  assert.match(renameExperimentSlug(article, 'article.ts', '074-external-traffic-policy', 'x-b0001'), /slug: 'x-b0001',/);
  const run = 'schema: 1\nslug: 074-external-traffic-policy\nrunId: 20261202T114747Z-152be1\n';
  assert.equal(renameRunSlug(run, 'run.yaml', '074-external-traffic-policy', 'x-b0001'), 'schema: 1\nslug: x-b0001\nrunId: 20261202T114747Z-152be1\n');
  assert.throws(
    () => renameRunSlug('schema: 1\n', 'snapshots/run.yaml', 'a', 'b'),
    /snapshots\/run\.yaml: field "slug": expected exactly one top-level "slug: a" line, found 0/,
  );
});
