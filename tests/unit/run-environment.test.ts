// A run's description of itself (run.yaml's environment) names the kube-proxy mode
// and the Kubernetes version the run reported, never fixed words: the nftables run
// of article 074 once said "kube-proxy in iptables mode".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabDriver } from '../../src/capture/lab/lab-driver.ts';
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

test('the lab describes the mode and version of its run, in both languages', () => {
  const lab = new LabDriver({ runId: 'env-test-1', articleDir: ARTICLE, keep: false, kubeBin: null });
  const nft = lab.environment({ kubeProxyMode: 'nftables', kubernetesVersion: 'v1.37.2' });
  assert.match(nft.summary.en, /^Real Kubernetes v1\.37\.2 on one Linux kernel: .* kube-proxy in nftables mode, built from the official Go modules,/);
  assert.match(nft.summary.zh, /^在一个 Linux 内核上运行真实的 Kubernetes v1\.37\.2：.*和 nftables 模式的 kube-proxy 都由官方 Go 模块构建，/);
  assert.doesNotMatch(`${nft.summary.en} ${nft.summary.zh}`, /iptables/);
  const unknown = lab.environment({ kubeProxyMode: 'iptables', kubernetesVersion: null });
  assert.match(unknown.summary.en, /^Real Kubernetes on one Linux kernel/);
  // Binaries the author named are not claimed to be built from the Go modules.
  const given = new LabDriver({ runId: 'env-test-2', articleDir: ARTICLE, keep: false, kubeBin: '/opt/kubernetes/bin' });
  assert.match(
    given.environment({ kubeProxyMode: 'iptables', kubernetesVersion: 'v1.37.2' }).summary.en,
    /from the binaries the capture was pointed at \(--kube-bin\)/,
  );
});

test('every Chinese description a driver can write passes the Chinese copy check', () => {
  const lab = new LabDriver({ runId: 'env-test-4', articleDir: ARTICLE, keep: false, kubeBin: null });
  const given = new LabDriver({ runId: 'env-test-5', articleDir: ARTICLE, keep: false, kubeBin: '/opt/kubernetes/bin' });
  // The kind driver's: tests/unit/kind-environment.test.ts.
  for (const driver of [lab, given]) {
    for (const run of [
      { kubeProxyMode: 'nftables', kubernetesVersion: 'v1.37.2' },
      { kubeProxyMode: 'iptables', kubernetesVersion: null },
    ]) {
      const env = driver.environment(run);
      for (const text of [env.summary.zh, env.standsFor.zh, ...env.limits.map((l) => l.zh)]) assert.deepEqual(checkChineseProse(text), [], text);
    }
  }
});
