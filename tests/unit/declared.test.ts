// Numbers that are not measurements: values the manifests declare bind as
// declared facts, and a number named in passing goes through <NotMeasured>,
// the one explicit element; any other digit in prose is still refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manifestValue } from '../../src/evidence/extract/manifest.ts';
import { declared } from '../../src/evidence/fact-kit.ts';
import { deriveFacts } from '../../src/evidence/facts.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { factHtml } from '../../src/article/render/fact-html.ts';
import { checkArticleSources } from '../../src/article/check/check-article.ts';

const SLUG = '075-local-uneven-weights';
const MANIFEST =
  'kind: ConfigMap\nmetadata: {name: c}\n---\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  template: {spec: {containers: [{name: n, ports: [{containerPort: 80}]}]}}\n';

test('a manifest value: by Kind/name and dotted path, list items by index; what is missing is named', () => {
  assert.equal(manifestValue(MANIFEST, 'Deployment/web', 'spec.replicas'), '3');
  assert.equal(manifestValue(MANIFEST, 'Deployment/web', 'spec.template.spec.containers.0.ports.0.containerPort'), '80');
  assert.throws(() => manifestValue(MANIFEST, 'Deployment/api', 'spec.replicas'), /^ExtractError: no document Deployment\/api$/);
  assert.throws(
    () => manifestValue(MANIFEST, 'Deployment/web', 'spec.template'),
    /Deployment\/web: field spec\.template: expected a number, a string or a boolean, got object/,
  );
  assert.throws(() => manifestValue(MANIFEST, 'web', 'spec'), /object "web": expected Kind\/name/);
});

test("a declared fact reads the article's manifest, carries its file and is marked as declared on the page", () => {
  const snapshots = loadSnapshots(`content/articles/${SLUG}/snapshots`);
  const facts = deriveFacts([{ id: 'declared.web.replicas', ...declared('manifests/web.yaml', 'Deployment/web', 'spec.replicas') }], snapshots);
  const fact = facts.get('declared.web.replicas')!;
  assert.deepEqual(fact, { id: 'declared.web.replicas', step: 'declared', value: '3', declared: { file: 'manifests/web.yaml' } });
  assert.equal(
    factHtml(fact, undefined, { mark: 'declared', title: 'Declared in ' }),
    '<span class="declared" data-fact="declared.web.replicas" data-step="declared" data-declared="manifests/web.yaml" data-mark="declared" title="Declared in manifests/web.yaml">3</span>',
  );
  assert.throws(
    () => deriveFacts([{ id: 'declared.x', ...declared('manifests/missing.yaml', 'Deployment/web', 'spec.replicas') }], snapshots),
    /^EvidenceError: manifests\/missing\.yaml: fact "declared\.x": cannot read the manifest manifests\/missing\.yaml \(ENOENT\)$/,
  );
});

test('<NotMeasured> is the one way to write a literal number in prose; outside it the number is refused', () => {
  const evidence = { factIds: [], stepIds: [] };
  const ok = checkArticleSources(
    [{ lang: 'en', file: 'en.mdx', source: 'As <NotMeasured>RFC 7231</NotMeasured> says, pod <NotMeasured>2</NotMeasured> goes first.\n' }],
    evidence,
  );
  assert.deepEqual(ok, []);
  const refused = checkArticleSources([{ lang: 'en', file: 'en.mdx', source: 'As RFC 7231 says, port `8080` is used.\n' }], evidence);
  assert.ok(refused.length >= 2, refused.join('\n'));
  assert.match(refused.join('\n'), /en\.mdx:1/);
});
