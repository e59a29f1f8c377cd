// Every claim of article 074 holds on the committed snapshots and breaks on a
// run where its observation changes; a broken claim stops the build with its
// name, statement, values and files, unless the build is a draft.
import { versionsOf } from '../../src/experiment/kubernetes.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCommittedRuns } from '../support/snapshot-root.ts';
import { fileURLToPath } from 'node:url';
import { load, dump } from 'js-yaml';
import { buildArticleEvidence } from '../../src/evidence/runs/build.ts';
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';
import { checkArticles } from '../../src/article/check/integration.ts';
import { checkClaimDefs, evaluateClaims, formatBrokenClaims, type ClaimDef } from '../../src/evidence/claims.ts';
import { linesOfVariant } from '../../src/evidence/runs/variants.ts';
import { article074 } from '../support/articles.ts';
import { loadArticle, type Article } from '../../src/authoring/load.ts';
import type { KubeProxyMode } from '../../src/experiment/types.ts';

/** The measured lines of article 074's default run (iptables). */
const lines = linesOfVariant(article074.lines, article074.experiment, 'iptables');

/** The facts of article 074's default run (iptables): the common ones and that variant's own. */
const facts = [...article074.factDefs, ...article074.variantFactDefs!.iptables!];
const allClaims = article074.claimDefs;

const SLUG = '074-external-traffic-policy';
const root = fileURLToPath(new URL('../../', import.meta.url));
const committed = join(root, 'content/articles', SLUG, 'snapshots');
/** The claims about the default run (iptables); nftables-only claims and comparisons: variants.test.ts. */
const claims = allClaims.filter((c) => c.variants === undefined || c.variants.includes('iptables'));

function evidenceOf(dir: string) {
  return buildArticleEvidence({
    slug: SLUG,
    snapshotsDir: dir,
    factDefs: facts,
    lines,
    linesFile: article074.file,
    claimDefs: claims,
    claimsFile: article074.file,
  });
}

type Mutation = (dir: string) => void;
const edit =
  (file: string, change: (data: Record<string, unknown>) => void): Mutation =>
  (dir) => {
    const path = join(dir, file);
    const data = load(readFileSync(path, 'utf8')) as Record<string, unknown>;
    change(data);
    writeFileSync(path, dump(data, { lineWidth: -1 }));
  };
const stdout = (file: string, from: RegExp, to: string) =>
  edit(file, (s) => {
    s['stdout'] = String(s['stdout']).replace(from, to);
  });

/** The real client's address in the committed run: the value a run that stopped hiding it would show. */
const controlPlaneIp = () => evidenceOf(committed).facts.get('node.control-plane.ip')!.value;

/** For each claim, a run in which what it asserts is no longer observed. */
const breaking: Record<string, Mutation> = {
  'cluster-hides-client': (dir) => stdout('cluster-via-worker2.yaml', /client=.*/, `client=${controlPlaneIp()}`)(dir),
  'cluster-same-node-sees-gateway': stdout('cluster-via-worker.yaml', /client=.*/, 'client=10.244.1.77'),
  'cluster-forward-sees-forwarding-node': stdout('cluster-via-worker2.yaml', /client=.*/, 'client=10.244.2.1'),
  'local-keeps-client': stdout('local-via-worker.yaml', /client=.*/, 'client=10.244.9.9'),
  'local-drops-without-backend': edit('local-via-worker2.yaml', (s) => {
    s['exitCode'] = 7;
    s['stderr'] = 'curl: (7) Failed to connect to 172.18.0.4 port 30154 after 2 ms: Connection refused\n';
  }),
  'nodeport-local-has-no-health-port': edit('run.yaml', (r) => {
    (r['services'] as { name: string; healthCheckNodePort: number | null }[]).find((s) => s.name === 's-local')!.healthCheckNodePort = 31999;
  }),
  'health-check-follows-local-endpoints': stdout('health-worker-after-delete.yaml', /^HTTP\/1\.1 503 Service Unavailable/, 'HTTP/1.1 200 OK'),
  'cluster-extra-hop': stdout('conntrack-worker2.yaml', /(dport=\d+ )src=\S+/, '$1src=10.244.1.99'),
  // s-cluster's mark limited to the node's own traffic, as s-local's is: external connections would no longer be SNATed.
  'nat-masquerades-cluster-not-local': stdout(
    'iptables-worker.yaml',
    /(--comment "masquerade traffic for default\/s-cluster external destinations")/,
    '$1 -m addrtype --src-type LOCAL',
  ),
};

function mutatedRun(mutate: Mutation): { root: string; dir: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-claims-'));
  const dir = join(tmp, SLUG);
  // Every article's committed runs, so that a build from this root sees every article.
  copyCommittedRuns(root, tmp);
  mutate(dir);
  return { root: tmp, dir };
}

test('every claim holds on the committed snapshots', () => {
  const results = evidenceOf(committed).claims;
  assert.deepEqual(results.map((r) => r.id).sort(), claims.map((c) => c.id).sort());
  for (const r of results) assert.equal(r.status, 'holds', `${r.id}: ${formatBrokenClaims([r]).join('')}`);
});

for (const claim of claims) {
  test(`claim ${claim.id} breaks on a run where its observation changes, and only the claims reading that value break`, () => {
    const mutate = breaking[claim.id];
    assert.ok(mutate, `a breaking run is declared for ${claim.id}`);
    const run = mutatedRun(mutate);
    try {
      const results = evidenceOf(run.dir).claims;
      const broken = results.filter((r) => r.status === 'broken');
      assert.ok(
        broken.some((r) => r.id === claim.id),
        `${claim.id} is reported broken`,
      );
      for (const r of broken) assert.ok(r.values.length > 0);
    } finally {
      rmSync(run.root, { recursive: true, force: true });
    }
  });
}

test('a broken claim fails the build check with its name, statement, values and snapshot files; a draft build only warns', async () => {
  // Two claims broken: one by a step's output, one by run.yaml. A claim's values are the facts its check read
  // before it was decided, each with the file it came from.
  const run = mutatedRun((dir) => {
    breaking['local-drops-without-backend']!(dir);
    breaking['nodeport-local-has-no-health-port']!(dir);
  });
  try {
    const strict = await checkArticles(root, { SHICE_SNAPSHOT_ROOT: run.root }, { only: REFERENCE_ARTICLES });
    const message = strict.problems.join('\n');
    assert.match(message, /iptables: claim "local-drops-without-backend" no longer holds: Under Local, a node without a local backend drops/);
    assert.match(message, /local-via-worker2\.rc = "7"  from .*local-via-worker2\.yaml/);
    // The check stopped at the exit code: the DROP rule's port, never read, is not listed as a value.
    assert.doesNotMatch(message, /iptables-worker2\.dropPort =/);
    assert.match(
      message,
      /iptables: claim "nodeport-local-has-no-health-port" no longer holds: Only a LoadBalancer Service with Local gets a healthCheckNodePort/,
    );
    assert.match(message, /service\.s-local\.healthCheckNodePort = "31999"  from .*run\.yaml/);
    const draft = await checkArticles(root, { SHICE_SNAPSHOT_ROOT: run.root, SHICE_DRAFT: '1' }, { only: REFERENCE_ARTICLES });
    assert.deepEqual(draft.problems, []);
    assert.match(draft.drafts.join('\n'), /local-drops-without-backend/);
    assert.match(draft.drafts.join('\n'), /nodeport-local-has-no-health-port/);
  } finally {
    rmSync(run.root, { recursive: true, force: true });
  }
});

/** The modes the committed runs measured (074 declares ipvs too, which this kernel could not run). */
const MEASURED_MODES = ['iptables', 'nftables'];
/** The claims the build evaluates for one version and environment of an article: each mode's, and those across the modes. */
const evaluatedOf = (a: Article) =>
  a.experiment.variants
    ? MEASURED_MODES.filter((m) => a.experiment.variants!.values.includes(m as KubeProxyMode)).reduce(
        (n, m) => n + a.claimDefs.filter((c) => c.variants === undefined || c.variants.includes(m)).length,
        0,
      ) + (a.comparisonDefs?.length ?? 0)
    : a.claimDefs.length;
/** Each reference article is measured in each environment and on each Kubernetes version it declares (their runs are committed). */
const project = await Promise.all(REFERENCE_ARTICLES.map((slug) => loadArticle(root, slug)));
const CLAIMS_CHECKED = project.reduce((n, a) => n + versionsOf(a.experiment).length * (a.experiment.environments?.length ?? 1) * evaluatedOf(a), 0);

test('the reference articles pass the build check (the build suite checks every article)', async () => {
  const result = await checkArticles(root, {}, { only: REFERENCE_ARTICLES });
  assert.deepEqual(result.problems, []);
  assert.match(result.summary, new RegExp(`^${project.length} article\\(s\\), \\d+ facts derived from their snapshots, ${CLAIMS_CHECKED} claims checked$`));
});

test('the check of the articles named checks those alone; a slug content/articles lacks is one line naming it', async () => {
  const one = await checkArticles(root, {}, { only: [SLUG] });
  assert.deepEqual(one.problems, []);
  assert.match(one.summary, /^1 article\(s\), /);
  const none = await checkArticles(root, {}, { only: [SLUG, '999-no-such-article'] });
  assert.deepEqual(none.problems, [
    `content/articles/999-no-such-article: no such article; expected one of: ${readdirSync(join(root, 'content/articles')).sort().join(', ')}`,
  ]);
});

test('claim declarations are checked: ids, duplicates, statements', () => {
  const bad: ClaimDef[] = [
    { id: 'Bad Id', statement: { zh: 'x', en: 'x' }, holds: () => true },
    { id: 'dup', statement: { zh: '', en: 'x' }, holds: () => true },
    { id: 'dup', statement: { zh: 'x', en: 'x' }, holds: () => true },
  ];
  const problems = checkClaimDefs(bad, 'article.ts');
  assert.ok(problems.some((p) => /^article\.ts: claim id "Bad Id": expected lowercase words/.test(p)));
  assert.ok(problems.some((p) => /^article\.ts: claim "dup" is declared twice/.test(p)));
  assert.ok(problems.some((p) => /^article\.ts: claim "dup": expected a statement in zh and en/.test(p)));
  assert.equal(problems.length, 3);
});

test("a claim's values are the facts its check read, in the order it read them; a fact the run lacks breaks it, saying which", () => {
  const facts = new Map([
    ['a', { id: 'a', step: 'run', value: '1' }],
    ['b', { id: 'b', step: 'curl', value: '2' }],
  ]);
  const fileOfStep = (step: string) => `${step}.yaml`;
  const reads: ClaimDef = { id: 'reads', statement: { zh: 'x', en: 'x' }, holds: (v) => v('b') === '2' && v('a') === '1' && v('b') !== '' };
  const [read] = evaluateClaims([reads], facts, fileOfStep);
  assert.equal(read!.status, 'holds');
  assert.deepEqual(read!.values, [
    { id: 'b', value: '2', step: 'curl', file: 'curl.yaml' },
    { id: 'a', value: '1', step: 'run', file: 'run.yaml' },
  ]);
  const missing: ClaimDef = { id: 'missing', statement: { zh: 'x', en: 'x' }, holds: (v) => v('a') === '1' && v('gone') === '1' };
  const [result] = evaluateClaims([missing], facts, fileOfStep);
  assert.equal(result!.status, 'broken');
  assert.equal(result!.problem, 'this run has no fact gone');
  assert.deepEqual(result!.values, [
    { id: 'a', value: '1', step: 'run', file: 'run.yaml' },
    { id: 'gone', value: undefined, step: undefined, file: undefined },
  ]);
  assert.match(
    formatBrokenClaims([result!]).join('\n'),
    /claim "missing" no longer holds: x \(this run has no fact gone\)\n {4}a = "1"  from run\.yaml\n {4}gone = \(missing\)$/,
  );
});
