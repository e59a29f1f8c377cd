// A run's description of itself (run.yaml's environment) names the kube-proxy mode
// and the Kubernetes version the run reported, never fixed words: the nftables run
// of article 074 once said "kube-proxy in iptables mode".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runIdentity } from '../../src/capture/session/runner.ts';
import { experiment074 as experiment } from '../support/articles.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';

test("the identity a description names is what the tools reported, the experiment's mode only when kube-proxy was not asked", () => {
  const nft = experimentForVariant(experiment, 'nftables');
  assert.deepEqual(runIdentity(nft, { 'kube-proxy-mode': 'nftables', kubernetes: 'v1.37.2' }, { services: [] }), {
    kubeProxyMode: 'nftables',
    kubernetesVersion: 'v1.37.2',
    loadBalancers: 0,
  });
  // What kube-proxy said wins over what was asked of it.
  assert.deepEqual(runIdentity(nft, { 'kube-proxy-mode': 'iptables' }, { services: [] }), {
    kubeProxyMode: 'iptables',
    kubernetesVersion: null,
    loadBalancers: 0,
  });
  assert.deepEqual(runIdentity(nft, {}, { services: [] }), { kubeProxyMode: 'nftables', kubernetesVersion: null, loadBalancers: 0 });
});

// The drivers' descriptions: tests/unit/lab-environment.test.ts, tests/unit/kind-environment.test.ts.
