import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  base32,
  endpointChain,
  isServiceChainName,
  portProtoHash,
  serviceChains,
  servicePortName,
} from '../../src/capture/kubeproxy/chain-names.ts';

test('the hash vectors of kube-facts.md', () => {
  assert.equal(portProtoHash('default/my-nginx', 'tcp'), 'L65ENXXZWWSAPRCR');
  assert.equal(endpointChain('default/my-nginx', 'tcp', '10.244.3.3:80'), 'KUBE-SEP-MEZP33SDGZXSPSO5');
});

test('the protocol is hashed in lower case, as kube-proxy lowercases it', () => {
  assert.equal(portProtoHash('default/my-nginx', 'TCP'), 'L65ENXXZWWSAPRCR');
  assert.notEqual(portProtoHash('default/my-nginx', 'udp'), 'L65ENXXZWWSAPRCR');
});

test('base32 is RFC 4648 with the standard alphabet and padding', () => {
  const vectors: [string, string][] = [
    ['', ''],
    ['f', 'MY======'],
    ['fo', 'MZXQ===='],
    ['foo', 'MZXW6==='],
    ['foob', 'MZXW6YQ='],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI======'],
  ];
  for (const [input, expected] of vectors) assert.equal(base32(new TextEncoder().encode(input)), expected, input);
});

test('servicePortName is ns/name, with :port only for a named port', () => {
  assert.equal(servicePortName('default', 'web', null), 'default/web');
  assert.equal(servicePortName('default', 'web', ''), 'default/web');
  assert.equal(servicePortName('kube-system', 'kube-dns', 'dns-tcp'), 'kube-system/kube-dns:dns-tcp');
});

test('one hash names the SVC, SVL, EXT and FW chains of a Service port', () => {
  assert.deepEqual(serviceChains('default/my-nginx', 'tcp'), {
    cluster: 'KUBE-SVC-L65ENXXZWWSAPRCR',
    local: 'KUBE-SVL-L65ENXXZWWSAPRCR',
    external: 'KUBE-EXT-L65ENXXZWWSAPRCR',
    firewall: 'KUBE-FW-L65ENXXZWWSAPRCR',
  });
  for (const chain of Object.values(serviceChains('kube-system/kube-dns:dns-tcp', 'tcp'))) {
    assert.ok(chain.length <= 28, `${chain} is longer than iptables allows`);
  }
});

test('isServiceChainName knows the per-service chains and nothing else', () => {
  for (const chain of ['KUBE-SVC-L65ENXXZWWSAPRCR', 'KUBE-SVL-X', 'KUBE-EXT-X', 'KUBE-FW-X', 'KUBE-SEP-MEZP33SDGZXSPSO5']) {
    assert.equal(isServiceChainName(chain), true, chain);
  }
  for (const chain of ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-MARK-MASQ', 'KUBE-POSTROUTING', 'KIND-MASQ-AGENT', 'POSTROUTING']) {
    assert.equal(isServiceChainName(chain), false, chain);
  }
});
