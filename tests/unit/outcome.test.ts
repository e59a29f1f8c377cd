// What a step's client saw, as a class, read from the committed runs' own snapshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { stepOutcome, WAIT_SECONDS } from '../../src/evidence/outcome.ts';

const articles = fileURLToPath(new URL('../../content/articles/', import.meta.url));
const outcomes = (slug: string, folder: string) => {
  const { steps } = loadSnapshots(join(articles, slug, folder), { slug });
  return new Map([...steps.values()].map((s) => [s.id, stepOutcome(s.exitCode, s.durationMs / 1000, s.command)]));
};

test("074 on kind: the DROP is a timeout at curl's limit, the other requests answered at once, the rest ran", () => {
  const seen = outcomes('074-external-traffic-policy', 'snapshots');
  assert.equal(seen.get('local-via-worker2'), "timed out at the client's limit");
  for (const step of ['cluster-via-worker', 'cluster-via-worker2', 'local-via-worker']) assert.equal(seen.get(step), 'answered at once', step);
  for (const step of ['iptables-worker', 'iptables-worker2', 'delete-backend']) assert.equal(seen.get(step), 'ran', step);
});

test('075: a curl over 600 URLs (a glob) is many requests, whose total time is no one answer: it ran', () => {
  const seen = outcomes('075-local-uneven-weights', 'snapshots');
  assert.equal(seen.get('spread-local'), 'ran');
  assert.equal(seen.get('spread-cluster'), 'ran');
});

test("076 in the lab: a request from a pod's network namespace is classed by its command, not the driver's argv", () => {
  const seen = outcomes('076-internal-traffic-policy', 'snapshots.lab');
  assert.equal(seen.get('local-from-worker2'), "timed out at the client's limit");
  assert.equal(seen.get('cluster-from-worker'), 'answered at once');
});

test("the classes at their edges: a wait from half the client's own limit (TCP's first retransmission without one), a refusal, timeout(1), any other exit", () => {
  const curl = ['curl', '--silent', '--max-time', '3', 'http://172.18.0.4:30001/'];
  assert.equal(stepOutcome(0, 1.4, curl), 'answered at once', 'a busy machine stretched it: 074 on kind beside two busy loops and other work');
  assert.equal(stepOutcome(0, 1.499, curl), 'answered at once');
  assert.equal(stepOutcome(0, 1.5, curl), 'answered after a wait');
  const unlimited = ['curl', '--silent', 'http://172.18.0.4:30001/'];
  assert.equal(stepOutcome(0, WAIT_SECONDS - 0.001, unlimited), 'answered at once');
  assert.equal(stepOutcome(0, WAIT_SECONDS, unlimited), 'answered after a wait');
  assert.equal(stepOutcome(0, WAIT_SECONDS, ['curl', '--max-time', '1', 'http://172.18.0.4:30001/']), 'answered after a wait', 'never less than the RTO');
  assert.equal(stepOutcome(7, 0.01, curl), 'refused');
  assert.equal(stepOutcome(28, 3.1, curl), "timed out at the client's limit");
  assert.equal(stepOutcome(124, 5, ['timeout', '5', 'nc', '10.0.0.1', '80']), "timed out at the client's limit");
  assert.equal(stepOutcome(1, 0.2, ['iptables-save', '-t', 'nat']), 'exited 1');
  assert.equal(stepOutcome(28, 0.2, ['iptables-save']), 'exited 28', "28 is curl's code only");
  assert.equal(stepOutcome(0, 4, ['kubectl', 'delete', 'pod', 'backend']), 'ran');
  assert.equal(stepOutcome(0, 0.2, undefined), 'ran', 'without its command a step is not known to be a request');
  assert.equal(stepOutcome(0, 2, ['curl', '--globoff', 'http://[::1]:80/']), 'answered after a wait', '--globoff: brackets are one URL');
});
