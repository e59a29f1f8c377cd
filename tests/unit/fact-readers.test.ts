// The one-line fact readers an article writes, on real output: a health check
// kube-proxy answered, curl's output from 074's committed run, and a pod list
// kubectl printed. Each finds its value, and one that finds nothing says what
// it looked for and what was there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { http, printed, stdout, type FactSpec } from '../../src/evidence/fact-kit.ts';
import { ExtractError } from '../../src/evidence/errors.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import type { StepSnapshot } from '../../src/evidence/schema.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const snapshots = loadSnapshots(join(root, 'content/articles/074-external-traffic-policy/snapshots'));
const read = (spec: FactSpec, step: StepSnapshot) => spec.derive({ run: snapshots.run, step }).value;
const stepOf = (id: string) => snapshots.steps.get(id)!;
/** A step whose stdout is what kubectl printed for a pod list (a real sample). */
const kubectlStep: StepSnapshot = {
  ...stepOf('health-worker'),
  id: 'pods',
  stdout: readFileSync(join(root, 'tests/fixtures/samples/kubectl/pods-lab-cannot-run-image.json'), 'utf8'),
};

test('stdout: group 1 of the pattern, else the whole match; nothing found names the pattern and what stdout holds', () => {
  const answer = stepOf('cluster-via-worker').stdout;
  assert.equal(read(stdout('cluster-via-worker', /client=(\S+)/), stepOf('cluster-via-worker')), /client=(\S+)/.exec(answer)![1]);
  assert.equal(read(stdout('cluster-via-worker', /client=\S+/), stepOf('cluster-via-worker')), /client=\S+/.exec(answer)![0]);
  assert.throws(
    () => read(stdout('cluster-via-worker', /server=(\S+)/), stepOf('cluster-via-worker')),
    (e: unknown) => e instanceof ExtractError && e.message === `looked for /server=(\\S+)/ on stdout, found ${JSON.stringify(answer.trim())}`,
  );
});

test('printed: a field of the JSON kubectl printed, by dotted path; a missing key and a non-scalar are named', () => {
  const list = JSON.parse(kubectlStep.stdout) as { items: Array<{ metadata: { name: string } }> };
  assert.equal(read(printed('pods', 'items.0.metadata.name'), kubectlStep), list.items[0]!.metadata.name);
  assert.throws(
    () => read(printed('pods', 'items.0.metadata.nickname'), kubectlStep),
    /^ExtractError: looked for "items\.0\.metadata\.nickname" in what the step printed, but it has no "nickname"$/,
  );
  assert.throws(
    () => read(printed('pods', 'items.0.metadata'), kubectlStep),
    /^ExtractError: "items\.0\.metadata": expected a number, a string or a boolean, got object$/,
  );
  assert.throws(() => read(printed('health-worker', 'localEndpoints'), stepOf('health-worker')), /^ExtractError: expected JSON or YAML on stdout/);
});

test("http: a header and a field of the body of kube-proxy's health check; a missing header is named", () => {
  const step = stepOf('health-worker');
  assert.equal(read(http.header('health-worker', 'content-type'), step), 'application/json');
  assert.equal(read(http.json('health-worker', 'service.name'), step), 's-lb');
  assert.throws(() => read(http.header('health-worker', 'X-Missing'), step), /^ExtractError: the answer has no header X-Missing$/);
  assert.throws(
    () => read(http.json('health-worker', 'service.port'), step),
    /^ExtractError: looked for "service\.port" in the JSON body, but it has no "port"$/,
  );
});
