import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffRuns, formatRunDiff, withinNoise, type RunSide } from '../../src/evidence/diff.ts';
import type { ClaimResult } from '../../src/evidence/claims.ts';

const fact = (id: string, value: string, step = 'run') => [id, { id, step, value }] as const;
const claim = (id: string, status: ClaimResult['status']): ClaimResult => ({ id, statement: { zh: id, en: id }, status, values: [] });

const old: RunSide = {
  runId: 'run-a',
  steps: ['cluster-via-worker', 'local-via-worker2'],
  facts: new Map([
    fact('service.s-local.nodePort', '30154'),
    fact('filter-worker2.dropRule', '-A KUBE-EXTERNAL-SERVICES -p tcp -m tcp --dport 30154 -j DROP', 'filter-worker2'),
    fact('cluster-via-worker2.client', '172.18.0.4', 'cluster-via-worker2'),
    fact('local-via-worker2.rc', '28', 'local-via-worker2'),
    fact('local-via-worker2.seconds', '3.1', 'local-via-worker2'),
    fact('local-via-worker2.error', 'Connection timed out after 3001 milliseconds', 'local-via-worker2'),
    fact('cluster-via-worker.argv', 'ip netns exec shice-lab-run-a.node.control-plane curl http://172.18.0.2:30533/', 'cluster-via-worker'),
    fact('service.s-cluster.nodePort', '30533'),
  ]),
  claims: [claim('local-drops-without-backend', 'holds'), claim('cluster-hides-client', 'holds')],
};

test('random-by-design values are marked volatile, real changes are not', () => {
  const next: RunSide = {
    runId: 'run-b',
    steps: ['cluster-via-worker', 'local-via-worker2', 'conntrack-worker2'],
    facts: new Map([
      fact('service.s-local.nodePort', '32490'),
      fact('filter-worker2.dropRule', '-A KUBE-EXTERNAL-SERVICES -p tcp -m tcp --dport 32490 -j DROP', 'filter-worker2'),
      fact('cluster-via-worker2.client', '10.244.2.1', 'cluster-via-worker2'),
      fact('local-via-worker2.rc', '7', 'local-via-worker2'),
      fact('local-via-worker2.seconds', '3.3', 'local-via-worker2'),
      fact('local-via-worker2.error', 'Connection timed out after 3004 milliseconds', 'local-via-worker2'),
      fact('cluster-via-worker.argv', 'ip netns exec shice-lab-run-b.node.control-plane curl http://172.18.0.2:31241/', 'cluster-via-worker'),
      fact('service.s-cluster.nodePort', '31241'),
    ]),
    claims: [claim('local-drops-without-backend', 'broken'), claim('cluster-hides-client', 'holds')],
  };
  const diff = diffRuns(old, next);
  const byId = new Map(diff.facts.map((f) => [f.id, f]));
  assert.equal(byId.get('service.s-local.nodePort')!.volatile, 'port allocated at random');
  assert.equal(byId.get('filter-worker2.dropRule')!.volatile, 'only its random-by-design parts changed');
  assert.equal(byId.get('cluster-via-worker.argv')!.volatile, 'only its random-by-design parts changed');
  assert.equal(byId.get('local-via-worker2.seconds')!.volatile, 'duration within its noise');
  assert.equal(byId.get('local-via-worker2.error')!.volatile, 'timing inside a message');
  assert.equal(byId.get('cluster-via-worker2.client')!.volatile, undefined);
  assert.equal(byId.get('local-via-worker2.rc')!.volatile, undefined);
  assert.deepEqual(diff.addedSteps, ['conntrack-worker2']);
  assert.deepEqual(diff.claims, [{ id: 'local-drops-without-backend', old: 'holds', new: 'broken' }]);

  const text = formatRunDiff(diff);
  assert.match(text, /claim local-drops-without-backend: holds -> broken/);
  assert.match(text, /new step: conntrack-worker2/);
  assert.match(text, /local-via-worker2\.rc: "28" -> "7"/);
  assert.match(text, /~ port allocated at random: service\.s-cluster\.nodePort, service\.s-local\.nodePort/);
});

test('a missing step and a fact that disappeared are reported; identical runs say so', () => {
  const next: RunSide = {
    ...old,
    runId: 'run-c',
    steps: ['cluster-via-worker'],
    facts: new Map([...old.facts].filter(([id]) => id !== 'local-via-worker2.rc')),
  };
  const diff = diffRuns(old, next);
  assert.deepEqual(diff.missingSteps, ['local-via-worker2']);
  assert.match(formatRunDiff(diff), /local-via-worker2\.rc: "28" -> \(none\)/);
  assert.match(formatRunDiff(diffRuns(old, { ...old, runId: 'run-d' })), /nothing but volatile values/);
});

test('durations: within half a second or a fifth is noise; a timeout that doubles is not', () => {
  assert.ok(withinNoise(0.1, 0.5));
  assert.ok(withinNoise(3.1, 3.5));
  assert.ok(!withinNoise(3.1, 6.2));
  assert.ok(!withinNoise(0.1, 1.3));
});
