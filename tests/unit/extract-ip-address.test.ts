import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { RunSnapshot } from '../../src/evidence/schema.ts';
import { inCidr, parseIpAddressJson, podGatewayOnNode } from '../../src/evidence/extract/ip-address.ts';
import { node } from '../../src/evidence/extract/run.ts';
import { readSample, SNAPSHOT_SAMPLE_DIR } from '../fixtures/samples/read-sample.ts';

const run = load(readFileSync(join(SNAPSHOT_SAMPLE_DIR, 'run.yaml'), 'utf8')) as RunSnapshot;
const addresses = (sample: string) => parseIpAddressJson(readSample(sample).stdout);

test("every IPv4 address of worker's interfaces, as ip -j printed them", () => {
  const seen = addresses('ip/addresses-worker.yaml');
  assert.deepEqual(
    seen.map((a) => a.ifname.replace(/^veth[0-9a-f]+$/, 'veth…')),
    ['lo', 'eth0', 'veth…'],
  );
  assert.equal(seen.find((a) => a.ifname === 'eth0')?.local, node(run, 'worker').internalIP);
});

test("the pod gateway is the address worker holds inside its podCIDR, on the backend's veth", () => {
  const worker = node(run, 'worker');
  const gateway = podGatewayOnNode(addresses('ip/addresses-worker.yaml'), worker.podCIDR);
  assert.ok(inCidr(gateway.address, worker.podCIDR));
  assert.equal(gateway.interfaces.length, 1);
  assert.match(gateway.interfaces[0]!, /^veth[0-9a-f]+$/);
  // What the backend saw through worker under Cluster, in the same run.
  const cluster = load(readFileSync(join(SNAPSHOT_SAMPLE_DIR, 'cluster-via-worker.yaml'), 'utf8')) as { stdout: string };
  assert.equal(cluster.stdout.trim(), `client=${gateway.address}`);
});

test('a node with no pod holds nothing inside its podCIDR: an error naming what it saw, not a computed gateway', () => {
  const cp = node(run, 'control-plane');
  assert.throws(
    () => podGatewayOnNode(addresses('ip/control-plane-addresses.yaml'), cp.podCIDR),
    new RegExp(
      `expected exactly one address inside the podCIDR ${cp.podCIDR.replace(/\./g, '\\.')} \\(the pod gateway on a pod's veth\\), found none among: lo 127\\.0\\.0\\.1/8, eth0 ${cp.internalIP.replace(/\./g, '\\.')}/16`,
    ),
  );
  assert.throws(() => podGatewayOnNode(addresses('ip/worker-addresses-after-delete.yaml'), node(run, 'worker').podCIDR), /found none/);
});

test('two different addresses inside the podCIDR are refused', () => {
  const two = [
    { ifname: 'veth1', local: '10.244.1.1', prefixlen: 32 },
    { ifname: 'veth2', local: '10.244.1.1', prefixlen: 32 },
    { ifname: 'cni0', local: '10.244.1.254', prefixlen: 24 },
  ];
  assert.throws(() => podGatewayOnNode(two, '10.244.1.0/24'), /found 10\.244\.1\.1, 10\.244\.1\.254 among/);
  assert.deepEqual(podGatewayOnNode(two.slice(0, 2), '10.244.1.0/24'), { address: '10.244.1.1', interfaces: ['veth1', 'veth2'] });
});

test('inCidr at the edges, and bad input named', () => {
  assert.equal(inCidr('10.244.1.255', '10.244.1.0/24'), true);
  assert.equal(inCidr('10.244.2.0', '10.244.1.0/24'), false);
  assert.equal(inCidr('172.16.4.1', '172.16.5.0/23'), true);
  assert.equal(inCidr('1.2.3.4', '0.0.0.0/0'), true);
  assert.throws(() => inCidr('10.244.1.1', '10.244.1.0'), /expected an IPv4 CIDR, got "10\.244\.1\.0"/);
  assert.throws(() => inCidr('10.256.1.1', '10.244.1.0/24'), /address: expected an IPv4 address, got "10\.256\.1\.1"/);
  assert.throws(() => parseIpAddressJson('Object "address" is unknown'), /ip -j address: expected JSON, got "Object/);
  assert.throws(() => parseIpAddressJson('{}'), /expected a list of interfaces/);
  assert.throws(() => parseIpAddressJson('[{"ifname":"eth0"}]'), /eth0: expected addr_info to be a list/);
});
