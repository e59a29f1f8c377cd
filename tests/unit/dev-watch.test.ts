// `npm run dev` re-runs the evidence checks when an article's prose, facts,
// claims or snapshots change: which files do. The dev server itself is tested
// in tests/dev/ (a suite of its own, on a copy of the project).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isEvidenceSource, recompileMdxOnEvidence } from '../../src/article/check/integration.ts';

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

test("a change to what an article's <Fact>s read is a change to its MDX files: Vite compiles them again", () => {
  const plugin = recompileMdxOnEvidence(root);
  const dir = join(root, 'content/articles/074-external-traffic-policy');
  // The module graph of a dev server that has compiled the article's Chinese and English MDX.
  const compiled = new Map([join(dir, 'zh.mdx'), join(dir, 'en.mdx')].map((file) => [file, new Set([{ id: `${file}?astroContentModuleFlag`, file }])]));
  const environment = { moduleGraph: { getModulesByFile: (file: string) => compiled.get(file) } };
  const { hotUpdate } = plugin as unknown as { hotUpdate: (this: unknown, update: { file: string; modules: unknown[] }) => unknown[] | undefined };
  const changed = (file: string, modules: unknown[] = []) => hotUpdate.call({ environment }, { file, modules });
  const mdx = [...compiled.values()].flatMap((m) => [...m]);
  for (const p of ['snapshots/run.yaml', 'snapshots.lab.nftables/curl-local.yaml', 'article.ts', 'manifests/backend.yaml'])
    assert.deepEqual(new Set(changed(join(dir, p))), new Set(mdx), p);
  const other = { id: 'other' };
  assert.deepEqual(new Set(changed(join(dir, 'snapshots/run.yaml'), [other])), new Set([other, ...mdx]), 'with what else changed');
  // An edit of the MDX itself is Vite's own business; a file no article reads is none of this.
  for (const p of [
    'content/articles/074-external-traffic-policy/en.mdx',
    'content/articles/074-external-traffic-policy/notes.txt',
    'src/article/render/chart.ts',
  ])
    assert.equal(changed(join(root, p)), undefined, p);
});
