// kubectl's JSON -> the experiment's Topology: every value read, none assumed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { experiment074 as experiment } from '../support/articles.ts';
import {
  healthChecksToAwait,
  workloadPods,
  logicalNodeName,
  nodesNotAsProvided,
  parseNodeList,
  parsePodList,
  parseServiceList,
  podChanges,
  watchingAgain,
  toNodeInfos,
  toPodInfos,
  prefixNaming,
  toServiceInfos,
} from '../../src/capture/kubectl/topology.ts';

const fixture = (name: string) => readFile(new URL(`../fixtures/kind/${name}`, import.meta.url), 'utf8');
const edit = (json: string, change: (data: { items: Record<string, any>[] }) => void): string => {
  const data = JSON.parse(json);
  change(data);
  return JSON.stringify(data);
};
const wanted = [{ name: 'backend', namespace: 'default' }];
const services = ['s-cluster', 's-local', 's-lb'].map((name) => ({ name, namespace: 'default' }));

test("nodes: InternalIP, podCIDR and role from the API, in the experiment's order", async () => {
  const nodes = parseNodeList(await fixture('nodes.json'));
  assert.deepEqual(
    toNodeInfos(nodes, experiment.cluster).map((n) => [n.name, n.internalIP, n.podCIDR, n.role]),
    [
      ['control-plane', '172.19.0.4', '10.244.0.0/24', 'control-plane'],
      ['worker', '172.19.0.2', '10.244.2.0/24', 'worker'],
      ['worker2', '172.19.0.3', '10.244.1.0/24', 'worker'],
    ],
  );
  assert.equal(nodes[0]!.containerRuntime, 'containerd://2.0.2');
  const provided = (value: string) => ['control-plane', 'worker', 'worker2'].map((name) => ({ name, address: null, labels: { 'shice/created-by': value } }));
  assert.deepEqual(nodesNotAsProvided(nodes, provided('shice'), 'kx-main'), []);
  assert.deepEqual(nodesNotAsProvided(nodes, provided('someone'), 'kx-main'), [
    'nodes kx-main-control-plane, kx-main-worker, kx-main-worker2 lack the label shice/created-by=someone that their provider set: cluster "kx-main" was not created by this capture',
  ]);
  const moved = [{ name: 'worker', address: '172.18.0.9', labels: {} }];
  assert.match(
    nodesNotAsProvided(nodes, moved, 'kx-main')[0]!,
    /^node kx-main-worker reports InternalIP 172\.19\.0\.2, but its provider brought it up at 172\.18\.0\.9$/,
  );
});

test('nodes: a missing InternalIP, a missing node or a wrong role is an error naming the field', async () => {
  const json = await fixture('nodes.json');
  const noIP = edit(json, (d) => {
    d.items[1]!.status.addresses = [{ type: 'Hostname', address: 'kx-main-worker' }];
  });
  assert.throws(() => parseNodeList(noIP), /kubectl get nodes -o json node kx-main-worker: field status\.addresses: expected an entry of type InternalIP/);
  const badCIDR = edit(json, (d) => {
    d.items[2]!.spec.podCIDR = 'fd00::/64';
  });
  assert.throws(() => parseNodeList(badCIDR), /node kx-main-worker2: field spec\.podCIDR: expected an IPv4 CIDR/);
  const twoNodes = edit(json, (d) => {
    d.items.pop();
  });
  assert.throws(
    () => toNodeInfos(parseNodeList(twoNodes), experiment.cluster),
    /expected node "kx-main-worker2" \(experiment node "worker2"\), found: kx-main-control-plane, kx-main-worker/,
  );
  const cpWorker = edit(json, (d) => {
    delete d.items[0]!.metadata.labels['node-role.kubernetes.io/control-plane'];
  });
  assert.throws(() => toNodeInfos(parseNodeList(cpWorker), experiment.cluster), /node kx-main-control-plane: expected role control-plane, the API says worker/);
  assert.throws(() => parseNodeList('{"kind":"Status"}'), /kubectl get nodes -o json: field items: expected a list/);
});

test('pods: IP, the image that ran (the container status) and the logical node of the declared pods only', async () => {
  const pods = parsePodList(await fixture('pods.json'));
  assert.deepEqual(toPodInfos(pods, wanted, prefixNaming('kx-main')), [
    { name: 'backend', namespace: 'default', node: 'worker', ip: '10.244.2.9', image: 'docker.io/library/nginx:1.27-alpine' },
  ]);
  // Before a container has run, the image the spec asks for.
  const waiting = edit(await fixture('pods.json'), (d) => {
    delete d.items[0]!.status.containerStatuses;
  });
  assert.equal(toPodInfos(parsePodList(waiting), wanted, prefixNaming('kx-main'))[0]!.image, 'nginx:1.27-alpine');
  assert.throws(
    () => toPodInfos(pods, [{ name: 'frontend', namespace: 'default' }], prefixNaming('kx-main')),
    /expected pod default\/frontend \(declared in the manifests\), not found/,
  );
  const pending = edit(await fixture('pods.json'), (d) => {
    delete d.items[0]!.status.podIP;
  });
  assert.throws(
    () => toPodInfos(parsePodList(pending), wanted, prefixNaming('kx-main')),
    /pod default\/backend: field status\.podIP: expected an IPv4 address/,
  );
});

test('services: ports, NodePorts and healthCheckNodePort as allocated', async () => {
  const list = parseServiceList(await fixture('services.json'));
  assert.deepEqual(
    toServiceInfos(list, services).map((s) => [s.name, s.type, s.externalTrafficPolicy, s.clusterIP, s.nodePort, s.healthCheckNodePort]),
    [
      ['s-cluster', 'NodePort', 'Cluster', '10.96.143.21', 30917, null],
      ['s-local', 'NodePort', 'Local', '10.96.7.200', 32088, null],
      ['s-lb', 'LoadBalancer', 'Local', '10.96.201.5', 31444, 30666],
    ],
  );
  // A ClusterIP Service (the API server's own, in the same real output) has neither an external policy nor a NodePort.
  assert.deepEqual(
    toServiceInfos(list, [{ name: 'kubernetes', namespace: 'default' }]).map((s) => [s.type, s.externalTrafficPolicy, s.internalTrafficPolicy, s.nodePort]),
    [['ClusterIP', null, 'Cluster', null]],
  );
  assert.deepEqual(
    toServiceInfos(list, services).map((s) => s.internalTrafficPolicy),
    ['Cluster', 'Cluster', 'Cluster'],
    'the default the API server filled in',
  );
  const noExternal = edit(await fixture('services.json'), (d) => {
    delete d.items[3]!.spec.externalTrafficPolicy;
  });
  assert.throws(
    () => toServiceInfos(parseServiceList(noExternal), services),
    /service default\/s-local: field spec\.externalTrafficPolicy: expected Cluster or Local, got null/,
  );
  const noInternal = edit(await fixture('services.json'), (d) => {
    delete d.items[1]!.spec.internalTrafficPolicy;
  });
  assert.throws(
    () => toServiceInfos(parseServiceList(noInternal), services),
    /service default\/s-cluster: field spec\.internalTrafficPolicy: expected Cluster or Local, got null/,
  );
  const named = edit(await fixture('services.json'), (d) => {
    d.items[1]!.spec.ports[0].targetPort = 'http';
  });
  assert.throws(
    () => toServiceInfos(parseServiceList(named), services),
    /service default\/s-cluster: field spec\.ports\[0\]\.targetPort: expected a number, got "http"/,
  );
});

test('health checks to await: nodes running ready pods selected by a Service with a healthCheckNodePort', async () => {
  const pods = parsePodList(await fixture('pods.json'));
  const list = parseServiceList(await fixture('services.json'));
  assert.deepEqual(healthChecksToAwait(pods, list, services, prefixNaming('kx-main')), [{ service: 's-lb', node: 'worker', port: 30666, endpoints: 1 }]);
  const notReady = pods.map((p) => ({ ...p, ready: false }));
  assert.deepEqual(healthChecksToAwait(notReady, list, services, prefixNaming('kx-main')), []);
  const otherApp = pods.map((p) => ({ ...p, labels: { app: 'frontend' } }));
  assert.deepEqual(healthChecksToAwait(otherApp, list, services, prefixNaming('kx-main')), []);
});

test("a workload's pods: its namespace and selector, not being deleted, by name; the health check waits for all of a node's", async () => {
  const base = parsePodList(await fixture('pods.json'))[0]!;
  const pod = (name: string, nodeName: string, extra: Partial<typeof base> = {}) => ({
    ...base,
    name,
    nodeName,
    labels: { app: 'web' },
    ready: true,
    terminating: false,
    ...extra,
  });
  const pods = [
    pod('web-b', 'kx-main-worker'),
    pod('web-a', 'kx-main-worker2'),
    pod('web-c', 'kx-main-worker'),
    pod('web-old', 'kx-main-worker', { terminating: true }),
    pod('db-a', 'kx-main-worker', { labels: { app: 'db' } }),
  ];
  assert.deepEqual(
    workloadPods(pods, { kind: 'Deployment', name: 'web', namespace: 'default', selector: { app: 'web' } }).map((p) => p.name),
    ['web-a', 'web-b', 'web-c'],
  );
  const svc = { ...parseServiceList(await fixture('services.json')).find((s) => s.healthCheckNodePort !== null)!, selector: { app: 'web' } };
  assert.deepEqual(
    healthChecksToAwait(pods, [svc], [{ name: svc.name, namespace: svc.namespace }], prefixNaming('kx-main')).map((w) => [w.node, w.endpoints]),
    [
      ['worker', 2],
      ['worker2', 1],
    ],
  );
});

test('logical node names strip the cluster prefix and nothing else', () => {
  assert.equal(logicalNodeName('kx-main-worker2', 'kx-main', 'x'), 'worker2');
  assert.throws(
    () => logicalNodeName('kind-worker', 'kx-main', 'pod default/backend'),
    /pod default\/backend: node "kind-worker" is not a node of kind cluster "kx-main"/,
  );
  assert.throws(() => logicalNodeName('kx-main-', 'kx-main', 'x'), /not a node of kind cluster/);
});

test('a pod created again is watched again: the health check sees the new one restart or lose Ready, as any other pod', async () => {
  const before = parsePodList(await fixture('pods.json'));
  // The backend deleted and created again: a new uid, the same name.
  const recreated = edit(await fixture('pods.json'), (d) => {
    d.items[0]!.metadata.uid = '7f3c1a22-0b6e-4d1c-9a8e-3f2d1c0b9a88';
  });
  const now = parsePodList(recreated);
  const watched = watchingAgain(before, now, 'default/backend')!;
  assert.deepEqual(podChanges(watched, now, new Set()), [], 'the new pod, as read, is no problem');
  const restarted = parsePodList(
    edit(recreated, (d) => {
      d.items[0]!.status.containerStatuses[0].restartCount = 1;
    }),
  );
  assert.deepEqual(podChanges(watched, restarted, new Set()), ['pod default/backend restarted (1 time(s))']);
  assert.deepEqual(
    podChanges(before, now, new Set()),
    ['pod default/backend was replaced (uid 5e2b8c71-94d3-4f0a-a6e8-2c1d9f4b7a55 -> 7f3c1a22-0b6e-4d1c-9a8e-3f2d1c0b9a88)'],
    'without it, the recreate itself would read as a replaced pod',
  );
  const notReady = parsePodList(
    edit(recreated, (d) => {
      d.items[0]!.status.conditions = d.items[0]!.status.conditions.map((c: { type: string }) => (c.type === 'Ready' ? { ...c, status: 'False' } : c));
    }),
  );
  assert.equal(watchingAgain(before, notReady, 'default/backend'), null, 'not Ready: nothing to watch, the step fails');
});
