// A kind run's description of itself (run.yaml's environment, i18n/kind-environment.ts):
// the words of a three-node run as they were before the description left the driver,
// the number of nodes the experiment declares otherwise, in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKindRun } from '../../src/capture/kind/index.ts';
import { kindEnvironment, nodeCount, type KindRunReading } from '../../src/i18n/kind-environment.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { checkChineseProse } from '../../src/article/check/zh-copy.ts';
import { experiment074 } from '../support/articles.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const ARTICLE = 'content/articles/074-external-traffic-policy';
const official: KindRunReading = { cniStandIn: false, localNodeImage: false, substitutions: [] };
const offline: KindRunReading = {
  cniStandIn: true,
  localNodeImage: true,
  substitutions: [
    {
      image: 'nginx:1.27-alpine',
      ranInstead: 'shice/nginx-light:bookworm-abc',
      note: { en: 'The backend ran Debian’s nginx-light.', zh: '后端运行的是 Debian 的 nginx-light。' },
    },
  ],
};

test('the kind driver describes the mode and version of its run', () => {
  const kind = createKindRun(experimentForVariant(experiment074, 'nftables'), {
    runId: 'env-test-3',
    articleDir: ARTICLE,
    kubernetes: HEADLINE_RELEASE,
    keep: false,
    reuse: false,
    loadImages: false,
    stateDir: join(tmpdir(), 'shice-env-test'),
  });
  const env = kind.describe({ kubeProxyMode: 'nftables', kubernetesVersion: 'v1.37.0', nodes: 3, loadBalancers: 1 });
  assert.equal(
    env.summary.en,
    'A real three-node kind cluster (Kubernetes v1.37.0, nodes as Docker containers on one host), kube-proxy in nftables mode, kindnet as the CNI.',
  );
  assert.equal(
    env.summary.zh,
    '一个真实的三节点 kind 集群（Kubernetes v1.37.0，节点是同一台主机上的 Docker 容器），kube-proxy 为 nftables 模式，CNI 是 kindnet。',
  );
});

test('three nodes, offline: every sentence as the kind driver wrote it before its description moved to i18n', () => {
  const env = kindEnvironment({ kubeProxyMode: 'iptables', kubernetesVersion: 'v1.37.2', nodes: 3, loadBalancers: 1 }, offline);
  assert.deepEqual(env.summary, {
    en: 'A real three-node kind cluster (Kubernetes v1.37.2, nodes as Docker containers on one host), kube-proxy in iptables mode; kindnetd’s part written by shice’s stand-in.',
    zh: '一个真实的三节点 kind 集群（Kubernetes v1.37.2，节点是同一台主机上的 Docker 容器），kube-proxy 为 iptables 模式；kindnetd 的部分由 shice 的替身写入。',
  });
  assert.deepEqual(env.standsFor, { en: 'A multi-node Kubernetes cluster.', zh: '它代表一个多节点的 Kubernetes 集群。' });
  assert.deepEqual(env.limits, [
    {
      en: 'kindnetd did not run: its part, the CNI config on each node and the routes between the nodes’ pod CIDRs, was written by shice’s stand-in; its masquerade rules for pod traffic leaving the cluster were not (no step sends any).',
      zh: 'kindnetd 没有运行：它负责的部分，即每个节点上的 CNI 配置和节点之间到 Pod 网段的路由，由 shice 的替身写入；它为离开集群的 Pod 流量设置的伪装规则没有写（没有哪一步发出这样的流量）。',
    },
    {
      en: 'No registry could be reached: the node image was built on this machine from Debian’s packages (containerd, runc, the CNI plugins), kind’s own base files and the Kubernetes binaries built from the official modules, not kind’s published kindest/node; CoreDNS was left out.',
      zh: '这里连不上任何镜像仓库：节点镜像是在本机构建的，用的是 Debian 的软件包（containerd、runc、CNI 插件）、kind 自己的基础文件和从官方模块构建的 Kubernetes 程序，而不是 kind 发布的 kindest/node；CoreDNS 没有安装。',
    },
    {
      en: 'The backend ran Debian’s nginx-light. (nginx:1.27-alpine -> shice/nginx-light:bookworm-abc)',
      zh: '后端运行的是 Debian 的 nginx-light。（nginx:1.27-alpine -> shice/nginx-light:bookworm-abc）',
    },
    {
      en: 'It has no cloud load balancer: a LoadBalancer Service stays pending; only its NodePorts and health-check port are served.',
      zh: '没有云负载均衡器：LoadBalancer 类型的 Service 一直处于 pending 状态，只有它的 NodePort 和健康检查端口在工作。',
    },
    { en: 'All nodes share one host kernel and one Docker network.', zh: '所有节点共用主机的同一个内核和同一个 Docker 网络。' },
  ]);
  // Without a version the API server reported, none is named.
  assert.match(
    kindEnvironment({ kubeProxyMode: 'iptables', kubernetesVersion: null, nodes: 3, loadBalancers: 1 }, official).summary.en,
    /^A real three-node kind cluster \(Kubernetes, /,
  );
});

test('the number of nodes is what the experiment declares: one to nine in words, more in digits, in both languages', () => {
  assert.deepEqual(nodeCount(1), { en: 'one-node', zh: '单节点' });
  assert.deepEqual(nodeCount(2), { en: 'two-node', zh: '两节点' });
  assert.deepEqual(nodeCount(3), { en: 'three-node', zh: '三节点' });
  assert.deepEqual(nodeCount(9), { en: 'nine-node', zh: '九节点' });
  const two = kindEnvironment({ kubeProxyMode: 'iptables', kubernetesVersion: 'v1.37.2', nodes: 2, loadBalancers: 1 }, official);
  assert.match(two.summary.en, /^A real two-node kind cluster /);
  assert.match(two.summary.zh, /^一个真实的两节点 kind 集群/);
  assert.doesNotMatch(`${two.summary.en} ${two.summary.zh}`, /three|三/);
  const ten = kindEnvironment({ kubeProxyMode: 'iptables', kubernetesVersion: 'v1.37.2', nodes: 10, loadBalancers: 1 }, official);
  assert.match(ten.summary.en, /^A real 10-node kind cluster /);
  assert.match(ten.summary.zh, /^一个真实的 10 节点 kind 集群/);
  // One node stands for no multi-node cluster, and shares its kernel with no other node.
  const one = kindEnvironment({ kubeProxyMode: 'iptables', kubernetesVersion: 'v1.37.2', nodes: 1, loadBalancers: 1 }, official);
  assert.match(one.summary.en, /^A real one-node kind cluster /);
  assert.match(one.summary.zh, /^一个真实的单节点 kind 集群/);
  assert.deepEqual(one.standsFor, { en: 'A single-node Kubernetes cluster.', zh: '它代表一个单节点的 Kubernetes 集群。' });
  assert.doesNotMatch(JSON.stringify(one), /multi-node|多节点|All nodes|所有节点/);
});

test('every Chinese description the kind driver can write passes the Chinese copy check', () => {
  for (const reading of [official, offline]) {
    for (const nodes of [1, 2, 3, 9, 10, 12]) {
      for (const kubernetesVersion of ['v1.37.2', null]) {
        const env = kindEnvironment({ kubeProxyMode: 'nftables', kubernetesVersion, nodes, loadBalancers: 1 }, reading);
        for (const text of [env.summary.zh, env.standsFor.zh, ...env.limits.map((l) => l.zh)]) assert.deepEqual(checkChineseProse(text), [], text);
      }
    }
  }
});

test('the note on a load balancer that never comes is said where the run read a LoadBalancer Service back, and nowhere else', () => {
  const pending = /no cloud load balancer/;
  const with074 = kindEnvironment({ kubeProxyMode: 'iptables', kubernetesVersion: 'v1.37.2', nodes: 3, loadBalancers: 2 }, official);
  assert.ok(with074.limits.some((l) => pending.test(l.en) && /LoadBalancer 类型/.test(l.zh)));
  const without = kindEnvironment({ kubeProxyMode: 'iptables', kubernetesVersion: 'v1.37.2', nodes: 3, loadBalancers: 0 }, official);
  assert.ok(!without.limits.some((l) => pending.test(l.en) || /负载均衡器/.test(l.zh)), JSON.stringify(without.limits));
  assert.equal(without.limits.length, with074.limits.length - 1, 'only that note is left out');
});
