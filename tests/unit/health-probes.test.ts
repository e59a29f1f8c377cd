// The health check's one curl per node (probesOf), read from real runs of it:
// on a lab control plane, every component answering; on a worker whose
// kube-proxy was frozen with SIGSTOP; on a kind node, kubelet among them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endpointProblems, healthEndpointsOf } from '../../src/capture/kubernetes/health.ts';
import { parseProbeAnswers, probesOf } from '../../src/capture/kubernetes/kube-io.ts';
import { experiment074 } from '../support/articles.ts';
import { readSample } from '../fixtures/samples/read-sample.ts';
import { parseContainerPids } from '../../src/capture/kind/tool-output.ts';
import { readFileSync } from 'node:fs';

const kindFixture = (name: string) => readFileSync(new URL(`../fixtures/kind/${name}`, import.meta.url), 'utf8');

const experiment = experiment074;
const KIND_AGENTS = { agentHealthz: [['kubelet', 'http://127.0.0.1:10248/healthz']] as const };
const LAB_AGENTS = { agentHealthz: [] };

test('the argv the samples ran is the one the health check builds', () => {
  for (const [file, node, provider] of [
    ['curl/health-probes-lab-control-plane.yaml', 'control-plane', LAB_AGENTS],
    ['curl/health-probes-lab-frozen-kube-proxy.yaml', 'worker2', LAB_AGENTS],
    ['curl/health-probes-kind-control-plane.yaml', 'control-plane', KIND_AGENTS],
  ] as const) {
    const sample = readSample(file);
    const urls = healthEndpointsOf(provider, experiment, node).map((e) => e.url);
    assert.deepEqual(sample.argv.slice(sample.argv.indexOf('curl')), probesOf(urls), file);
  }
});

test('every endpoint of a healthy control plane answers: one line each, 200 and curl exit 0, and no problem', () => {
  for (const [file, provider] of [
    ['curl/health-probes-lab-control-plane.yaml', LAB_AGENTS],
    ['curl/health-probes-kind-control-plane.yaml', KIND_AGENTS],
  ] as const) {
    const sample = readSample(file);
    const answers = parseProbeAnswers(sample.stdout);
    const endpoints = healthEndpointsOf(provider, experiment, 'control-plane');
    assert.deepEqual([...answers.keys()].sort(), endpoints.map((e) => e.url).sort(), file);
    for (const answer of answers.values()) assert.deepEqual(answer, { status: 200, curlExit: 0 }, file);
    assert.equal(sample.exitCode, 0);
    assert.deepEqual(endpointProblems('control-plane', endpoints, answers, sample.exitCode), [], file);
  }
});

test('a frozen kube-proxy: its line says 000 and exit 28 after the 2 s, and the problem names it, its node and the likely cause', () => {
  const sample = readSample('curl/health-probes-lab-frozen-kube-proxy.yaml');
  const endpoints = healthEndpointsOf(LAB_AGENTS, experiment, 'worker2');
  const answers = parseProbeAnswers(sample.stdout);
  assert.deepEqual(answers.get('http://127.0.0.1:10256/healthz'), { status: 0, curlExit: 28 });
  assert.ok(sample.durationMs >= 2000 && sample.durationMs < 4000, `bounded by --max-time 2: ${sample.durationMs} ms`);
  assert.deepEqual(endpointProblems('worker2', endpoints, answers, sample.exitCode), [
    'kube-proxy on worker2 did not answer http://127.0.0.1:10256/healthz (curl exit 28: no answer within 2 s, frozen?)',
  ]);
});

test('an endpoint that answered other than ok, and a curl that printed nothing, are each a problem with its reason', () => {
  const endpoints = healthEndpointsOf(KIND_AGENTS, experiment, 'control-plane');
  const healthy = parseProbeAnswers(readSample('curl/health-probes-kind-control-plane.yaml').stdout);
  const failing = new Map(healthy).set('https://127.0.0.1:10259/healthz', { status: 500, curlExit: 0 });
  assert.deepEqual(endpointProblems('control-plane', endpoints, failing, 0), [
    'kube-scheduler on control-plane did not answer https://127.0.0.1:10259/healthz with ok (HTTP 500)',
  ]);
  // A kube-proxy answering 503 (its sync state) is alive: only the components that answer ok are held to 200.
  const stale = new Map(healthy).set('http://127.0.0.1:10256/healthz', { status: 503, curlExit: 0 });
  assert.deepEqual(endpointProblems('control-plane', endpoints, stale, 0), []);
  // The node's exec failed before curl printed anything (a node container going away): the node is named, not its endpoints.
  assert.deepEqual(endpointProblems('worker', healthEndpointsOf(KIND_AGENTS, experiment, 'worker'), parseProbeAnswers(''), 126), [
    'the health probe could not run on worker (its exec exited 126)',
  ]);
  // A line missing for one endpoint while others printed theirs is said as that.
  const partial = new Map(healthy);
  partial.delete('https://127.0.0.1:10257/healthz');
  assert.deepEqual(endpointProblems('control-plane', endpoints, partial, 0), [
    'kube-controller-manager on control-plane: curl printed no line for https://127.0.0.1:10257/healthz',
  ]);
});

test("kind's way in for the probes: each node's pid as docker gives it, none for a stopped node, and a probe into a node gone fails as its exec did", () => {
  assert.deepEqual(
    parseContainerPids(kindFixture('docker-container-pids.stdout')),
    new Map([
      ['kx-main-control-plane', '28784'],
      ['kx-main-worker', '28773'],
      ['kx-main-worker2', '28750'],
    ]),
  );
  // Stopped: pid 0, so no way in; the container docker does not know is only in stderr.
  assert.deepEqual(
    parseContainerPids(kindFixture('docker-container-pids-stopped-missing.stdout')),
    new Map([
      ['kx-main-control-plane', '28784'],
      ['kx-main-worker', '28773'],
    ]),
  );
  assert.match(kindFixture('docker-container-pids-stopped-missing.stderr'), /No such container: kx-main-worker3/);
  assert.throws(() => parseContainerPids('kx-main-worker running\n'), /expected "<name> <pid>"/);
  // nsenter into the stopped node's old pid: curl never ran, so no line; the node is named, and the provider's word follows.
  assert.match(kindFixture('exec/nsenter-stopped-node.stderr'), /^nsenter: cannot open \/proc\/28750\/ns\/net/);
  assert.deepEqual(endpointProblems('worker2', healthEndpointsOf(KIND_AGENTS, experiment, 'worker2'), parseProbeAnswers(''), 1), [
    'the health probe could not run on worker2 (its exec exited 1)',
  ]);
});
