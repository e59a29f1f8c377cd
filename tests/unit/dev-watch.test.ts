// `npm run dev` re-runs the evidence checks when an article's prose, facts,
// claims or snapshots change: which files do. The dev server itself is tested
// in tests/dev/ (a suite of its own, on a copy of the project).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isEvidenceSource } from '../../src/article/check/integration.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('which files re-run the checks', () => {
  const at = (p: string) => join(root, p);
  for (const p of [
    'content/articles/075-x/zh.mdx',
    'content/articles/075-x/facts.ts',
    'content/articles/075-x/claims.ts',
    'content/articles/075-x/snapshots/run.yaml',
    'content/articles/075-x/manifests/web.yaml',
  ])
    assert.ok(isEvidenceSource(root, at(p)), p);
  for (const p of ['src/article/render/chart.ts', 'content/articles/075-x/notes.txt', 'content/articles/075-x/snapshots/sub/a.yaml'])
    assert.ok(!isEvidenceSource(root, at(p)), p);
});
