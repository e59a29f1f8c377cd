// The series' common ground, declared once: an article gets it by extending it,
// and what it gives itself wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubernetesSeries } from '../../src/authoring/series.ts';
import { experiment074 } from '../support/articles.ts';

test("074's experiment is the series' ground plus its own slug, manifests, steps and modes", () => {
  const { slug, manifests, steps, variants } = experiment074;
  assert.deepEqual(kubernetesSeries({ slug, manifests, steps, ...(variants ? { variants } : {}) }), experiment074);
  assert.deepEqual(experiment074.environments, ['kind', 'lab']);
  assert.deepEqual(experiment074.kubernetes, ['v1.37', 'v1.36', 'v1.35', 'v1.34']);
  assert.equal(experiment074.client, 'control-plane');
});

test('an article that differs says so and wins; no two articles share an array', () => {
  const own = { slug: '099-x', manifests: [], steps: [] };
  const oneRelease = kubernetesSeries({ ...own, kubernetes: ['v1.37'], environments: ['lab'] });
  assert.deepEqual([oneRelease.kubernetes, oneRelease.environments], [['v1.37'], ['lab']]);
  const [a, b] = [kubernetesSeries(own), kubernetesSeries(own)];
  a.kubernetes!.pop();
  assert.equal(b.kubernetes!.length, 4, "one article's change to its copy is not another's");
});
