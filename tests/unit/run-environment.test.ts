// A run's description of itself (run.yaml's environment) names the kube-proxy mode
// and the Kubernetes version the run reported, never fixed words: the nftables run
// of article 074 once said "kube-proxy in iptables mode".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KindDriver } from '../../src/capture/kind/driver.ts';
import { runIdentity } from '../../src/capture/runner.ts';
import { experiment074 as experiment } from '../support/articles.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { checkChineseProse } from '../../src/article/check/zh-copy.ts';

const ARTICLE = 'content/articles/074-external-traffic-policy';

test("the identity a description names is what the tools reported, the experiment's mode only when kube-proxy was not asked", () => {
  const nft = experimentForVariant(experiment, 'nftables');
  assert.deepEqual(runIdentity(nft, { 'kube-proxy-mode': 'nftables', kubernetes: 'v1.37.2' }), { kubeProxyMode: 'nftables', kubernetesVersion: 'v1.37.2' });
  // What kube-proxy said wins over what was asked of it.
  assert.deepEqual(runIdentity(nft, { 'kube-proxy-mode': 'iptables' }), { kubeProxyMode: 'iptables', kubernetesVersion: null });
  assert.deepEqual(runIdentity(nft, {}), { kubeProxyMode: 'nftables', kubernetesVersion: null });
});

// The lab's descriptions: tests/unit/lab-environment.test.ts.

test('the kind driver describes the mode and version of its run', () => {
  const kind = new KindDriver({
    runId: 'env-test-3',
    articleDir: ARTICLE,
    keep: false,
    reuse: false,
    loadImages: false,
    stateDir: join(tmpdir(), 'shice-env-test'),
  });
  const env = kind.environment({ kubeProxyMode: 'nftables', kubernetesVersion: 'v1.37.0' });
  assert.equal(
    env.summary.en,
    'A real three-node kind cluster (Kubernetes v1.37.0, nodes as Docker containers on one host), kube-proxy in nftables mode, kindnet as the CNI.',
  );
  assert.equal(
    env.summary.zh,
    '一个真实的三节点 kind 集群（Kubernetes v1.37.0，节点是同一台主机上的 Docker 容器），kube-proxy 为 nftables 模式，CNI 是 kindnet。',
  );
});

test('every Chinese description the kind driver can write passes the Chinese copy check', () => {
  const kind = new KindDriver({
    runId: 'env-test-6',
    articleDir: ARTICLE,
    keep: false,
    reuse: false,
    loadImages: false,
    stateDir: join(tmpdir(), 'shice-env-test'),
  });
  for (const driver of [kind]) {
    for (const run of [
      { kubeProxyMode: 'nftables', kubernetesVersion: 'v1.37.2' },
      { kubeProxyMode: 'iptables', kubernetesVersion: null },
    ]) {
      const env = driver.environment(run);
      for (const text of [env.summary.zh, env.standsFor.zh, ...env.limits.map((l) => l.zh)]) assert.deepEqual(checkChineseProse(text), [], text);
    }
  }
});
