// What a kind run says about its environment, in both languages (run.yaml's
// `environment`): a real kind cluster of as many nodes as the experiment
// declared, the mode and version its tools reported, and what stood in where
// no registry answered. Pure: built from what the run declared and read.
import type { Localized, RunEnvironment, RunIdentity } from './run-environment.ts';

/** What the kind run chose or read that its description names. */
export interface KindRunReading {
  /** kindnetd did not run: shice's stand-in wrote its part. */
  cniStandIn: boolean;
  /** The node image was built on this machine (no registry answered). */
  localNodeImage: boolean;
  /** Images the pods ran in place of the manifests' own, as the experiment declared. */
  substitutions: ReadonlyArray<{ image: string; ranInstead: string; note: Localized }>;
}

const EN_NUMBERS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const ZH_NUMBERS = ['单', '两', '三', '四', '五', '六', '七', '八', '九'];

/** "three-node" / "三节点": a count up to nine in words, a larger one in digits. */
export function nodeCount(nodes: number): Localized {
  const word = Number.isInteger(nodes) && nodes >= 1 && nodes <= 9 ? nodes - 1 : null;
  return word === null ? { en: `${nodes}-node`, zh: ` ${nodes} 节点` } : { en: `${EN_NUMBERS[word]}-node`, zh: `${ZH_NUMBERS[word]}节点` };
}

export function kindEnvironment(run: RunIdentity, kind: KindRunReading): RunEnvironment {
  const version = run.kubernetesVersion ? `Kubernetes ${run.kubernetesVersion}` : 'Kubernetes';
  const count = nodeCount(run.nodes);
  const limits: Localized[] = [];
  if (kind.cniStandIn) {
    limits.push({
      en: 'kindnetd did not run: its part, the CNI config on each node and the routes between the nodes’ pod CIDRs, was written by shice’s stand-in; its masquerade rules for pod traffic leaving the cluster were not (no step sends any).',
      zh: 'kindnetd 没有运行：它负责的部分，即每个节点上的 CNI 配置和节点之间到 Pod 网段的路由，由 shice 的替身写入；它为离开集群的 Pod 流量设置的伪装规则没有写（没有哪一步发出这样的流量）。',
    });
  }
  if (kind.localNodeImage) {
    limits.push({
      en: 'No registry could be reached: the node image was built on this machine from Debian’s packages (containerd, runc, the CNI plugins), kind’s own base files and the Kubernetes binaries built from the official modules, not kind’s published kindest/node; CoreDNS was left out.',
      zh: '这里连不上任何镜像仓库：节点镜像是在本机构建的，用的是 Debian 的软件包（containerd、runc、CNI 插件）、kind 自己的基础文件和从官方模块构建的 Kubernetes 程序，而不是 kind 发布的 kindest/node；CoreDNS 没有安装。',
    });
  }
  for (const sub of kind.substitutions)
    limits.push({ en: `${sub.note.en} (${sub.image} -> ${sub.ranInstead})`, zh: `${sub.note.zh}（${sub.image} -> ${sub.ranInstead}）` });
  if (run.loadBalancers > 0)
    limits.push({
      en: 'It has no cloud load balancer: a LoadBalancer Service stays pending; only its NodePorts and health-check port are served.',
      zh: '没有云负载均衡器：LoadBalancer 类型的 Service 一直处于 pending 状态，只有它的 NodePort 和健康检查端口在工作。',
    });
  limits.push(
    run.nodes === 1
      ? { en: 'Its one node runs on the host kernel, on one Docker network.', zh: '它唯一的节点运行在主机的内核上，连在一个 Docker 网络里。' }
      : { en: 'All nodes share one host kernel and one Docker network.', zh: '所有节点共用主机的同一个内核和同一个 Docker 网络。' },
  );
  return {
    summary: kind.cniStandIn
      ? {
          en: `A real ${count.en} kind cluster (${version}, nodes as Docker containers on one host), kube-proxy in ${run.kubeProxyMode} mode; kindnetd’s part written by shice’s stand-in.`,
          zh: `一个真实的${count.zh} kind 集群（${version}，节点是同一台主机上的 Docker 容器），kube-proxy 为 ${run.kubeProxyMode} 模式；kindnetd 的部分由 shice 的替身写入。`,
        }
      : {
          en: `A real ${count.en} kind cluster (${version}, nodes as Docker containers on one host), kube-proxy in ${run.kubeProxyMode} mode, kindnet as the CNI.`,
          zh: `一个真实的${count.zh} kind 集群（${version}，节点是同一台主机上的 Docker 容器），kube-proxy 为 ${run.kubeProxyMode} 模式，CNI 是 kindnet。`,
        },
    standsFor:
      run.nodes === 1
        ? { en: 'A single-node Kubernetes cluster.', zh: '它代表一个单节点的 Kubernetes 集群。' }
        : { en: 'A multi-node Kubernetes cluster.', zh: '它代表一个多节点的 Kubernetes 集群。' },
    limits,
  };
}
