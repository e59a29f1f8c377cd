// Environments as a dimension of an experiment (src/experiment/environments.ts,
// src/evidence/runs/environments.ts): declarations checked, a driver's runs
// placed in its environment's folders, every environment's runs built from
// real snapshots, a folder holding another environment's run refused, and the
// claim matrix read over every run, a claim broken in one environment shown there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { experiment074 as article074, runsInput074 } from '../support/articles.ts';
import { environmentFolder, environmentOfDriver, environmentProblems, environmentsOf, headlineEnvironment } from '../../src/experiment/environments.ts';
import { buildArticleEnvironments, claimMatrix, claimReach, measuredRuns } from '../../src/evidence/runs/environments.ts';
import { claimReadings } from '../../src/article/render/claim-link.ts';
import { bindableIds, brokenClaimsByEnvironment, evidenceOfRun } from '../../src/evidence/runs/variants.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import type { Experiment } from '../../src/experiment/types.ts';

const SLUG = '074-external-traffic-policy';
const ARTICLE = fileURLToPath(new URL(`../../content/articles/${SLUG}/`, import.meta.url));
/** Every snapshots folder of the article: the kind runs and the lab's beside them. */
const FOLDERS = ['snapshots', 'snapshots.nftables', 'snapshots.lab', 'snapshots.lab.nftables'];

function copyRuns(): string {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-environments-'));
  for (const folder of FOLDERS) cpSync(join(ARTICLE, folder), join(tmp, folder), { recursive: true });
  return tmp;
}

const build = (dir: string, experiment: Experiment = article074) => buildArticleEnvironments(runsInput074(join(dir, 'snapshots'), experiment));

test('declarations: known environments, none twice, at least one; the headline is the first; kind alone when none is declared', () => {
  assert.deepEqual(environmentProblems(article074, 'article.ts'), []);
  assert.deepEqual(environmentsOf(article074), ['kind', 'lab']);
  assert.equal(headlineEnvironment(article074), 'kind');
  const { environments: _none, ...bare } = article074;
  assert.deepEqual(environmentsOf(bare), ['kind']);
  assert.deepEqual(environmentProblems({ ...article074, environments: [] }, 'article.ts'), [
    'article.ts: field "experiment.environments": expected at least one of kind, lab',
  ]);
  assert.deepEqual(environmentProblems({ ...article074, environments: ['lab', 'docker' as never, 'lab'] }, 'article.ts'), [
    'article.ts: field "experiment.environments": expected kind, lab, got "docker"',
    'article.ts: field "experiment.environments": an environment is listed twice',
  ]);
});

test("a driver measures its own environment, into that environment's folders; an undeclared one is refused", () => {
  assert.equal(environmentOfDriver(article074, 'lab'), 'lab');
  assert.throws(
    () => environmentOfDriver({ ...article074, environments: ['kind'] }, 'lab'),
    /^Error: --driver lab: 074-external-traffic-policy is measured in kind \(article\.ts, field "experiment\.environments"\)$/,
  );
  assert.equal(environmentFolder('/a/snapshots', 'kind', 'kind'), '/a/snapshots');
  assert.equal(environmentFolder('/a/snapshots', 'lab', 'kind'), '/a/snapshots.lab');
  assert.equal(environmentFolder('/out/074-x', 'lab', 'kind'), '/out/074-x.lab');
});

test('the committed runs: every environment and mode built, each bindable by environment and variant', () => {
  const evidence = build(ARTICLE.replace(/\/$/, ''));
  const environments = evidence.environmentRuns!;
  assert.deepEqual(environments.measured, ['kind', 'lab']);
  assert.equal(evidence.snapshots.run.driver, 'kind');
  const runs = measuredRuns(evidence);
  assert.deepEqual(
    runs.map((r) => [r.environment, r.variant, r.evidence.snapshots.run.driver, r.evidence.snapshots.run.cluster.kubeProxyMode]),
    [
      ['kind', 'iptables', 'kind', 'iptables'],
      ['kind', 'nftables', 'kind', 'nftables'],
      ['lab', 'iptables', 'lab', 'iptables'],
      ['lab', 'nftables', 'lab', 'nftables'],
    ],
  );
  // The article's own parts are left out of a ref: the headline's default run has none.
  assert.deepEqual(
    runs.map((r) => r.ref),
    [{}, { variant: 'nftables' }, { environment: 'lab' }, { environment: 'lab', variant: 'nftables' }],
  );
  const labNft = evidenceOfRun(evidence, { environment: 'lab', variant: 'nftables' }, 'zh.mdx');
  assert.equal(labNft.snapshots.run.runId, runs[3]!.runId);
  assert.throws(() => evidenceOfRun(evidence, { environment: 'minikube' }, 'zh.mdx: <Fact>'), /no such environment; the experiment is measured in kind, lab/);
  const { factIds, stepIds } = bindableIds(evidence);
  for (const id of ['node.worker.podGateway', 'lab:node.worker.podGateway', 'lab/nftables:nft-worker2.drop.verdict', 'lab/iptables:local-via-worker2.rc'])
    assert.ok(factIds.includes(id), id);
  assert.ok(stepIds.includes('lab/nftables:nft-worker2') && stepIds.includes('lab:iptables-worker2'));
  assert.deepEqual(brokenClaimsByEnvironment(evidence), { headline: [], elsewhere: [] });
});

test('the claim matrix: a row per claim, a cell per run; a claim of some modes is not applicable in the others, never "holds"', () => {
  const matrix = claimMatrix(build(ARTICLE.replace(/\/$/, '')));
  assert.equal(matrix.columns.length, 4);
  const drop = matrix.rows.find((r) => r.id === 'local-drops-without-backend')!;
  assert.deepEqual(
    drop.cells.map((c) => c.status),
    ['holds', 'not-applicable', 'holds', 'not-applicable'],
  );
  assert.deepEqual(
    matrix.rows.filter((r) => r.brokenIn.length),
    [],
  );
  assert.deepEqual(matrix.notMeasured, []);
  // Folded to a line: a claim of one mode is judged in that mode's runs only, and says so.
  assert.deepEqual(claimReach(drop), { held: 2, judged: 2, brokenIn: [], versions: [], environments: ['kind', 'lab'], variants: ['iptables'] });
  const everywhere = claimReach(matrix.rows.find((r) => r.id === 'cluster-extra-hop')!);
  assert.deepEqual([everywhere.held, everywhere.judged, everywhere.variants], [4, 4, ['iptables', 'nftables']]);
});

test("what a claim read in a run: each fact once, in the order read, and the steps of this run's outputs they came from", () => {
  const run = build(ARTICLE.replace(/\/$/, ''));
  const hop = run.claims.find((c) => c.id === 'cluster-extra-hop')!;
  const read = claimReadings(hop.values);
  assert.equal(new Set(read.map((v) => v.id)).size, read.length);
  assert.deepEqual(
    read.slice(0, 2).map((v) => [v.id, v.step]),
    [
      ['conntrack-worker2.first.original.src', 'conntrack-worker2'],
      ['node.control-plane.ip', 'run'],
    ],
  );
  // Node addresses are the run's own facts (run.yaml), not a step's output: no step to land on.
  const steps = (values: typeof read) => [...new Set(values.map((v) => v.step).filter((s) => s !== 'run'))];
  assert.deepEqual(steps(read), ['conntrack-worker2']);
  const health = claimReadings(run.claims.find((c) => c.id === 'health-check-follows-local-endpoints')!.values);
  assert.deepEqual(steps(health), ['health-worker', 'health-worker2', 'health-control-plane', 'health-worker-after-delete']);
});

test('a claim broken in the lab only is a finding, not the build failing: named by environment, shown as broken in its cell', () => {
  const tmp = copyRuns();
  try {
    const file = join(tmp, 'snapshots.lab', 'local-via-worker2.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^exitCode: 28$/m, 'exitCode: 7'));
    const evidence = build(tmp);
    const { headline, elsewhere } = brokenClaimsByEnvironment(evidence);
    assert.deepEqual(headline, []);
    assert.match(elsewhere.join('\n'), /^lab: iptables: claim "local-drops-without-backend" no longer holds/m);
    const row = claimMatrix(evidence).rows.find((r) => r.id === 'local-drops-without-backend')!;
    assert.deepEqual(
      row.cells.map((c) => c.status),
      ['holds', 'not-applicable', 'broken', 'not-applicable'],
    );
    assert.deepEqual(
      row.brokenIn.map((r) => [r.environment, r.variant]),
      [['lab', 'iptables']],
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a folder holding another environment's run is refused, naming the file and field; a missing environment is not measured", () => {
  const tmp = copyRuns();
  try {
    rmSync(join(tmp, 'snapshots.lab.nftables'), { recursive: true });
    rmSync(join(tmp, 'snapshots.lab'), { recursive: true });
    const partial = build(tmp).environmentRuns!;
    assert.deepEqual([partial.measured, partial.notMeasured], [['kind'], ['lab']]);
    assert.deepEqual(claimMatrix(build(tmp)).notMeasured, ['lab']);
    cpSync(join(ARTICLE, 'snapshots.lab'), join(tmp, 'snapshots.lab'), { recursive: true });
    rmSync(join(tmp, 'snapshots'), { recursive: true });
    cpSync(join(ARTICLE, 'snapshots.lab'), join(tmp, 'snapshots'), { recursive: true });
    assert.throws(
      () => build(tmp),
      (error: unknown) =>
        error instanceof EvidenceError &&
        /snapshots\/run\.yaml: field "driver": expected "kind" \(the driver of the kind environment, which this folder holds\), got "lab"$/.test(error.message),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
