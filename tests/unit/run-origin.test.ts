// A run is what its commands and versions say: every run of the reference articles, kind and lab,
// is consistent with the driver its run.yaml names; the same run relabelled is not.
// And the build's check refuses two committed runs that share an id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedRunIds } from '../../src/article/check/integration.ts';
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { originProblems } from '../../src/evidence/run-origin.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
// The reference articles' runs: the build reads every article's (identityProblems), this is the rule's test.
const runs = REFERENCE_ARTICLES.flatMap((slug) =>
  readdirSync(join(root, 'content/articles', slug))
    .filter((name) => name.startsWith('snapshots'))
    .map((name) => loadSnapshots(join(root, 'content/articles', slug, name))),
);

test('each run of the reference articles is what its run.yaml says, and the driver swapped makes each contradiction one line', () => {
  assert.ok(runs.some((r) => r.run.driver === 'kind') && runs.some((r) => r.run.driver === 'lab'));
  for (const { run, steps, files } of runs) {
    assert.deepEqual(originProblems(run, steps, files), [], files.run);
    const other = run.driver === 'kind' ? 'lab' : 'kind';
    const problems = originProblems({ ...run, driver: other }, steps, files);
    // Two versions on each side, and every step's argv.
    assert.equal(problems.length, 4 + steps.size, `${files.run}:\n${problems.join('\n')}`);
    for (const line of problems) assert.match(line, new RegExp(`names driver "${other}"`));
  }
});

test('two committed runs with one id are refused by the build, each named by its run.yaml; one run seen twice is not', () => {
  const [a, b] = runs;
  assert.deepEqual(
    sharedRunIds([
      { runId: 'r1', file: 'x/run.yaml' },
      { runId: 'r1', file: 'x/run.yaml' },
      { runId: 'r2', file: 'y/run.yaml' },
    ]),
    [],
  );
  const lines = sharedRunIds([
    { runId: a!.run.runId, file: a!.files.run },
    { runId: a!.run.runId, file: b!.files.run },
  ]);
  assert.deepEqual(lines, [
    `${b!.files.run}: field "runId": ${a!.run.runId} is also the run id of ${a!.files.run}; expected every committed run to have its own id`,
  ]);
});

test("a verify's kubectl is the reader's, of any release; a kubectl of another minor in a capture's run is refused", () => {
  const verify = loadSnapshots(join(root, 'tests/fixtures/samples/verify/run-074-iptables'));
  assert.deepEqual(originProblems(verify.run, verify.steps, verify.files), []);
  // The release a reader's Debian kubectl reported on this machine, beside a v1.37.2 cluster.
  const readers = { ...verify.run, versions: { ...verify.run.versions, kubectl: 'v1.32.4' } };
  assert.deepEqual(originProblems(readers, verify.steps, verify.files), []);
  const kind = runs.find((r) => r.run.driver === 'kind')!;
  const relabelled = { ...kind.run, versions: { ...kind.run.versions, kubectl: 'v1.32.4' } };
  assert.deepEqual(originProblems(relabelled, kind.steps, kind.files), [
    `${kind.files.run}: field "versions.kubectl": names Kubernetes v1.32.4, but field "versions.kubernetes" claims ${JSON.stringify(kind.run.versions['kubernetes'])}; expected every record of the run to name the release it claims`,
  ]);
});
