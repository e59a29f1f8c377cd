// The wait that replaced a fixed pause: the EndpointSlices and kube-proxy's own metrics, on real output
// (075's lab run: three ready web Pods behind s-cluster and s-local; kube-proxy v1.37.2 in iptables mode).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { endpointsBehind, notSynced, parseEndpointSlices, parseProxySync } from '../../src/capture/kubectl/proxy-sync.ts';
import { parsePodList, parseServiceList } from '../../src/capture/kubectl/topology.ts';
import { ToolOutputError } from '../../src/capture/kubectl/api-output.ts';

const sample = (name: string) => readFile(new URL(`../fixtures/samples/kube-proxy/${name}`, import.meta.url), 'utf8');
const declared = [
  { name: 's-cluster', namespace: 'default' },
  { name: 's-local', namespace: 'default' },
];

test('EndpointSlices: the ready addresses of each Service, the API server’s own included', async () => {
  const slices = parseEndpointSlices(await sample('endpointslices-075-lab.json'));
  assert.deepEqual([...slices.keys()].sort(), ['default/kubernetes', 'default/s-cluster', 'default/s-local']);
  assert.deepEqual([...slices.get('default/s-local')!].sort(), ['10.244.1.2', '10.244.1.3', '10.244.2.2']);
});

test('the API has caught up once every declared Service lists exactly its ready Pods', async () => {
  const [slices, services, pods] = [
    parseEndpointSlices(await sample('endpointslices-075-lab.json')),
    parseServiceList(await sample('services-075-lab.json')),
    parsePodList(await sample('pods-075-lab.json')),
  ];
  assert.deepEqual(endpointsBehind(declared, services, pods, slices), []);
  // Before the controller wrote one of them: the Service is named with what it lists and what it should.
  const early = new Map(slices);
  early.set('default/s-local', new Set(['10.244.1.2']));
  assert.deepEqual(endpointsBehind(declared, services, pods, early), [
    'default/s-local lists 10.244.1.2, its ready pods are 10.244.1.2, 10.244.1.3, 10.244.2.2',
  ]);
  // A Pod that is no longer Ready must leave the Service's ready endpoints too.
  const notReady = pods.map((p) => (p.ip === '10.244.2.2' ? { ...p, ready: false } : p));
  assert.equal(endpointsBehind(declared, services, notReady, slices).length, 2);
});

test("kube-proxy's sync state from its /metrics; synced when nothing is pending or queued", async () => {
  const metrics = await readFile(new URL('../fixtures/kind/exec/kube-proxy-metrics.stdout', import.meta.url), 'utf8');
  const sync = parseProxySync(metrics, 'worker: /metrics');
  assert.equal(sync.pending, 0);
  assert.ok(sync.lastSync !== null && sync.lastQueued !== null && sync.lastSync >= sync.lastQueued, 'the recorded kube-proxy had run the last sync it queued');
  assert.equal(notSynced(sync), null);
  assert.equal(notSynced({ ...sync, pending: 2 }), '2 change(s) pending');
  assert.equal(notSynced({ ...sync, lastQueued: sync.lastSync! + 0.5 }), 'a sync queued and not yet run');
});

test('metrics without the sync gauges are named, not read as synced', async () => {
  const metrics = (await readFile(new URL('../fixtures/kind/exec/kube-proxy-metrics.stdout', import.meta.url), 'utf8'))
    .split('\n')
    .filter((l) => !l.startsWith('kubeproxy_sync_proxy_rules_endpoint_changes_pending'))
    .join('\n');
  assert.throws(
    () => parseProxySync(metrics, 'worker: /metrics'),
    (e: unknown) => e instanceof ToolOutputError && /endpoint_changes_pending/.test(e.message),
  );
});

test("before kube-proxy's first IPv4 sync its labelled gauges have no IPv4 series: not yet, not an error", async () => {
  const recorded = await readFile(new URL('../fixtures/kind/exec/kube-proxy-metrics.stdout', import.meta.url), 'utf8');
  // The recorded metrics as they were before that first sync: no series labelled IPv4 yet (IPv6's synced first there).
  const early = recorded
    .split('\n')
    .filter((l) => !l.includes('ip_family="IPv4"'))
    .join('\n');
  const sync = parseProxySync(early, 'worker: /metrics');
  assert.equal(sync.lastSync, null);
  assert.equal(sync.lastQueued, null);
  assert.equal(notSynced(sync), 'no sync of its IPv4 rules yet');
  // Queued, not yet synced.
  const queued = recorded
    .split('\n')
    .filter((l) => !l.startsWith('kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family="IPv4"}'))
    .join('\n');
  assert.equal(notSynced(parseProxySync(queued, 'worker: /metrics')), 'no sync of its IPv4 rules yet');
});
