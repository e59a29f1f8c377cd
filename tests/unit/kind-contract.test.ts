// Contract tests of the kind driver: the driver runs against fake kind, kubectl
// and docker executables (tests/fixtures/fake-bin) that record every argv and
// answer with output recorded from, or shaped like, the real tools'. What these
// prove is the orchestration: order, isolation from the user's kubeconfig,
// ownership, cleanup, and that every value comes from the tools' answers.
// They do not prove a real kind cluster behaves so: nothing here ran one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { experiment074 as article074 } from '../support/articles.ts';
import { probesOf } from '../../src/capture/kubernetes/kube-io.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import type { DeletePodStep, Experiment } from '../../src/experiment/types.ts';
import { topologyView } from '../../src/capture/session/topology-view.ts';
import { symbolicTopologyView } from '../../src/experiment/symbolic-view.ts';
import { DriverError, PrerequisiteError, type ProviderContext } from '../../src/capture/provider/node-provider.ts';
import { runCapture } from '../../src/capture/session/runner.ts';
import { nodeSchema, podSchema, serviceSchema, stepSchema, type StepSnapshot } from '../../src/evidence/schema.ts';
import { kindStatePaths } from '../../src/capture/kind/settings.ts';
import { dockerContainerStates } from '../../src/capture/kind/commands.ts';
import { parseNodeList } from '../../src/capture/kubectl/topology.ts';
import { containersFor } from '../fixtures/fake-bin/fake-common.ts';
import { ARTICLE_DIR, makeHarness, USER_KUBECONFIG_TEXT, type Harness, type RecordedCall, FAKE_KIND_RELEASE } from '../fixtures/fake-bin/harness.ts';

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074, 'iptables');
const deleteStep = experiment.steps.find((s): s is DeletePodStep => s.kind === 'delete-pod')!;

const FIXTURES = new URL('../fixtures/kind/', import.meta.url);
const fixture = (name: string) => readFile(new URL(name, FIXTURES), 'utf8');

function context(signal = new AbortController().signal): ProviderContext & { lines: string[] } {
  const lines: string[] = [];
  return { signal, log: (line) => lines.push(line), lines };
}

async function withHarness(input: Parameters<typeof makeHarness>[0], body: (h: Harness) => Promise<void>): Promise<void> {
  const h = await makeHarness(input);
  try {
    await body(h);
  } finally {
    await h.cleanup();
  }
}

const isDelete = (c: RecordedCall) => c.tool === 'kind' && c.argv[1] === 'delete' && c.argv[2] === 'cluster';
const isCreate = (c: RecordedCall) => c.tool === 'kind' && c.argv[1] === 'create' && c.argv[2] === 'cluster';
const onNode = (node: string, ...command: string[]) => ['docker', 'exec', `kx-main-${node}`, ...command];
const probe = (url: string, insecure = false) => ['curl', '--silent', '--max-time', '2', ...(insecure ? ['--insecure'] : []), url];
/** Several endpoints in one curl, as the health check builds it (its format pinned by real runs: health-probes.test.ts). */
const probes = probesOf;
const NODES = ['control-plane', 'worker', 'worker2'];

function expectedPlan(h: Harness) {
  const k = join(h.stateDir, 'kubeconfig');
  const manifest = (m: string) => resolve(ARTICLE_DIR, m);
  const kubectl = (...args: string[]) => ['kubectl', '--kubeconfig', k, ...args];
  const provider = {
    setup: [
      ['kind', 'get', 'clusters'],
      ['kind', 'create', 'cluster', '--name', 'kx-main', '--config', join(h.stateDir, 'kx-main.kind-config.yaml'), '--kubeconfig', k, '--wait', '120s'],
    ],
    teardown: [['kind', 'delete', 'cluster', '--name', 'kx-main', '--kubeconfig', k]],
  };
  /** What versions() asks beyond the provider's own facts: the API server, and kube-proxy on every node. */
  const versions = [kubectl('version', '-o', 'json'), ...NODES.map((n) => onNode(n, ...probe('http://127.0.0.1:10249/proxyMode')))];
  return {
    provider,
    setup: [
      ...provider.setup,
      kubectl('get', 'serviceaccount', 'default', '--namespace', 'default', '-o', 'name'),
      kubectl('apply', '-f', manifest('manifests/backend.yaml')),
      kubectl('apply', '-f', manifest('manifests/services.yaml')),
      kubectl('wait', '--for=condition=Ready', 'node', '--all', '--timeout=120s'),
      kubectl('wait', '--for=condition=Ready', 'pod/backend', '--namespace', 'default', '--timeout=120s'),
      kubectl('get', 'nodes', '-o', 'json'),
      kubectl('get', 'pods', '--all-namespaces', '-o', 'json'),
      kubectl('get', 'services', '--all-namespaces', '-o', 'json'),
      // kube-proxy's sync, awaited on the EndpointSlices and kube-proxy's own metrics on every node.
      kubectl('get', 'endpointslices', '--all-namespaces', '-o', 'json'),
      ...NODES.map((n) => onNode(n, ...probe('http://127.0.0.1:10249/metrics'))),
      onNode('control-plane', ...probe('http://<s-lb.endpointNode.ip>:<s-lb.healthCheckNodePort>/')),
      ...versions,
    ],
    versions,
    /** After every step, one curl a node: kubelet and kube-proxy on every node, the controller manager and the scheduler too on the control plane; then the pods. */
    health: [
      ...NODES.map((n) =>
        onNode(
          n,
          ...probes([
            'http://127.0.0.1:10248/healthz',
            'http://127.0.0.1:10256/healthz',
            ...(n === 'control-plane' ? ['https://127.0.0.1:10257/healthz', 'https://127.0.0.1:10259/healthz'] : []),
          ]),
        ),
      ),
      // Asked by the capture's own process (a real kind kubeconfig holds a client certificate; the fakes' does not, so kubectl answers them).
      ['GET', '/api/v1/pods'],
    ],
    /** What a run asks for the pods where the plan says GET: the fakes' kubeconfig holds no certificate to load. */
    podsByKubectl: kubectl('get', 'pods', '--all-namespaces', '-o', 'json'),
    teardown: provider.teardown,
  };
}

test('contract: the dry-run plan lists every setup, step and teardown argv in order, the pod waits and health checks included', async () => {
  await withHarness({}, async (h) => {
    const expected = expectedPlan(h);
    const driver = h.driver(experiment);
    assert.deepEqual(driver.provider.plan(), expected.provider, "the provider's own part");
    const plan = h.cluster(driver, experiment).plan(symbolicTopologyView);
    assert.deepEqual(plan.setup, expected.setup);
    assert.deepEqual(plan.teardown, expected.teardown);
    assert.deepEqual(
      plan.steps.map((s) => [s.step.id, s.node]),
      experiment.steps.map((s) => [s.id, s.kind === 'exec' ? s.node : 'host']),
    );
    for (const { step, argvs } of plan.steps) {
      assert.deepEqual(argvs.slice(-expected.health.length), expected.health, `${step.id}: the health check follows`);
      if (step.kind === 'exec') assert.deepEqual(argvs.slice(0, -expected.health.length), [onNode(step.node, ...step.command(symbolicTopologyView))], step.id);
    }
    assert.deepEqual(plan.steps.find((s) => s.step.kind === 'delete-pod')!.argvs.slice(0, 2), [
      ['kubectl', '--kubeconfig', join(h.stateDir, 'kubeconfig'), 'delete', 'pod', 'backend', '--namespace', 'default', '--wait=true', '--timeout=60s'],
      onNode('control-plane', ...probe('http://<worker.ip>:<s-lb.healthCheckNodePort>/')),
    ]);
    assert.deepEqual(await h.calls(), [], 'a plan runs nothing');

    const kept = h.driver(experiment, { keep: true, reuse: true, loadImages: true, image: 'kindest/node:v1.31.6' }).provider.plan();
    assert.equal(
      kept.setup.some((a) => a[1] === 'create'),
      false,
      '--reuse creates nothing',
    );
    assert.deepEqual(kept.teardown, [], '--keep deletes nothing');
    assert.deepEqual(kept.setup.slice(1, 3), [
      ['docker', 'image', 'inspect', '--format', '{{.Id}}', 'nginx:1.27-alpine'],
      ['kind', 'load', 'docker-image', 'nginx:1.27-alpine', '--name', 'kx-main'],
    ]);
    const withImage = h.driver(experiment, { image: 'kindest/node:v1.31.6' }).provider.plan();
    assert.deepEqual(withImage.setup[1]!.slice(-2), ['--image', 'kindest/node:v1.31.6']);
  });
});

test('contract: a run is built for an experiment whose nodes kind can name, and nodeArgv takes only a node the experiment has', async () => {
  await withHarness({}, async (h) => {
    // kind names its node containers by role and order: an experiment naming them otherwise would put steps on the wrong node.
    const misnamed = {
      ...experiment,
      cluster: { ...experiment.cluster, nodes: experiment.cluster.nodes.map((n) => (n.name === 'worker2' ? { ...n, name: 'w2' } : n)) },
    };
    assert.throws(
      () => h.driver(misnamed),
      (error: Error) => error instanceof DriverError && /nodes\[2\]\.name: kind names this worker "worker2", the experiment says "w2"/.test(error.message),
    );
    const driver = h.driver(experiment);
    assert.deepEqual(driver.provider.nodeArgv('worker2', ['iptables-save', '-t', 'filter']), [
      'docker',
      'exec',
      'kx-main-worker2',
      'iptables-save',
      '-t',
      'filter',
    ]);
    assert.throws(() => driver.provider.nodeArgv('worker3', ['true']), /no node "worker3" in cluster "kx-main"/);
    assert.deepEqual(await h.calls(), [], 'building a run runs nothing');
  });
});

test("contract: up() says what each node is: the experiment's name and role, its address as docker reports it, the owner label its kind config sets", async () => {
  await withHarness({}, async (h) => {
    const driver = h.driver(experiment);
    const ctx = context();
    const nodes = await driver.provider.up(ctx);
    const owner = { 'shice/created-by': 'shice' };
    // The fake docker gives each node container the InternalIP the fixture's API reports for that node.
    assert.deepEqual(nodes, [
      { name: 'control-plane', k8sName: 'kx-main-control-plane', role: 'control-plane', address: '172.19.0.4', labels: owner },
      { name: 'worker', k8sName: 'kx-main-worker', role: 'worker', address: '172.19.0.2', labels: owner },
      { name: 'worker2', k8sName: 'kx-main-worker2', role: 'worker', address: '172.19.0.3', labels: owner },
    ]);
    // The container runtime is the run's fact from the API's nodes: the control plane's kubelet's word.
    assert.deepEqual(driver.apiFacts!(parseNodeList(await fixture('nodes.json'))), { 'container-runtime': 'containerd://2.0.2' });
    assert.deepEqual(driver.apiFacts!([]), {}, 'nothing the API did not report');
    await driver.provider.down(ctx);
    assert.deepEqual((await h.fakeState()).clusters, {});
  });
});

test('contract: a full run reads every value from the tools, runs the steps and deletes only its own cluster', async () => {
  await withHarness({}, async (h) => {
    const driver = h.driver(experiment);
    const cluster = h.cluster(driver, experiment);
    const ctx = context();
    await driver.provider.preflight();
    const expected = expectedPlan(h);
    const before = (await h.calls()).length;

    const topology = await cluster.up(ctx);

    // The topology is the fixture's (172.19.0.x, unusual ports), not the published article's.
    assert.deepEqual(topology.nodes, [
      { name: 'control-plane', k8sName: 'kx-main-control-plane', role: 'control-plane', internalIP: '172.19.0.4', podCIDR: '10.244.0.0/24' },
      { name: 'worker', k8sName: 'kx-main-worker', role: 'worker', internalIP: '172.19.0.2', podCIDR: '10.244.2.0/24' },
      { name: 'worker2', k8sName: 'kx-main-worker2', role: 'worker', internalIP: '172.19.0.3', podCIDR: '10.244.1.0/24' },
    ]);
    assert.deepEqual(topology.pods, [
      { name: 'backend', namespace: 'default', node: 'worker', ip: '10.244.2.9', image: 'docker.io/library/nginx:1.27-alpine' },
    ]);
    assert.deepEqual(topology.services, [
      {
        name: 's-cluster',
        namespace: 'default',
        type: 'NodePort',
        externalTrafficPolicy: 'Cluster',
        internalTrafficPolicy: 'Cluster',
        clusterIP: '10.96.143.21',
        port: 80,
        targetPort: 80,
        nodePort: 30917,
        healthCheckNodePort: null,
      },
      {
        name: 's-local',
        namespace: 'default',
        type: 'NodePort',
        externalTrafficPolicy: 'Local',
        internalTrafficPolicy: 'Cluster',
        clusterIP: '10.96.7.200',
        port: 80,
        targetPort: 80,
        nodePort: 32088,
        healthCheckNodePort: null,
      },
      {
        name: 's-lb',
        namespace: 'default',
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        internalTrafficPolicy: 'Cluster',
        clusterIP: '10.96.201.5',
        port: 80,
        targetPort: 80,
        nodePort: 31444,
        healthCheckNodePort: 30666,
      },
    ]);
    for (const n of topology.nodes) nodeSchema.parse(n);
    for (const p of topology.pods) podSchema.parse(p);
    for (const s of topology.services) serviceSchema.parse(s);

    // What up() ran is what the plan says, in the same order, up to the versions (docker ps is the
    // ownership bookkeeping, the containers' state what problems() compares; a poll repeats until it holds).
    const states = dockerContainerStates([]);
    const bookkeeping = (argv: string[]) => argv[1] === 'ps' || JSON.stringify(argv.slice(0, states.length)) === JSON.stringify(states);
    const upCalls = (await h.calls()).slice(before).filter((c) => !(c.tool === 'docker' && bookkeeping(c.argv)));
    const collapsed = upCalls.filter((c, i) => i === 0 || JSON.stringify(c.argv) !== JSON.stringify(upCalls[i - 1]!.argv));
    const realized = (argv: string[]) => argv.map((a) => a.replace('<s-lb.endpointNode.ip>', '172.19.0.2').replace('<s-lb.healthCheckNodePort>', '30666'));
    assert.deepEqual(
      collapsed.map((c) => c.argv),
      expected.setup.slice(0, -expected.versions.length).map(realized),
    );
    const settlePolls = upCalls.filter((c) => c.argv.includes('http://172.19.0.2:30666/'));
    assert.ok(settlePolls.length >= 2, 'up() polled the health check until kube-proxy reported the endpoint');

    // The kind config it wrote: 3 nodes, iptables stated, the experiment's subnets, marked as shice's.
    const config = load(await readFile(kindStatePaths(h.stateDir, 'kx-main').config, 'utf8')) as {
      apiVersion: string;
      kind: string;
      networking: Record<string, string>;
      nodes: { role: string; labels: Record<string, string> }[];
    };
    assert.equal(config.apiVersion, 'kind.x-k8s.io/v1alpha4');
    assert.equal(config.kind, 'Cluster');
    assert.deepEqual(config.networking, { kubeProxyMode: 'iptables', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/16' });
    assert.deepEqual(
      config.nodes.map((n) => n.role),
      ['control-plane', 'worker', 'worker'],
    );
    for (const n of config.nodes) assert.deepEqual(n.labels, { 'shice/created-by': 'shice', 'shice/run-id': 'test-run-1' });

    // The marker names the cluster, the run and exactly the containers docker lists.
    const marker = JSON.parse(await readFile(kindStatePaths(h.stateDir, 'kx-main').marker, 'utf8'));
    const live = (await h.fakeState()).clusters['kx-main']!.containers;
    assert.equal(marker.cluster, 'kx-main');
    assert.equal(marker.runId, 'test-run-1');
    assert.deepEqual(marker.containers, live);

    // Versions as the tools reported them: the provider's facts, then the plan's API and kube-proxy reads.
    const beforeVersions = (await h.calls()).length;
    const versions = await cluster.versions(ctx);
    const versionCalls = (await h.calls()).slice(beforeVersions).map((c) => c.argv);
    assert.deepEqual(versionCalls.slice(-expected.versions.length), expected.versions);
    assert.deepEqual(
      versionCalls.slice(0, -expected.versions.length),
      [
        ['kind', 'version'],
        ['docker', 'version', '--format', '{{json .}}'],
        ['docker', 'container', 'inspect', '--format', '{{.Config.Image}}', 'kx-main-control-plane'],
        ...NODES.map((n) => onNode(n, 'iptables', '--version')),
      ],
      "the provider's own facts",
    );
    assert.equal(versions.kind, 'v0.27.0');
    assert.equal(versions.kubectl, 'v1.32.4-dispatcher');
    assert.equal(versions.kubernetes, 'v1.32.2');
    assert.equal(versions.docker, '28.2.2');
    assert.equal(versions['docker-host'], 'linux/amd64');
    assert.equal(versions['docker-kernel'], '6.8.0-49-generic');
    assert.equal(versions['node-image'], 'kindest/node:v1.32.2@sha256:f226345927d7e348497136874b6d207e0b32cc52154ad8323129352923a3142f');
    assert.equal(versions['kube-proxy-mode'], 'iptables');
    assert.equal(versions.iptables, 'v1.8.9');
    assert.equal(versions['iptables-backend'], 'nf_tables');
    assert.equal(versions['container-runtime'], 'containerd://2.0.2');
    assert.ok(versions['host-os'] && versions['host-arch']);

    // The health check before the first step: the node containers (the provider's word), the plan's
    // probes (kubelet's among them) and the pods, all asked at once (their order is the scheduler's); which
    // answer counts first is the failure paths' to show (below). The fake kind's kubeconfig holds no certificate
    // this process can load, so kubectl lists the pods where a real one's GET does (api-get.test.ts).
    const beforeHealth = (await h.calls()).length;
    await cluster.checkHealthy(ctx, 'before the first step');
    const healthCalls = (await h.calls()).slice(beforeHealth).map((c) => c.argv);
    const sorted = (argvs: string[][]) => argvs.map((a) => a.join(' ')).sort();
    assert.deepEqual(
      sorted(healthCalls),
      sorted([
        [
          'docker',
          'container',
          'inspect',
          '--format',
          '{{.Name}} {{.State.Running}} {{.State.StartedAt}}{{range .NetworkSettings.Networks}} {{.IPAddress}}{{end}}',
          ...NODES.map((n) => `kx-main-${n}`),
        ],
        ...expected.health.map((argv) => (argv[0] === 'GET' ? expected.podsByKubectl : argv)),
      ]),
    );

    // The steps, as the capture engine runs them: each one, then the health check.
    const view = topologyView(topology);
    const results = new Map<string, StepSnapshot>();
    for (const step of experiment.steps) {
      const snapshot = stepSchema.parse(await cluster.runStep(step, view, ctx));
      await cluster.checkHealthy(ctx, `during step ${step.id}`);
      results.set(step.id, snapshot);
    }
    const r = (id: string) => results.get(id)!;
    assert.deepEqual(r('cluster-via-worker').argv, [
      'docker',
      'exec',
      'kx-main-control-plane',
      'curl',
      '--silent',
      '--show-error',
      '--max-time',
      '3',
      'http://172.19.0.2:30917/',
    ]);
    assert.equal(r('cluster-via-worker').stdout, 'client=10.244.2.1\n');
    assert.equal(r('cluster-via-worker2').stdout, 'client=172.19.0.3\n');
    assert.deepEqual(r('conntrack-worker2').argv, ['docker', 'exec', 'kx-main-worker2', 'conntrack', '-L', '-p', 'tcp', '--orig-port-dst', '30917']);
    assert.equal(r('conntrack-worker2').stdout, await fixture('exec/conntrack-worker2.stdout'));
    assert.equal(r('conntrack-worker2').stderr, 'conntrack v1.4.7 (conntrack-tools): 2 flow entries have been shown.\n');
    assert.equal(r('local-via-worker').stdout, 'client=172.19.0.4\n');
    // A probe that times out is a result: curl's exit code 28, not an error.
    assert.equal(r('local-via-worker2').exitCode, 28);
    assert.equal(r('local-via-worker2').timedOut, undefined, "curl's own limit, not the step's");
    assert.match(r('local-via-worker2').stderr, /^curl: \(28\) Connection timed out after \d+ milliseconds\n$/);
    assert.match(
      r('iptables-worker2').stdout,
      /-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default\/s-local has no local endpoints" -m addrtype --dst-type LOCAL -m tcp --dport 32088 -j DROP/,
    );
    assert.match(r('health-worker').stdout, /^HTTP\/1\.1 200 OK\r\n[\s\S]*"localEndpoints": 1,/);
    assert.match(r('health-worker2').stdout, /^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*"localEndpoints": 0,/);
    assert.match(r('health-control-plane').stdout, /^HTTP\/1\.1 503/);
    assert.deepEqual(r('delete-backend').command, ['kubectl', 'delete', 'pod', 'backend', '--namespace', 'default', '--wait=true', '--timeout=60s']);
    assert.deepEqual(r('delete-backend').argv, ['kubectl', '--kubeconfig', join(h.stateDir, 'kubeconfig'), ...r('delete-backend').command.slice(1)]);
    assert.equal(r('delete-backend').stdout, 'pod "backend" deleted\n');
    assert.match(r('health-worker-after-delete').stdout, /^HTTP\/1\.1 503/);

    // The delete step returned only after the worker's health check said 0 (the fake lags two
    // polls), and records that wait: the probe, its polls, the time and kube-proxy's answer.
    const all = await h.calls();
    const deleteAt = all.findIndex((c) => c.argv.includes('delete') && c.tool === 'kubectl');
    const afterDelete = all.slice(deleteAt + 1);
    const firstStepAfter = afterDelete.findIndex((c) => c.argv.includes('--include'));
    const polls = afterDelete.slice(0, firstStepAfter).filter((c) => c.argv.at(-1) === 'http://172.19.0.2:30666/');
    assert.ok(polls.length >= 3, `expected at least 3 settle polls after the delete, got ${polls.length}`);
    const settle = r('delete-backend').settle!;
    assert.deepEqual(settle.command, probe('http://172.19.0.2:30666/'));
    assert.equal(settle.polls, polls.length, 'every poll counted');
    assert.ok(settle.afterDeleteMs! > 0);
    assert.equal(settle.afterReadyMs, undefined);
    assert.equal(settle.answer, (await fixture('exec/health-503.stdout')).split('\r\n\r\n')[1], "kube-proxy's answer, as it came");

    await cluster.down(ctx);
    const deletes = (await h.calls()).filter(isDelete);
    assert.deepEqual(
      deletes.map((c) => c.argv),
      expected.teardown,
    );
    assert.deepEqual((await h.fakeState()).clusters, {});
    assert.equal(existsSync(kindStatePaths(h.stateDir, 'kx-main').marker), false, 'the marker goes with the cluster');
    await cluster.down(ctx);
    assert.equal((await h.calls()).filter(isDelete).length, 1, 'down() is idempotent');

    // Isolation: every call saw the capture's kubeconfig, kubectl got it first on its
    // command line, kind's create and delete got it too (its other commands reject the flag).
    const ours = join(h.stateDir, 'kubeconfig');
    const everyCall = await h.calls();
    for (const call of everyCall) {
      assert.equal(call.KUBECONFIG, ours, `KUBECONFIG for ${call.argv.join(' ')}`);
      assert.equal(call.argv.includes(h.userKubeconfig), false);
      if (call.tool === 'kubectl') assert.deepEqual(call.argv.slice(1, 3), ['--kubeconfig', ours], call.argv.join(' '));
      if (isCreate(call) || isDelete(call)) assert.equal(call.argv[call.argv.indexOf('--kubeconfig') + 1], ours, call.argv.join(' '));
    }
    assert.equal(await readFile(h.userKubeconfig, 'utf8'), USER_KUBECONFIG_TEXT, "the user's kubeconfig is untouched");
    assert.ok(existsSync(ours), "kind wrote the capture's own kubeconfig");

    // With the node containers gone (as if deleted under the driver), a step's failure is that, not a result.
    await assert.rejects(
      driver.provider.exec('worker2', ['iptables-save', '-t', 'filter'], { timeoutMs: 10_000 }, ctx),
      /^DriverError: kind cluster "kx-main" was deleted by something other than this capture \(node container kx-main-control-plane is gone, .*\) during the step \(iptables-save on worker2 exited 1: Error response from daemon: No such container: kx-main-worker2\)$/,
    );
  });
});

test('contract: a kind cluster of the same name that the capture did not create is refused and never deleted', async () => {
  for (const reuse of [false, true]) {
    await withHarness({ scenario: 'foreign-cluster' }, async (h) => {
      const before = { containers: containersFor('kx-main', 'someone-else') };
      const cluster = h.cluster(h.driver(experiment, { reuse }), experiment);
      const ctx = context();
      await assert.rejects(cluster.up(ctx), (error: Error) => {
        assert.ok(error instanceof PrerequisiteError, 'refused as a target is: exit 2');
        assert.match(error.message, /a kind cluster named "kx-main" already exists and was not created by this capture/);
        assert.equal(error.message.includes('\n'), false, 'one line');
        return true;
      });
      await cluster.down(ctx);
      const calls = await h.calls();
      assert.equal(calls.some(isDelete), false, 'never deleted');
      assert.equal(calls.some(isCreate), false, 'never replaced');
      assert.equal(
        calls.some((c) => c.tool === 'kubectl' && c.argv.includes('apply')),
        false,
        'nothing applied to it',
      );
      assert.deepEqual((await h.fakeState()).clusters['kx-main'], before);
    });
  }
});

test('contract: a stale marker from an earlier capture does not make a foreign cluster ours', async () => {
  await withHarness({ scenario: 'foreign-cluster' }, async (h) => {
    const { writeMarker } = await import('../../src/capture/kind/ownership.ts');
    await writeMarker(h.stateDir, {
      createdBy: 'shice',
      cluster: 'kx-main',
      runId: 'an-earlier-run',
      createdAt: '2026-11-30T10:00:00.000Z',
      containers: [{ id: 'a'.repeat(64), name: 'kx-main-control-plane' }],
    });
    const cluster = h.cluster(h.driver(experiment, { reuse: true }), experiment);
    await assert.rejects(cluster.up(context()), /not created by this capture/);
    await cluster.down({ log: () => {} });
    assert.equal((await h.calls()).some(isDelete), false);
  });
});

test('contract: a failing setup step aborts up() and down() deletes what it created', async () => {
  await withHarness({ scenario: 'fail-apply' }, async (h) => {
    const cluster = h.cluster(h.driver(experiment), experiment);
    const ctx = context();
    await assert.rejects(cluster.up(ctx), (error: Error) => {
      assert.ok(error instanceof DriverError);
      assert.match(error.message, /could not apply manifests\/services\.yaml: .*services\.yaml.*exited 1: Error from server \(InternalError\)/);
      return true;
    });
    assert.ok((await h.fakeState()).clusters['kx-main'], 'the cluster was created before the failure');
    await cluster.down(ctx);
    assert.deepEqual(
      (await h.calls()).filter(isDelete).map((c) => c.argv),
      expectedPlan(h).teardown,
    );
    assert.deepEqual((await h.fakeState()).clusters, {});
    assert.ok(ctx.lines.includes('deleting kind cluster "kx-main"'));
  });
});

test('contract: a delete-pod step that never settles fails the run, and the cluster is still deleted', async () => {
  await withHarness({ scenario: 'never-settles' }, async (h) => {
    const cluster = h.cluster(h.driver(experiment), experiment, { settlePollMs: 10, settleTimeoutMs: 1500 });
    const ctx = context();
    const topology = await cluster.up(ctx);
    await assert.rejects(
      cluster.runStep(deleteStep, topologyView(topology), ctx),
      /after deleting pod default\/backend, s-lb's health check on worker \(http:\/\/172\.19\.0\.2:30666\/\) still reported localEndpoints=1 after 1\.5 s/,
    );
    await cluster.down(ctx);
    assert.equal((await h.calls()).filter(isDelete).length, 1);
    assert.deepEqual((await h.fakeState()).clusters, {});
  });
});

test('contract: an abort during kind create stops at once, and down() deletes the half-made cluster', async () => {
  await withHarness({ scenario: 'slow-create' }, async (h) => {
    const cluster = h.cluster(h.driver(experiment), experiment);
    const controller = new AbortController();
    const ctx = context(controller.signal);
    const up = cluster.up(ctx);
    // Abort once the fake kind has started creating (it then sleeps for a minute).
    for (let i = 0; i < 200 && !(await h.fakeState()).clusters['kx-main']; i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok((await h.fakeState()).clusters['kx-main'], 'kind create started');
    const abortedAt = performance.now();
    controller.abort();
    await assert.rejects(up, (error: Error) => error instanceof DriverError && /interrupted/.test(error.message));
    assert.ok(performance.now() - abortedAt < 10_000, 'the child was stopped, not waited for');
    await cluster.down(ctx);
    assert.deepEqual(
      (await h.calls()).filter(isDelete).map((c) => c.argv),
      expectedPlan(h).teardown,
    );
    assert.deepEqual((await h.fakeState()).clusters, {});
    assert.equal(
      (await h.calls()).some((c) => c.tool === 'kubectl' && c.argv.includes('apply')),
      false,
      'nothing ran after the abort',
    );
  });
});

test('contract: --keep leaves the cluster; --reuse runs on it without creating; without --reuse it is recreated', async () => {
  await withHarness({}, async (h) => {
    const first = h.cluster(h.driver(experiment, { keep: true }), experiment);
    await first.up(context());
    await first.down({ log: () => {} });
    assert.equal((await h.calls()).some(isDelete), false, '--keep');
    const created = (await h.fakeState()).clusters['kx-main']!.containers;

    const mark = (await h.calls()).length;
    const reused = h.cluster(h.driver(experiment, { reuse: true, runId: 'test-run-2' }), experiment);
    const topology = await reused.up(context());
    const reuseCalls = (await h.calls()).slice(mark);
    assert.equal(reuseCalls.some(isCreate), false, '--reuse creates nothing');
    assert.equal(reuseCalls.filter((c) => c.tool === 'kubectl' && c.argv.includes('apply')).length, 2, 'manifests re-applied');
    // What the first run left, removed before the manifests apply: its objects, then on every node its connections to them.
    const at = (test: (c: (typeof reuseCalls)[number]) => boolean) => reuseCalls.findIndex(test);
    const deletes = reuseCalls.filter((c) => c.tool === 'kubectl' && c.argv.includes('delete') && c.argv.includes('-f'));
    assert.deepEqual(
      deletes.map((c) => c.argv[c.argv.indexOf('-f') + 1]!.split('/').pop()),
      ['services.yaml', 'backend.yaml'],
      "the manifests' objects, in the reverse order of their apply",
    );
    const forgets = reuseCalls.filter((c) => c.tool === 'docker' && c.argv.includes('conntrack') && c.argv.includes('--delete'));
    assert.deepEqual(
      [...new Set(forgets.map((c) => c.argv[c.argv.indexOf('exec') + 1]))].sort(),
      ['kx-main-control-plane', 'kx-main-worker', 'kx-main-worker2'],
      'each node forgets the connections to them',
    );
    assert.ok(
      at((c) => c.argv.includes('delete') && c.argv.includes('-f')) < at((c) => c.argv.includes('apply')) &&
        at((c) => c.argv.includes('conntrack') && c.argv.includes('--delete')) < at((c) => c.argv.includes('apply')),
      'all of it before the first apply',
    );
    assert.equal(topology.services.find((s) => s.name === 's-lb')!.healthCheckNodePort, 30666, 'topology re-read');
    assert.deepEqual((await h.fakeState()).clusters['kx-main']!.containers, created);

    const mark2 = (await h.calls()).length;
    const fresh = h.cluster(h.driver(experiment, { runId: 'test-run-3' }), experiment);
    await fresh.up(context());
    const freshCalls = (await h.calls()).slice(mark2);
    assert.equal(
      freshCalls.some((c) => c.argv.includes('conntrack') || (c.argv.includes('delete') && c.argv.includes('-f'))),
      false,
      'a run on a fresh cluster removes nothing',
    );
    const deleteAt = freshCalls.findIndex(isDelete);
    const createAt = freshCalls.findIndex(isCreate);
    assert.ok(deleteAt >= 0 && createAt > deleteAt, 'its own earlier cluster is deleted, then created fresh');
    const marker = JSON.parse(await readFile(kindStatePaths(h.stateDir, 'kx-main').marker, 'utf8'));
    assert.equal(marker.runId, 'test-run-3');
    await fresh.down({ log: () => {} });
    assert.deepEqual((await h.fakeState()).clusters, {});
  });
});

test('contract: --load-images pulls an absent image, then loads it into the nodes before applying', async () => {
  await withHarness({ scenario: 'image-absent' }, async (h) => {
    const cluster = h.cluster(h.driver(experiment, { loadImages: true }), experiment);
    await cluster.up(context());
    const argvs = (await h.calls()).map((c) => c.argv.join(' '));
    const at = (prefix: string) => argvs.findIndex((a) => a.startsWith(prefix));
    assert.ok(at('kind create cluster') < at('docker image inspect --format {{.Id}} nginx:1.27-alpine'));
    assert.ok(at('docker image inspect') < at('docker pull nginx:1.27-alpine'));
    assert.ok(at('docker pull') < at('kind load docker-image nginx:1.27-alpine --name kx-main'));
    assert.ok(at('kind load docker-image') < at('kubectl --kubeconfig'));
    await cluster.down({ log: () => {} });
  });
});

test('contract: preflight names what is missing in one line and points at --driver lab', async () => {
  await withHarness({ scenario: 'no-daemon' }, async (h) => {
    await assert.rejects(h.driver(experiment).provider.preflight(), (error: Error) => {
      assert.ok(error instanceof PrerequisiteError);
      assert.match(
        error.message,
        /the Docker daemon is not reachable \(Cannot connect to the Docker daemon at unix:\/\/\/var\/run\/docker\.sock\. Is the docker daemon running\?\)/,
      );
      assert.match(error.message, /--driver lab/);
      assert.equal(error.message.includes('\n'), false);
      return true;
    });
  });
  await withHarness({ tools: ['docker', 'kubectl'] }, async (h) => {
    await assert.rejects(h.driver(experiment).provider.preflight(), (error: Error) => {
      assert.ok(error instanceof PrerequisiteError);
      assert.match(error.message, /kind is not installed .*https:\/\/kind\.sigs\.k8s\.io/);
      assert.doesNotMatch(error.message, /docker is not|daemon|kubectl is not/);
      return true;
    });
  });
  await withHarness({ tools: [] }, async (h) => {
    await assert.rejects(h.driver(experiment).provider.preflight(), /docker is not installed.*kind is not installed.*kubectl is not installed.*--driver lab/);
  });
  await withHarness({}, async (h) => {
    await h.driver(experiment).provider.preflight();
    assert.deepEqual((await h.calls()).map((c) => c.argv[0]).sort(), ['docker', 'kind', 'kubectl']);
  });
});

test('contract: versions() before up() is refused and asks nothing; preflight asks kubectl for its client only', async () => {
  await withHarness({}, async (h) => {
    const driver = h.driver(experiment);
    await assert.rejects(h.cluster(driver, experiment).versions(context()), (error: Error) => {
      assert.ok(error instanceof DriverError);
      assert.match(error.message, /the cluster has not been read yet: up\(\) has not finished/);
      return true;
    });
    assert.deepEqual(await h.calls(), [], 'no tool was asked');
    await driver.provider.preflight();
    const kubectlCalls = (await h.calls()).filter((c) => c.tool === 'kubectl');
    assert.ok(kubectlCalls.length > 0 && kubectlCalls.every((c) => c.argv.includes('--client')), 'no server is asked before up()');
  });
});

/** A capture of 074 through the runner, as the CLI runs it, into a fresh folder that is removed afterwards. */
async function captureInto(h: Harness, experimentToRun: Experiment, body: (run: Promise<unknown>, target: string) => Promise<void>): Promise<void> {
  const out = await mkdtemp(join(tmpdir(), 'shice-kind-contract-out-'));
  try {
    const target = join(out, experimentToRun.slug);
    const run = runCapture({
      experiment: experimentToRun,
      driver: h.driver(experimentToRun),
      articleDir: ARTICLE_DIR,
      kubernetes: FAKE_KIND_RELEASE,
      target,
      runId: '20261203T120000Z-c0ffee',
      signal: new AbortController().signal,
      reporter: { phase() {}, stepStarted() {}, stepFinished() {} },
      git: { commit: null, dirty: false },
      host: { os: 'linux', arch: 'x64', kernel: 'test' },
    });
    await body(run, target);
    assert.equal(existsSync(target), false, 'no snapshots were written');
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

test('contract: a kube-proxy that stops answering its /healthz once the steps began fails the run, naming it and its node', { timeout: 60_000 }, async () => {
  await withHarness({ scenario: 'frozen-kube-proxy' }, async (h) => {
    await captureInto(h, experiment, async (run) => {
      await assert.rejects(run, (error: Error) => {
        assert.ok(error instanceof DriverError);
        assert.equal(
          error.message,
          'the cluster broke during step cluster-via-worker (kube-proxy on worker2 did not answer http://127.0.0.1:10256/healthz (curl exit 28: no answer within 2 s, frozen?)): this run is no measurement',
        );
        return true;
      });
    });
    const calls = await h.calls();
    assert.equal(calls.filter((c) => c.tool === 'docker' && c.argv.includes('--show-error')).length, 1, 'no step ran after the one it broke under');
    assert.deepEqual((await h.fakeState()).clusters, {}, 'the cluster is deleted all the same');
  });
});

test('contract: a step that never ends fails the run with its time limit, and the cluster is still deleted', { timeout: 60_000 }, async () => {
  const limited = { ...experiment, steps: experiment.steps.map((s) => (s.id === 'conntrack-worker2' ? { ...s, timeoutMs: 1000 } : s)) };
  await withHarness({ scenario: 'endless-step' }, async (h) => {
    await captureInto(h, limited, async (run) => {
      const started = performance.now();
      await assert.rejects(run, (error: Error) => {
        assert.ok(error instanceof DriverError);
        assert.equal(
          error.message,
          "step conntrack-worker2 on worker2 did not finish within 1 s (`conntrack -L -p tcp --orig-port-dst 30917`): a step that may take longer declares timeoutMs, or onTimeout: 'record'",
        );
        return true;
      });
      assert.ok(performance.now() - started < 30_000, "ended at its limit, not at the fake's minute");
    });
    assert.deepEqual((await h.fakeState()).clusters, {}, 'the cluster is deleted all the same');
  });
});
