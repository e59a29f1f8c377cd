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
