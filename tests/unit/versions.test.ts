// Kubernetes versions as a dimension of an experiment's evidence
// (src/evidence/runs/versions.ts): the committed v1.37 runs, and beside them the
// committed v1.36 runs (copied into a temporary folder), built into one evidence; the claim matrix read over
// every version, a claim broken on the older one named there, a declared
// version without snapshots not measured, and a folder whose run names another
// version refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { experiment074 as article074, runsInput074 } from '../support/articles.ts';
import { buildArticleVersions } from '../../src/evidence/runs/versions.ts';
import { claimMatrix, measuredRuns } from '../../src/evidence/runs/environments.ts';
import { claimReach } from '../../src/evidence/runs/claim-reach.ts';
import { bindableIds, brokenClaimsByEnvironment, evaluatedClaimCount, evidenceOfRun, qualifyRun } from '../../src/evidence/runs/variants.ts';
import { versionMismatch } from '../../src/evidence/runs/build.ts';
import { kubeRelease } from '../../src/experiment/kubernetes.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import type { Experiment } from '../../src/experiment/types.ts';

const SLUG = '074-external-traffic-policy';
const ARTICLE = fileURLToPath(new URL(`../../content/articles/${SLUG}/`, import.meta.url));
/** Every committed snapshots folder of the article (v1.37): the kind runs and the lab's. */
const FOLDERS = ['snapshots', 'snapshots.nftables', 'snapshots.lab', 'snapshots.lab.nftables'];
/** What the API server of the committed runs answered. */
const committedVersion = () =>
  (load(readFileSync(join(ARTICLE, 'snapshots', 'run.yaml'), 'utf8')) as { versions: Record<string, string> }).versions['kubernetes']!;

/** The committed headline runs and, unless `older` is false, the committed v1.36 runs beside them: a temporary folder. */
function copyRuns(older = true): string {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-versions-'));
  for (const folder of FOLDERS) {
    cpSync(join(ARTICLE, folder), join(tmp, folder), { recursive: true });
    if (older) place(tmp, folderOf('v1.36', folder), 'v1.36', folder);
  }
  return tmp;
}

/** `snapshots.lab` of minor v1.36 is `snapshots.v1.36.lab`. */
const folderOf = (minor: string, folder: string) => folder.replace(/^snapshots/, `snapshots.${minor}`);

/** The committed run of `minor` in `folder` (its headline counterpart) put at `target` in `tmp`, replacing what was there. */
function place(tmp: string, target: string, minor: string, folder: string) {
  rmSync(join(tmp, target), { recursive: true, force: true });
  cpSync(join(ARTICLE, folderOf(minor, folder)), join(tmp, target), { recursive: true });
}

/** 074's experiment declaring `kubernetes`, or no versions at all when it is undefined. */
const withVersions = (kubernetes: string[] | undefined): Experiment => {
  const { kubernetes: _declared, ...rest } = article074;
  return kubernetes === undefined ? rest : { ...rest, kubernetes };
};

const build = (dir: string, experiment: Experiment = withVersions(['v1.37', 'v1.36'])) =>
  buildArticleVersions(runsInput074(join(dir, 'snapshots'), experiment));

test('no versions declared: the committed runs build as before, each checked to be of the headline release', () => {
  const evidence = build(ARTICLE.replace(/\/$/, ''), withVersions(undefined));
  assert.equal(evidence.versionRuns, undefined);
  assert.equal(evidence.version, undefined);
  assert.equal(kubeRelease(committedVersion()).minor, 'v1.37');
  assert.ok(measuredRuns(evidence).every((r) => r.version === undefined && r.ref.version === undefined));
  // The headline alone declared is the same evidence.
  const alone = build(ARTICLE.replace(/\/$/, ''), withVersions(['v1.37']));
  assert.equal(alone.versionRuns, undefined);
  assert.deepEqual(
    measuredRuns(alone).map((r) => r.runId),
    measuredRuns(evidence).map((r) => r.runId),
  );
});

test("every version's runs built, the headline's first; each run bindable by version, environment and variant", () => {
  const tmp = copyRuns();
  try {
    const evidence = build(tmp);
    const versions = evidence.versionRuns!;
    assert.deepEqual([versions.headline, versions.declared, versions.measured, versions.notMeasured], ['v1.37', ['v1.37', 'v1.36'], ['v1.37', 'v1.36'], []]);
    const runs = measuredRuns(evidence);
    assert.equal(runs.length, FOLDERS.length * 2);
    assert.deepEqual(
      runs.map((r) => [r.version, r.environment, r.variant]),
      ['v1.37', 'v1.36'].flatMap((v) => [
        [v, 'kind', 'iptables'],
        [v, 'kind', 'nftables'],
        [v, 'lab', 'iptables'],
        [v, 'lab', 'nftables'],
      ]),
    );
    // The headline version's refs are as they were; the older one's name it.
    assert.deepEqual(
      runs.map((r) => r.ref),
      [
        {},
        { variant: 'nftables' },
        { environment: 'lab' },
        { environment: 'lab', variant: 'nftables' },
        { version: 'v1.36' },
        { version: 'v1.36', variant: 'nftables' },
        { version: 'v1.36', environment: 'lab' },
        { version: 'v1.36', environment: 'lab', variant: 'nftables' },
      ],
    );
    // Each older run read from its own folder, its run.yaml naming its version.
    for (const run of runs.filter((r) => r.version === 'v1.36')) {
      assert.match(run.evidence.snapshots.dir, /snapshots\.v1\.36(\.|$)/);
      assert.equal(run.evidence.facts.get('version.kubernetes')?.value, 'v1.36.3');
      assert.equal(evidenceOfRun(evidence, run.ref, 'test').snapshots.run.runId, run.runId);
    }
    assert.equal(evidence.facts.get('version.kubernetes')?.value, committedVersion());
    const ids = bindableIds(evidence);
    assert.ok(ids.factIds.includes(qualifyRun({ version: 'v1.36' }, 'version.kubernetes')));
    assert.ok(ids.factIds.includes('v1.36/lab/nftables:run.id'));
    assert.ok(ids.stepIds.includes('v1.36/lab:local-via-worker2'));
    assert.ok(ids.factIds.includes('lab/nftables:run.id'), 'the headline version keeps its ids');
    assert.throws(
      () => evidenceOfRun(evidence, { version: 'v1.33' }, 'zh.mdx: <Fact>'),
      /zh\.mdx: <Fact>: version="v1\.33": no such version; the experiment is measured on v1\.37, v1\.36$/,
    );
    assert.equal(evaluatedClaimCount(evidence), 2 * evaluatedClaimCount(evidence.versionRuns!.runs.get('v1.37')!));
    assert.deepEqual(brokenClaimsByEnvironment(evidence), { headline: [], elsewhere: [] });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the claim matrix gains the version: a column per run of every version, each claim read in each', () => {
  const tmp = copyRuns();
  try {
    const evidence = build(tmp);
    const matrix = claimMatrix(evidence);
    assert.deepEqual(
      matrix.columns.map((c) => c.version),
      ['v1.37', 'v1.37', 'v1.37', 'v1.37', 'v1.36', 'v1.36', 'v1.36', 'v1.36'],
    );
    assert.deepEqual(matrix.versions, { headline: 'v1.37', measured: ['v1.37', 'v1.36'], notMeasured: [], environmentsNotMeasured: [] });
    // The older copy is the same runs: every claim stands there as it stands on the headline.
    for (const row of matrix.rows) {
      const statuses = row.cells.map((c) => c.status);
      assert.deepEqual(statuses.slice(4), statuses.slice(0, 4), row.id);
      assert.equal(row.cells.length, 8);
    }
    // The article's sentence: the versions, each bound to its own run.
    const reach = claimReach(matrix, evidence.snapshots.run.runId);
    assert.deepEqual(
      reach.versions.map((v) => [v.version, v.run.runId]),
      [
        ['v1.37', evidence.snapshots.run.runId],
        ['v1.36', evidence.versionRuns!.runs.get('v1.36')!.snapshots.run.runId],
      ],
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a claim broken on the older version only is a finding: named with its version, shown broken in its cell', () => {
  const tmp = copyRuns();
  try {
    const file = join(tmp, 'snapshots.v1.36.lab', 'local-via-worker2.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^exitCode: 28$/m, 'exitCode: 7'));
    const evidence = build(tmp);
    const { headline, elsewhere } = brokenClaimsByEnvironment(evidence);
    assert.deepEqual(headline, []);
    assert.match(elsewhere.join('\n'), /^v1\.36: lab: iptables: claim "local-drops-without-backend" no longer holds/m);
    const matrix = claimMatrix(evidence);
    const row = matrix.rows.find((r) => r.id === 'local-drops-without-backend')!;
    assert.deepEqual(
      row.cells.map((c) => c.status),
      ['holds', 'not-applicable', 'holds', 'not-applicable', 'holds', 'not-applicable', 'broken', 'not-applicable'],
    );
    assert.deepEqual(
      row.brokenIn.map((r) => [r.version, r.environment, r.variant, r.ref]),
      [['v1.36', 'lab', 'iptables', { version: 'v1.36', environment: 'lab' }]],
    );
    const reach = claimReach(matrix, evidence.snapshots.run.runId);
    assert.deepEqual(
      reach.broken.map((b) => [b.id, b.runs.map((r) => r.runId)]),
      [['local-drops-without-backend', [row.brokenIn[0]!.runId]]],
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a declared version without snapshots is not measured, and named; the headline must be there', () => {
  const tmp = copyRuns();
  try {
    const evidence = build(tmp, withVersions(['v1.37', 'v1.36', 'v1.35', 'v1.34']));
    assert.deepEqual(
      [evidence.versionRuns!.measured, evidence.versionRuns!.notMeasured],
      [
        ['v1.37', 'v1.36'],
        ['v1.35', 'v1.34'],
      ],
    );
    const matrix = claimMatrix(evidence);
    assert.deepEqual(matrix.versions!.notMeasured, ['v1.35', 'v1.34']);
    assert.deepEqual(claimReach(matrix, evidence.snapshots.run.runId).notMeasuredVersions, ['v1.35', 'v1.34']);
    assert.throws(
      () => evidenceOfRun(evidence, { version: 'v1.34' }, 'en.mdx: <Fact>'),
      /version="v1\.34": not measured on it \(no snapshots\); measured: v1\.37, v1\.36$/,
    );
    // An older version measured in the lab alone: its environments not measured are named.
    rmSync(join(tmp, 'snapshots.v1.36.lab'), { recursive: true });
    rmSync(join(tmp, 'snapshots.v1.36.lab.nftables'), { recursive: true });
    assert.deepEqual(claimMatrix(build(tmp)).versions!.environmentsNotMeasured, [{ version: 'v1.36', environments: ['lab'] }]);
    rmSync(join(tmp, 'snapshots'), { recursive: true });
    assert.throws(() => build(tmp), /snapshots: not yet measured/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a folder whose run names another version is refused: one line naming the file, the field, what was expected and found', () => {
  const tmp = copyRuns();
  try {
    // A real v1.35 run in the v1.36 folder.
    place(tmp, 'snapshots.v1.36.lab.nftables', 'v1.35', 'snapshots.lab.nftables');
    const error = (() => {
      try {
        build(tmp);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof EvidenceError);
    assert.deepEqual(error.problems.length, 1);
    assert.match(
      error.message,
      /snapshots\.v1\.36\.lab\.nftables\/run\.yaml: field "versions\.kubernetes": expected a v1\.36 release \(the Kubernetes version this folder holds, e\.g\. v1\.36\.3\), got "v1\.35\.4"$/,
    );
    // The headline folder too: its run must be of the headline release's minor, versions declared or not.
    place(tmp, 'snapshots.v1.36.lab.nftables', 'v1.36', 'snapshots.lab.nftables');
    place(tmp, 'snapshots', 'v1.36', 'snapshots');
    for (const experiment of [withVersions(['v1.37', 'v1.36']), article074])
      assert.throws(
        () => build(tmp, experiment),
        /snapshots\/run\.yaml: field "versions\.kubernetes": expected a v1\.37 release \(the Kubernetes version this folder holds, e\.g\. v1\.37\.2\), got "v1\.36\.3"$/,
      );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('versionMismatch: a later patch of the minor is that version; another minor, a missing field, or no version at all is not', () => {
  const release = kubeRelease('v1.34');
  assert.equal(versionMismatch({ kubernetes: 'v1.34.9' }, release, 'run.yaml'), null);
  assert.equal(versionMismatch({ kubernetes: 'v1.34.4-rc.0+abc' }, release, 'run.yaml'), null);
  assert.equal(
    versionMismatch({ kubernetes: 'v1.3.4' }, release, 'run.yaml'),
    'run.yaml: field "versions.kubernetes": expected a v1.34 release (the Kubernetes version this folder holds, e.g. v1.34.4), got "v1.3.4"',
  );
  assert.equal(
    versionMismatch({}, release, 'run.yaml'),
    'run.yaml: field "versions.kubernetes": missing; expected a v1.34 release (the Kubernetes version this folder holds, e.g. v1.34.4)',
  );
  assert.match(versionMismatch({ kubernetes: 'latest' }, release, 'run.yaml')!, /got "latest"$/);
});
