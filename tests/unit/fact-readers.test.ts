// The one-line fact readers an article writes, on real output: a health check
// kube-proxy answered, curl's output from 074's committed run, and a pod list
// kubectl printed. Each finds its value, and one that finds nothing says what
// it looked for and what was there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { answered, answerFacts, choiceFacts, fromDefinition, http, printed, stdout, withinBounds, type FactSpec } from '../../src/evidence/fact-kit.ts';
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

test('answerFacts and choiceFacts on a real spread of requests: counts per node and per pod, the model and its bound, the counts volatile', () => {
  const spread = loadSnapshots(join(root, 'content/articles/075-local-uneven-weights/snapshots'));
  const step = spread.steps.get('spread-cluster')!;
  const value = (spec: FactSpec) => spec.derive({ run: spread.run, step }).value;
  const answers = answerFacts('spread-cluster', ['worker', 'worker2']);
  const requests = Number(value(answers['spread-cluster.requests']));
  assert.equal(requests, step.stdout.trim().split('\n').length);
  assert.equal(Number(value(answers['spread-cluster.via.worker'])) + Number(value(answers['spread-cluster.via.worker2'])), requests);
  const pods = spread.run.pods.filter((p) => p.name.startsWith('web-')).map((p) => p.name);
  const groups = ['a', 'b', 'c'] as const;
  const choices = choiceFacts('spread-cluster', groups, {
    who: (_run, g) => pods[groups.indexOf(g)]!,
    model: (all) => ({ trials: all.length, probability: 1 / 3 }),
    sigmas: 4,
  });
  const counts = groups.map((g) => Number(value(choices[`spread-cluster.count.${g}`])));
  assert.equal(
    counts.reduce((a, b) => a + b, 0),
    requests,
    'every answer counted once',
  );
  assert.equal(value(choices['spread-cluster.expected.a']), String(Math.round(requests / 3)));
  assert.ok(choices['spread-cluster.count.a'].volatile && choices['spread-cluster.share.a'].volatile);
  assert.equal(choices['spread-cluster.expected.a'].volatile, undefined, 'what the model expects is the same on every run');
  const facts = new Map(Object.entries(choices).map(([id, spec]) => [id, value(spec)]));
  const v = (id: string) => facts.get(id)!;
  assert.equal(withinBounds(v, 'spread-cluster', groups), true);
  facts.set('spread-cluster.count.a', String(Number(v('spread-cluster.expected.a')) + Number(v('spread-cluster.bound.a')) + 1));
  assert.equal(withinBounds(v, 'spread-cluster', groups), false, 'a count one past its bound breaks the claim');
  const garbled = { ...step, stdout: 'web-x 200 172.18.0.2\nnot an answer\n' };
  assert.throws(
    () => answers['spread-cluster.requests'].derive({ run: spread.run, step: garbled }),
    /stdout line 2: expected "<name> <HTTP status> <address>", got "not an answer"/,
  );
});

test('answered: the distinct pods that answered a real spread, sorted, and how many; a step nobody answered names why', () => {
  const spread = loadSnapshots(join(root, 'content/articles/075-local-uneven-weights/snapshots'));
  const step = spread.steps.get('spread-cluster')!;
  const value = (spec: FactSpec, s = step) => spec.derive({ run: spread.run, step: s }).value;
  // s-cluster spreads over the three web pods the run's API server listed.
  const web = spread.run.pods
    .filter((p) => p.name.startsWith('web-'))
    .map((p) => p.name)
    .sort();
  assert.equal(value(answered.who('spread-cluster')), web.join(', '));
  assert.equal(value(answered.distinct('spread-cluster')), String(web.length));
  // The same request line, failed (curl's 000 and no body): nobody answered.
  const failed = { ...step, stdout: ' 000 \n' };
  assert.throws(
    () => value(answered.distinct('spread-cluster'), failed),
    (e: unknown) => e instanceof ExtractError && e.message === 'no request was answered with HTTP 200',
  );
});

test('fromDefinition: a value the definition sets binds as declared by article.ts, whatever the run', () => {
  const spec = fromDefinition(4);
  assert.equal(spec.step, 'declared');
  assert.deepEqual(spec.declared, { file: 'article.ts' });
  assert.equal(read(spec, stepOf('health-worker')), '4');
});
