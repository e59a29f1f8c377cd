import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { serviceChains, endpointChain } from '../../src/capture/kubeproxy/chain-names.ts';
import type { ProxyEndpoint, ProxyNodeInput, ProxyServicePort } from '../../src/capture/kubeproxy/model.ts';
import { normalizeSave, renderFullRestore } from '../../src/capture/kubeproxy/restore.ts';
import { buildProxyRules, statisticProbability, type NodeProxyRules } from '../../src/capture/kubeproxy/rules.ts';
import { SCENARIOS, SERVICES, SYNCS } from '../fixtures/kubeproxy/scenarios.ts';

const chainsOf = (name: string) => serviceChains(`default/${name}`, 'tcp');
const sep = (name: string, ip: string) => endpointChain(`default/${name}`, 'tcp', `${ip}:80`);
const rules = (scenario: string): NodeProxyRules => buildProxyRules(SCENARIOS[scenario] as ProxyNodeInput);
const inChain = (list: string[], chain: string) => list.filter((r) => r.startsWith(`-A ${chain} `));

/** iptables-save's output (both tables, headers and counters dropped) as a list of lines. */
function fixture(name: string): string[] {
  return lines(normalizeSave(readFileSync(new URL(`../fixtures/kubeproxy/${name}.iptables-save.txt`, import.meta.url), 'utf8')));
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

// The fixtures hold what iptables-save printed after the generated text was loaded into a
// real kernel (tests/fixtures/kubeproxy/record.ts): the text is exactly what the kernel reports.
for (const scenario of Object.keys(SCENARIOS)) {
  test(`scenario ${scenario}: the generated tables are what iptables-save prints back`, () => {
    assert.deepEqual(lines(renderFullRestore(rules(scenario))), fixture(scenario));
  });
}

for (const [name, { to }] of Object.entries(SYNCS)) {
  test(`sync ${name}: after kube-proxy's --noflush sync the kernel holds exactly the new state`, () => {
    assert.deepEqual(lines(renderFullRestore(rules(to))), fixture(name));
  });
}

// Expected values: what iptables v1.8.9 printed for kube-proxy's %0.10f input.
test('statistic probabilities as iptables-save prints them (stored as lround(2^31 p), printed %.11f)', () => {
  assert.equal(statisticProbability(1), '1.00000000000');
  assert.equal(statisticProbability(2), '0.50000000000');
  assert.equal(statisticProbability(3), '0.33333333349');
  assert.equal(statisticProbability(4), '0.25000000000');
  assert.equal(statisticProbability(7), '0.14285714272');
  assert.equal(statisticProbability(1001), '0.00099900085');
  // 1/4096 sits exactly half-way at the 11th decimal; printf rounds to even.
  assert.equal(statisticProbability(4096), '0.00024414062');
  assert.throws(() => statisticProbability(0), /expected a positive integer, got 0/);
});

test('masquerade mark 0x4000: KUBE-MARK-MASQ sets it, KUBE-POSTROUTING clears it and masquerades', () => {
  const { nat } = rules('worker');
  assert.deepEqual(inChain(nat.rules, 'KUBE-MARK-MASQ'), ['-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000']);
  assert.deepEqual(inChain(nat.rules, 'KUBE-POSTROUTING'), [
    '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN',
    '-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0',
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
  ]);
});

test('jumps from the built-in chains, in the order a kind node lists them', () => {
  const { filter, nat } = rules('worker');
  assert.deepEqual(nat.jumps, [
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
  ]);
  assert.deepEqual(inChain(filter.jumps, 'INPUT'), [
    '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL',
    '-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS',
    '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES',
    '-A INPUT -j KUBE-FIREWALL',
  ]);
  assert.ok(filter.jumps.includes('-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES'));
  assert.ok(filter.jumps.includes('-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD'));
});

test('KUBE-SERVICES ends with the jump to KUBE-NODEPORTS for local destinations', () => {
  const services = inChain(rules('worker').nat.rules, 'KUBE-SERVICES');
  assert.equal(
    services.at(-1),
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
  );
  assert.ok(services.includes(`-A KUBE-SERVICES -d 10.96.12.34/32 -p tcp -m comment --comment "default/s-cluster cluster IP" -m tcp --dport 80 -j ${chainsOf('s-cluster').cluster}`));
});

test('a NodePort jumps to its KUBE-EXT chain under both policies', () => {
  const nodePorts = inChain(rules('worker2').nat.rules, 'KUBE-NODEPORTS');
  assert.deepEqual(nodePorts, [
    `-A KUBE-NODEPORTS -p tcp -m comment --comment "default/s-cluster" -m tcp --dport 31575 -j ${chainsOf('s-cluster').external}`,
    `-A KUBE-NODEPORTS -p tcp -m comment --comment "default/s-lb" -m tcp --dport 30951 -j ${chainsOf('s-lb').external}`,
    `-A KUBE-NODEPORTS -p tcp -m comment --comment "default/s-local" -m tcp --dport 32459 -j ${chainsOf('s-local').external}`,
  ]);
});

test('Cluster policy: KUBE-EXT marks for masquerade, then goes to KUBE-SVC', () => {
  const c = chainsOf('s-cluster');
  for (const scenario of ['worker', 'worker2']) {
    assert.deepEqual(inChain(rules(scenario).nat.rules, c.external), [
      `-A ${c.external} -m comment --comment "masquerade traffic for default/s-cluster external destinations" -j KUBE-MARK-MASQ`,
      `-A ${c.external} -j ${c.cluster}`,
    ]);
  }
});

test('Local policy with a local endpoint: no masquerade for outside traffic, KUBE-EXT ends in KUBE-SVL', () => {
  const c = chainsOf('s-local');
  const { nat } = rules('worker');
  assert.deepEqual(inChain(nat.rules, c.external), [
    `-A ${c.external} -s 10.244.0.0/16 -m comment --comment "pod traffic for default/s-local external destinations" -j ${c.cluster}`,
    `-A ${c.external} -m comment --comment "masquerade LOCAL traffic for default/s-local external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ`,
    `-A ${c.external} -m comment --comment "route LOCAL traffic for default/s-local external destinations" -m addrtype --src-type LOCAL -j ${c.cluster}`,
    `-A ${c.external} -j ${c.local}`,
  ]);
  assert.deepEqual(inChain(nat.rules, c.local), [`-A ${c.local} -m comment --comment "default/s-local -> 10.244.1.2:80" -j ${sep('s-local', '10.244.1.2')}`]);
});

test('Local policy without a local endpoint: KUBE-EXT has no way out, filter DROPs the NodePort', () => {
  const c = chainsOf('s-local');
  const { nat, filter } = rules('worker2');
  const ext = inChain(nat.rules, c.external);
  assert.equal(ext.length, 3);
  assert.ok(!ext.some((r) => r.includes(c.local)), 'no jump to KUBE-SVL');
  assert.ok(!nat.chains.includes(c.local), 'no KUBE-SVL chain');
  assert.deepEqual(inChain(filter.rules, 'KUBE-EXTERNAL-SERVICES'), [
    '-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/s-lb has no local endpoints" -m addrtype --dst-type LOCAL -m tcp --dport 30951 -j DROP',
    '-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/s-local has no local endpoints" -m addrtype --dst-type LOCAL -m tcp --dport 32459 -j DROP',
  ]);
  assert.deepEqual(inChain(rules('worker').filter.rules, 'KUBE-EXTERNAL-SERVICES'), [], 'no DROP where the backend runs');
});

test('the health-check NodePort is accepted on every node, with or without local endpoints', () => {
  const accept = '-A KUBE-NODEPORTS -p tcp -m comment --comment "default/s-lb health check node port" -m tcp --dport 31273 -j ACCEPT';
  for (const scenario of Object.keys(SCENARIOS)) assert.deepEqual(inChain(rules(scenario).filter.rules, 'KUBE-NODEPORTS'), [accept], scenario);
});

test('endpoint chains: hairpin masquerade, then DNAT to the pod', () => {
  const chain = sep('s-cluster', '10.244.1.2');
  assert.deepEqual(inChain(rules('worker2').nat.rules, chain), [
    `-A ${chain} -s 10.244.1.2/32 -m comment --comment "default/s-cluster" -j KUBE-MARK-MASQ`,
    `-A ${chain} -p tcp -m comment --comment "default/s-cluster" -m tcp -j DNAT --to-destination 10.244.1.2:80`,
  ]);
});

test('off-cluster sources reaching a ClusterIP are masqueraded (ClusterCIDR local detection)', () => {
  const c = chainsOf('s-cluster');
  assert.equal(
    inChain(rules('worker').nat.rules, c.cluster)[0],
    `-A ${c.cluster} ! -s 10.244.0.0/16 -d 10.96.12.34/32 -p tcp -m comment --comment "default/s-cluster cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ`,
  );
});

test('two or more endpoints: random statistic on all but the last, in address order', () => {
  const c = chainsOf('s-cluster');
  const toEndpoints = inChain(rules('three-endpoints-worker2').nat.rules, c.cluster).slice(1);
  assert.deepEqual(toEndpoints, [
    `-A ${c.cluster} -m comment --comment "default/s-cluster -> 10.244.1.2:80" -m statistic --mode random --probability 0.33333333349 -j ${sep('s-cluster', '10.244.1.2')}`,
    `-A ${c.cluster} -m comment --comment "default/s-cluster -> 10.244.1.3:80" -m statistic --mode random --probability 0.50000000000 -j ${sep('s-cluster', '10.244.1.3')}`,
    `-A ${c.cluster} -m comment --comment "default/s-cluster -> 10.244.2.2:80" -j ${sep('s-cluster', '10.244.2.2')}`,
  ]);
  // Under Local, worker2's KUBE-SVL holds only worker2's endpoint; every endpoint keeps its KUBE-SEP.
  const l = chainsOf('s-local');
  const { nat } = rules('three-endpoints-worker2');
  assert.deepEqual(inChain(nat.rules, l.local), [`-A ${l.local} -m comment --comment "default/s-local -> 10.244.2.2:80" -j ${sep('s-local', '10.244.2.2')}`]);
  for (const ip of ['10.244.1.2', '10.244.1.3', '10.244.2.2']) assert.ok(nat.chains.includes(sep('s-local', ip)), ip);
});

test('no endpoints anywhere: REJECT in filter and no service chains in nat', () => {
  const { nat, filter } = rules('no-endpoints');
  assert.deepEqual(nat.chains, ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ']);
  assert.deepEqual(inChain(nat.rules, 'KUBE-NODEPORTS'), []);
  assert.equal(inChain(nat.rules, 'KUBE-SERVICES').length, 1, 'only the jump to KUBE-NODEPORTS');
  assert.ok(filter.rules.includes('-A KUBE-SERVICES -d 10.96.90.12/32 -p tcp -m comment --comment "default/s-lb has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable'));
  assert.ok(filter.rules.includes('-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/s-lb has no endpoints" -m addrtype --dst-type LOCAL -m tcp --dport 30951 -j REJECT --reject-with icmp-port-unreachable'));
  assert.ok(filter.rules.includes('-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/s-cluster has no endpoints" -m addrtype --dst-type LOCAL -m tcp --dport 31575 -j REJECT --reject-with icmp-port-unreachable'));
  assert.ok(!filter.rules.some((r) => r.endsWith('-j DROP') && r.includes('has no local endpoints')));
});

test('a ClusterIP Service has no NodePort rules and no KUBE-EXT chain', () => {
  const dns: ProxyServicePort = {
    namespace: 'kube-system', name: 'kube-dns', portName: 'dns-tcp', protocol: 'TCP', clusterIP: '10.96.0.10', port: 53,
    nodePort: null, healthCheckNodePort: null, externalTrafficPolicy: 'Cluster',
  };
  const endpoint: ProxyEndpoint = { namespace: 'kube-system', service: 'kube-dns', portName: 'dns-tcp', ip: '10.244.0.3', port: 53, nodeName: 'kx-main-control-plane' };
  const { nat, filter } = buildProxyRules({ nodeName: 'kx-main-worker', clusterCIDR: '10.244.0.0/16', services: [dns], endpoints: [endpoint] });
  const c = serviceChains('kube-system/kube-dns:dns-tcp', 'tcp');
  assert.ok(!nat.chains.includes(c.external));
  assert.deepEqual(inChain(nat.rules, 'KUBE-NODEPORTS'), []);
  assert.deepEqual(inChain(filter.rules, 'KUBE-EXTERNAL-SERVICES'), []);
  assert.ok(nat.rules.includes(`-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "kube-system/kube-dns:dns-tcp cluster IP" -m tcp --dport 53 -j ${c.cluster}`));
});

test('UDP Services use the udp match', () => {
  const udp: ProxyServicePort = { ...(SERVICES[0] as ProxyServicePort), name: 'u', protocol: 'UDP' };
  const { nat } = buildProxyRules({ nodeName: 'n', clusterCIDR: '10.244.0.0/16', services: [udp], endpoints: [{ namespace: 'default', service: 'u', portName: null, ip: '10.244.1.9', port: 80, nodeName: 'n' }] });
  assert.ok(nat.rules.some((r) => r.startsWith('-A KUBE-NODEPORTS -p udp -m comment --comment "default/u" -m udp --dport 31575 ')));
  assert.ok(nat.rules.some((r) => r.includes('-p udp -m comment --comment "default/u" -m udp -j DNAT --to-destination 10.244.1.9:80')));
});

test('above 1000 endpoints kube-proxy drops the per-endpoint comments', () => {
  const endpoints: ProxyEndpoint[] = Array.from({ length: 1001 }, (_, i) => ({
    namespace: 'default', service: 's-cluster', portName: null, ip: `10.244.${Math.floor(i / 250) + 1}.${(i % 250) + 2}`, port: 80, nodeName: 'kx-main-worker',
  }));
  const { nat } = buildProxyRules({ nodeName: 'kx-main-worker', clusterCIDR: '10.244.0.0/16', services: [SERVICES[0] as ProxyServicePort], endpoints });
  const c = chainsOf('s-cluster');
  const first = inChain(nat.rules, c.cluster)[1];
  assert.equal(first, `-A ${c.cluster} -m statistic --mode random --probability 0.00099900085 -j ${sep('s-cluster', '10.244.1.2')}`);
  assert.equal(inChain(nat.rules, sep('s-cluster', '10.244.1.2'))[0], `-A ${sep('s-cluster', '10.244.1.2')} -s 10.244.1.2/32 -j KUBE-MARK-MASQ`);
});

test('endpoints of other Services or other ports are not mixed in', () => {
  const input = SCENARIOS['worker'] as ProxyNodeInput;
  const stray: ProxyEndpoint = { namespace: 'other', service: 's-cluster', portName: null, ip: '10.244.1.77', port: 80, nodeName: 'kx-main-worker' };
  const named: ProxyEndpoint = { namespace: 'default', service: 's-cluster', portName: 'metrics', ip: '10.244.1.78', port: 9100, nodeName: 'kx-main-worker' };
  const { nat } = buildProxyRules({ ...input, endpoints: [...input.endpoints, stray, named] });
  assert.ok(!nat.rules.some((r) => r.includes('10.244.1.77') || r.includes('10.244.1.78')));
});
