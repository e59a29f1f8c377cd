// What the kind driver stands in for and substitutes, and the checks that keep a
// broken run from becoming evidence: kindnetd's part on each node, the image
// substitution in the manifests' copies, the kind config for a local node image
// on a cgroup v1 host, and the node containers' state before and after the steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, loadAll } from 'js-yaml';
import { experiment074 as experiment } from '../support/articles.ts';
import { renderKindConfig } from '../../src/capture/kind/config.ts';
import { RUNTIME_WRAPPER } from '../../src/capture/kind/engine/engine.ts';
import { KINDNET_CONFLIST, kindnetConflist, kindnetRoutes, parseMtu, standInForKindnetd } from '../../src/capture/kind/kindnet-stand-in.ts';
import { mergeNodeDecisions } from '../../src/capture/provider/stand-in.ts';
import { substituteImages } from '../../src/capture/kind/substitutes.ts';
import { containerChanges, nodeProblems, parseContainerStates } from '../../src/capture/kind/tool-output.ts';
import { processSummary } from '../../src/capture/kind/leftovers.ts';

const nodes = [
  { container: 'kx-main-control-plane', internalIP: '172.18.0.4', podCIDR: '10.244.0.0/24' },
  { container: 'kx-main-worker', internalIP: '172.18.0.3', podCIDR: '10.244.2.0/24' },
  { container: 'kx-main-worker2', internalIP: '172.18.0.2', podCIDR: '10.244.1.0/24' },
];

test("kindnetd's conflist: ptp on the node's podCIDR with the node's MTU, host-local IPAM, then portmap", () => {
  const conf = JSON.parse(kindnetConflist('10.244.2.0/24', 1500));
  assert.equal(conf.cniVersion, '0.3.1');
  assert.equal(conf.name, 'kindnet');
  assert.deepEqual(
    conf.plugins.map((p: { type: string }) => p.type),
    ['ptp', 'portmap'],
  );
  assert.equal(conf.plugins[0].ipMasq, false);
  assert.equal(conf.plugins[0].mtu, 1500);
  assert.deepEqual(conf.plugins[0].ipam, {
    type: 'host-local',
    dataDir: '/run/cni-ipam-state',
    routes: [{ dst: '0.0.0.0/0' }],
    ranges: [[{ subnet: '10.244.2.0/24' }]],
  });
});

test("kindnetd's routes: every other node's podCIDR via that node's InternalIP, none to itself", () => {
  assert.deepEqual(kindnetRoutes(nodes[1]!, nodes), [
    ['ip', 'route', 'replace', '10.244.0.0/24', 'via', '172.18.0.4'],
    ['ip', 'route', 'replace', '10.244.1.0/24', 'via', '172.18.0.2'],
  ]);
  assert.equal(parseMtu('1500\n', 'kx-main-worker'), 1500);
  assert.throws(
    () => parseMtu('cat: /sys/class/net/eth0/mtu: No such file', 'kx-main-worker'),
    /kx-main-worker: \/sys\/class\/net\/eth0\/mtu: expected an MTU/,
  );
});

test('the stand-in runs on each node: read the MTU (and make the folder), then write the conflist through stdin beside the routes', async () => {
  const calls: { container: string; argv: string[]; input?: string }[] = [];
  const written = await standInForKindnetd(nodes, async (container, argv, _what, input) => {
    calls.push({ container, argv, ...(input !== undefined ? { input } : {}) });
    return argv[0] === 'cat' ? (container.endsWith('-worker') ? '1450\n' : '1500\n') : '';
  });
  // What it wrote, per node, merged for run.yaml: a value all nodes share once, a node's own value on its row.
  const merged = mergeNodeDecisions(written);
  const row = (field: string) => merged.filter((d) => d.field === field);
  assert.deepEqual(
    row('cni.conflist').map((d) => [d.source, d.nodes.length]),
    [['stand-in', 3]],
  );
  assert.deepEqual(
    row('cni.conflist.mtu').map((d) => [d.value, d.source, d.from, d.nodes]),
    [
      ['1500', 'read', '/sys/class/net/eth0/mtu on the node', ['kx-main-control-plane', 'kx-main-worker2']],
      ['1450', 'read', '/sys/class/net/eth0/mtu on the node', ['kx-main-worker']],
    ],
  );
  assert.deepEqual(
    row('cni.conflist.ranges (kx-main-worker)').map((d) => [d.value, d.nodes]),
    [['10.244.2.0/24', ['kx-main-worker']]],
  );
  assert.equal(row('routes (kx-main-worker)')[0]!.value, '10.244.0.0/24 via 172.18.0.4; 10.244.1.0/24 via 172.18.0.2');
  assert.deepEqual(
    row('masquerade').map((d) => [d.value, d.source, d.from]),
    [['none', 'stand-in', undefined]],
  );
  for (const d of merged) assert.ok(d.zh && d.en && (d.source === 'read') === (d.from !== undefined), d.field);
  assert.equal(calls.length, 3 * (3 + 2));
  const worker = calls.filter((c) => c.container === 'kx-main-worker');
  assert.deepEqual(
    worker.map((c) => c.argv[0]),
    ['cat', 'mkdir', 'tee', 'ip', 'ip'],
  );
  assert.deepEqual(worker[2]!.argv, ['tee', KINDNET_CONFLIST]);
  assert.equal(JSON.parse(worker[2]!.input!).plugins[0].ipam.ranges[0][0].subnet, '10.244.2.0/24');
  await assert.rejects(
    standInForKindnetd(nodes, async () => 'not a number'),
    /kx-main-control-plane: \/sys\/class\/net\/eth0\/mtu/,
  );
});

test("the manifests' copies name the substitute wherever a container names the image, and nothing else changes", async () => {
  const text = await readFile(new URL('../../content/articles/074-external-traffic-policy/manifests/backend.yaml', import.meta.url), 'utf8');
  const map = new Map([['nginx:1.27-alpine', 'shice/nginx-light:bookworm-abc']]);
  const copy = substituteImages(text, map, 'manifests/backend.yaml');
  assert.equal(copy.replaced, 1);
  const [configMap, pod] = loadAll(copy.text) as Record<string, any>[];
  const [originalMap, originalPod] = loadAll(text) as Record<string, any>[];
  assert.deepEqual(configMap, originalMap);
  assert.equal(pod!.spec.containers[0].image, 'shice/nginx-light:bookworm-abc');
  pod!.spec.containers[0].image = 'nginx:1.27-alpine';
  assert.deepEqual(pod, originalPod);
  const deployment =
    'apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      initContainers: [{name: i, image: busybox}]\n      containers: [{name: w, image: nginx:1.27-alpine}]\n';
  assert.equal(substituteImages(deployment, map, 'd.yaml').replaced, 1);
  assert.equal(substituteImages('kind: Service\n', map, 's.yaml').replaced, 0);
  assert.throws(() => substituteImages('a: [', map, 'bad.yaml'), /bad\.yaml: not YAML/);
});

test('the kind config for a local node image on a cgroup v1 host: no default CNI, no CoreDNS, cgroupfs allowed on v1', () => {
  const config = load(renderKindConfig(experiment.cluster, 'r', { cniStandIn: true, withoutCoreDNS: true, cgroupV1: true })) as Record<string, any>;
  assert.equal(config.networking.disableDefaultCNI, true);
  const patches = (config.kubeadmConfigPatches as string[]).map((p) => load(p) as Record<string, unknown>);
  assert.deepEqual(patches, [
    { kind: 'InitConfiguration', skipPhases: ['preflight', 'addon/coredns'] },
    { kind: 'KubeletConfiguration', cgroupDriver: 'cgroupfs', failCgroupV1: false },
  ]);
  assert.match(config.containerdConfigPatches[0], /SystemdCgroup = false/);
  const official = load(renderKindConfig(experiment.cluster, 'r')) as Record<string, any>;
  assert.equal(official.networking.disableDefaultCNI, undefined);
  assert.equal(official.kubeadmConfigPatches, undefined);
  assert.equal(official.containerdConfigPatches, undefined);
});

test("node containers' state, as real docker printed it: a stopped, restarted or vanished node is named", async () => {
  const fixture = (name: string) => readFile(new URL(`../fixtures/kind/${name}`, import.meta.url), 'utf8');
  const states = parseContainerStates(await fixture('docker-container-states.stdout'));
  assert.deepEqual(
    states.map((s) => [s.name, s.running]),
    [
      ['shice-sample-a', true],
      ['shice-sample-b', false],
    ],
  );
  const partial = parseContainerStates(await fixture('docker-container-states-missing.stdout'));
  assert.deepEqual(
    partial.map((s) => s.name),
    ['shice-sample-a'],
  );
  const running = states.map((s) => ({ ...s, running: true }));
  assert.deepEqual(containerChanges(running, running), []);
  assert.deepEqual(containerChanges(running, states), ['node container shice-sample-b stopped']);
  assert.deepEqual(
    containerChanges(
      running,
      partial.map((s) => ({ ...s, startedAt: '2026-12-03T09:00:00Z' })),
    ),
    ['node container shice-sample-a restarted (at 2026-12-03T09:00:00Z)', 'node container shice-sample-b is gone'],
  );
  assert.throws(() => parseContainerStates('Error: something\n'), /docker container inspect: expected "<name> <running> <startedAt>"/);
  // With each container's addresses on its networks (the format the driver asks for): a stopped one has none.
  assert.deepEqual(
    parseContainerStates(await fixture('docker-container-states-addresses.stdout')).map((s) => [s.name, s.running, s.address]),
    [
      ['shice-sample-a', true, '172.18.0.2'],
      ['shice-sample-b', false, null],
    ],
  );
  assert.deepEqual(
    parseContainerStates(await fixture('docker-container-states-addresses-missing.stdout')).map((s) => [s.name, s.address]),
    [['shice-sample-a', '172.18.0.2']],
  );
  assert.deepEqual(
    states.map((s) => s.address),
    [null, null],
    'docker asked without the addresses says none',
  );
  // Docker no longer knowing a node is said as what it is: the cluster, or nodes of it, deleted from outside.
  assert.deepEqual(nodeProblems('shice', running, states), ['node container shice-sample-b stopped']);
  assert.deepEqual(nodeProblems('shice', running, partial), [
    'node containers of kind cluster "shice" were removed by something other than this capture (node container shice-sample-b is gone)',
  ]);
  assert.deepEqual(nodeProblems('shice', running, []), [
    'kind cluster "shice" was deleted by something other than this capture (node container shice-sample-a is gone, node container shice-sample-b is gone)',
  ]);
});

test('the processes a killed kind run left, summed up by tool', () => {
  assert.equal(
    processSummary([
      '/root/.cache/shice/kind/bin/kind create cluster --name kx-main',
      'docker run --name kx-main-worker',
      'docker run --name kx-main-control-plane',
      'docker exec --privileged kx-main-control-plane kubeadm init',
    ]),
    'kind create cluster, 2× docker run, docker exec',
  );
});

test("the runtime wrapper removes CAP_SYS_RESOURCE from a container being created and a process being exec'd, and passes every argument on", () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-wrapper-'));
  try {
    const spec = JSON.parse(readFileSync(fileURLToPath(new URL('../fixtures/samples/kind-prepare/ctr-oci-spec.stdout', import.meta.url)), 'utf8'));
    for (const set of ['bounding', 'effective', 'permitted']) spec.process.capabilities[set].push('CAP_SYS_RESOURCE', 'CAP_NET_ADMIN');
    writeFileSync(join(dir, 'config.json'), JSON.stringify(spec));
    writeFileSync(join(dir, 'process.json'), JSON.stringify(spec.process));
    // The "real runc" records its arguments, so the test sees what was handed over.
    const fake = join(dir, 'runc');
    writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$@" > ${join(dir, 'args')}\n`, { mode: 0o755 });
    const env = { ...process.env, SHICE_REAL_RUNC: fake };
    const argsSeen = () => readFileSync(join(dir, 'args'), 'utf8').trim().split('\n');

    execFileSync(RUNTIME_WRAPPER, ['--root', '/run/x', '--log', '/tmp/l', 'create', '--bundle', dir, '--pid-file', '/tmp/p', 'c1'], { env });
    const created = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    for (const set of ['bounding', 'effective', 'permitted']) {
      assert.ok(!created.process.capabilities[set].includes('CAP_SYS_RESOURCE'), `${set} without CAP_SYS_RESOURCE`);
      assert.ok(created.process.capabilities[set].includes('CAP_NET_ADMIN'), `${set} keeps the others`);
    }
    assert.deepEqual(argsSeen(), ['--root', '/run/x', '--log', '/tmp/l', 'create', '--bundle', dir, '--pid-file', '/tmp/p', 'c1']);

    execFileSync(RUNTIME_WRAPPER, ['exec', '--process', join(dir, 'process.json'), '--detach', 'c1'], { env });
    const process1 = JSON.parse(readFileSync(join(dir, 'process.json'), 'utf8'));
    assert.ok(!process1.capabilities.bounding.includes('CAP_SYS_RESOURCE'));
    assert.ok(process1.capabilities.bounding.includes('CAP_NET_ADMIN'));

    writeFileSync(join(dir, 'untouched.json'), '{"x":1}');
    execFileSync(RUNTIME_WRAPPER, ['state', 'c1'], { env, cwd: dir });
    assert.deepEqual(argsSeen(), ['state', 'c1'], 'other commands are handed over as they came');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a kind capture's parts, from the times its real progress lines arrived at", async () => {
  const { kindParts } = await import('../../src/capture/kind/phases.ts');
  const text = await readFile(new URL('../fixtures/samples/kind-prepare/capture-progress.txt', import.meta.url), 'utf8');
  // One second a line: what is checked is which lines open which part.
  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((line, i) => ({ atMs: i * 1000, text: line }));
  const at = (prefix: string) => lines.find((l) => l.text.startsWith(prefix))!.atMs;
  const parts = kindParts(lines, 40_000)!;
  assert.equal(parts.preflightMs, at('· creating kind cluster'));
  assert.equal(parts.clusterMs, at('· waiting for every node') - at('· creating kind cluster'));
  assert.equal(parts.standInMs, at('· waiting for the default ServiceAccount') - at('· waiting for every node'));
  assert.equal(parts.podCidrsMs, null, 'a capture older than the podCIDR line: the wait is in the stand-in part');
  assert.equal(parts.nodesReadyMs, at('· waiting for pod ') - at('· waiting for the default ServiceAccount'));
  assert.equal(parts.podsReadyMs, at('[ 1/11]') - at('· waiting for pod '));
  assert.equal(parts.stepsMs, at('· taking the kind environment down') - at('[ 1/11]'));
  assert.equal(parts.teardownMs, 40_000 - at('· taking the kind environment down'));
  assert.equal(
    kindParts(
      lines.filter((l) => !l.text.includes('creating kind cluster')),
      40_000,
    ),
    null,
    'a run without the marks has no parts',
  );
  // A capture that opens its steps with the runner's phase line: the steps begin there, not where the first one ended.
  const { stepsPhase } = await import('../../src/capture/session/runner.ts');
  const { KIND_MARKS } = await import('../../src/capture/kind/phases.ts');
  assert.ok(stepsPhase(11).startsWith(KIND_MARKS.steps), 'the mark is the words the runner prints');
  const pods = at('· waiting for pod ');
  const opened = [...lines.filter((l) => l.atMs <= pods), { atMs: pods + 500, text: `· ${stepsPhase(11)}` }, ...lines.filter((l) => l.atMs > pods)];
  const withLine = kindParts(opened, 40_000)!;
  assert.equal(withLine.podsReadyMs, 500);
  assert.equal(withLine.stepsMs, at('· taking the kind environment down') - pods - 500);
  // The line that says every node has its podCIDR splits the wait for the controller-manager from the stand-in's writes.
  const standIn = at('· waiting for every node');
  const split = kindParts(
    [
      ...lines.filter((l) => l.atMs <= standIn),
      { atMs: standIn + 700, text: `· ${KIND_MARKS.podCidrs}: kx-main-worker 10.244.1.0/24` },
      ...lines.filter((l) => l.atMs > standIn),
    ],
    40_000,
  )!;
  assert.equal(split.podCidrsMs, 700);
  assert.equal(split.standInMs, at('· waiting for the default ServiceAccount') - standIn - 700);
});
