// An article's one definition: the loader's one line per mistake (file and
// field named), and the type checker refusing a claim, line or path that reads
// a fact the definition does not declare.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { articleFrom, loadArticle } from '../../src/authoring/load.ts';
import { fromStep, stdout } from '../../src/authoring/article.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FILE = 'content/articles/076-x/article.ts';

test('both articles load through the one loader: ids from the keys, claims with their statements, parts', async () => {
  const a074 = await loadArticle(root, '074-external-traffic-policy');
  assert.equal(a074.file, 'content/articles/074-external-traffic-policy/article.ts');
  assert.ok(a074.factDefs.some((d) => d.id === 'cluster-via-worker.client' && d.step === 'cluster-via-worker'));
  assert.ok(a074.variantFactDefs?.nftables?.some((d) => d.id === 'nft-worker2.drop.verdict'));
  assert.ok(a074.claimDefs.every((c) => c.statement.zh && c.statement.en));
  assert.equal(a074.paths.length, 5);
  assert.equal(a074.walkthrough?.length, 6);
  const a075 = await loadArticle(root, '075-local-uneven-weights');
  assert.deepEqual(
    a075.charts.map((c) => c.id),
    ['shares'],
  );
});

test('a definition with mistakes: every one named by file and field, in one line each', () => {
  const bad = {
    experiment: { slug: '076-y' },
    facts: { 'a.b': stdout('a', /x/), 'a.c': 'curl' },
    lines: [],
    claims: [{ id: 'c', zh: 'z', en: 'e' }],
    charts: {},
  };
  assert.throws(
    () => articleFrom(bad, '076-x'),
    (error: Error) => {
      assert.deepEqual(error.message.split('\n'), [
        `${FILE}: field "experiment.slug": expected "076-x" (the folder's name), got "076-y"`,
        `${FILE}: field "facts", fact "a.c": expected a fact (stdout(...), http.status(...), fromStep(...), ...), got string`,
        `${FILE}: field "lines": expected each step's measured line, by step id, got a list`,
        `${FILE}: field "claims", item 1: expected { id, zh, en, holds }, got object`,
        `${FILE}: field "charts": expected a list, got object`,
      ]);
      return true;
    },
  );
  assert.throws(
    () => articleFrom(undefined, '076-x'),
    new RegExp(`^Error: ${FILE}: expected \`export default defineArticle\\(\\{...\\}\\)\`, got nothing as the default export$`),
  );
});

test('a missing definition: one line that says what an article is', async () => {
  await assert.rejects(
    loadArticle(root, '076-does-not-exist'),
    /^Error: content\/articles\/076-does-not-exist\/article\.ts: missing \(an article is one definition/,
  );
});

test('the loader keeps what it was given: ids from the keys, the spec as written', () => {
  const spec = fromStep('a', (s) => s.stdout);
  const article = articleFrom({ experiment: { slug: '076-x' }, facts: { 'a.out': spec }, lines: {} }, '076-x');
  assert.deepEqual(article.factDefs, [{ ...spec, id: 'a.out' }]);
  assert.deepEqual(article.claimDefs, []);
});

test("a fact id every run has already is refused by the loader, before a capture: a step's duration, a node's address, run.yaml's", async () => {
  const experiment = { slug: '076-x', cluster: { nodes: [{ name: 'control-plane' }, { name: 'worker' }] }, steps: [{ id: 'rules', kind: 'exec' }] };
  const spec = fromStep('rules', (s) => s.stdout);
  assert.throws(
    () =>
      articleFrom(
        {
          experiment,
          facts: { 'rules.seconds': spec, 'rules.dropRule': spec, 'node.worker.ip': spec },
          variantFacts: { nftables: { 'version.kube-proxy': spec } },
          lines: {},
        },
        '076-x',
      ),
    (error: Error) => {
      assert.deepEqual(
        error.message.split('\n').filter((l) => l.includes('every run has this fact')),
        [
          `${FILE}: field "facts", fact "rules.seconds": every run has this fact already (step "rules"'s duration, src/evidence/run-facts.ts); expected an id of its own, e.g. "rules.<what it reads>"`,
          `${FILE}: field "facts", fact "node.worker.ip": every run has this fact already (node worker's ip, src/evidence/run-facts.ts); expected an id of its own, e.g. "node.worker.<what it reads>"`,
          `${FILE}: field "variantFacts.nftables", fact "version.kube-proxy": every run has this fact already (from run.yaml, src/evidence/run-facts.ts); expected an id of its own, e.g. "version.<what it reads>"`,
        ],
      );
      return true;
    },
  );
});

test("the ids the loader reserves are ids runs really have: every one a committed run derives, the manifests' Pods and Services aside", async () => {
  const { runFactCollisions, runFacts } = await import('../../src/evidence/run-facts.ts');
  const { loadSnapshots } = await import('../../src/evidence/load.ts');
  for (const slug of ['074-external-traffic-policy', '075-local-uneven-weights', '076-internal-traffic-policy']) {
    const snapshots = loadSnapshots(join(root, 'content/articles', slug, 'snapshots.lab'), { slug });
    const run = snapshots.run;
    const ids = runFacts(run)
      .map((d) => d.id)
      .filter((id) => !/^(pod|service)\./.test(id));
    const reserved = runFactCollisions(
      ids,
      run.steps,
      run.nodes.map((n) => n.name),
    );
    assert.deepEqual(
      ids.filter((id) => !reserved.has(id)),
      [],
      `${slug}: run facts the loader would not know`,
    );
  }
});

/** What `tsc` says of one definition, written beside the project's sources so its imports resolve. */
function typeCheck(source: string): { status: number | null; out: string } {
  const dir = mkdtempSync(join(root, 'tests', '.types-'));
  try {
    writeFileSync(join(dir, 'article.ts'), source);
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const r = spawnSync(
      process.execPath,
      [
        tsc,
        '--ignoreConfig',
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'esnext',
        '--module',
        'nodenext',
        '--allowImportingTsExtensions',
        '--types',
        'node',
        join(dir, 'article.ts'),
      ],
      { cwd: root, encoding: 'utf8' },
    );
    return { status: r.status, out: r.stdout + r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const definition = (lines: string, claim: string, hopSource: string, healthStep = 'h') => `
import { defineArticle, curlFacts, healthCheckFacts, healthCheckLine, hop, path, type FactIdOf } from '../../src/authoring/article.ts';
import type { Experiment } from '../../src/experiment/types.ts';
declare const experiment: Experiment;
const facts = { ...curlFacts('a', 'answered'), ...healthCheckFacts('h') };
type Id = FactIdOf<typeof facts>;
export default defineArticle({
  experiment,
  facts,
  lines: {
    a: { zh: ${JSON.stringify(lines)}, en: 'curl exited {a.rc}' },
    h: healthCheckLine(${JSON.stringify(healthStep)}, 'worker {node.worker.ip}（有本地后端）', 'Health check on worker'),
  },
  claims: [{ id: 'c', zh: 'z', en: 'e', holds: (v) => v(${JSON.stringify(claim)}) === '0' }],
  paths: [path<Id>({ id: 'p', title: { zh: 'z', en: 'e' }, stations: [], route: [], hops: [hop<Id>('client', 'node', ${JSON.stringify(hopSource)}, 'node.worker.ip')] })],
});
`;

test('fact ids are typed: a line, claim or path that reads an undeclared fact fails the type check', { timeout: 120_000 }, () => {
  const good = typeCheck(definition('{a.client} via {node.worker.ip}', 'a.rc', 'a.client'));
  assert.equal(good.status, 0, `a definition reading only declared and run facts type-checks:\n${good.out}`);
  const bad = typeCheck(definition('{a.clientt}', 'a.nope', 'a.cleint'));
  assert.notEqual(bad.status, 0);
  assert.match(bad.out, /reads an undeclared fact: \{a\.clientt\}/, 'the line');
  const health = typeCheck(definition('{a.client}', 'a.rc', 'a.client', 'hh'));
  assert.match(health.out, /reads an undeclared fact: \{hh\.(status|reason|localEndpoints)\}/, "a health check's line built by healthCheckLine");
  assert.match(bad.out, /Argument of type '"a\.nope"' is not assignable/, 'the claim');
  assert.match(bad.out, /'"a\.cleint"' is not assignable/, 'the path');
});
