// What a lab run says about itself (run.yaml's `environment`), in both
// languages: built from what the run reported (kube-proxy's mode, the API
// server's version), what the experiment declared (its nodes) and what the lab
// kubelet did (the images it ran Debian's nginx in place of), never from what
// the lab assumes. Pure.
import type { Localized, RunEnvironment, RunIdentity } from './run-environment.ts';

export interface LabRunFacts {
  run: RunIdentity;
  /** Where the Kubernetes binaries came from: built from the official Go modules, or a folder the author named (--kube-bin, SHICE_KUBE_BIN). */
  binaries: 'built' | 'given';
  /** The images the pods named that the lab kubelet ran Debian's nginx-light in place of, each once, in the order it met them. */
  imagesReplaced: readonly string[];
}

const BUILT: Record<LabRunFacts['binaries'], Localized> = {
  built: { en: 'built from the official Go modules', zh: '都由官方 Go 模块构建' },
  given: { en: 'from the binaries the capture was pointed at (--kube-bin)', zh: '来自采集时指定的二进制文件（--kube-bin）' },
};

function summary({ run, binaries }: LabRunFacts): Localized {
  const version = run.kubernetesVersion ? ` ${run.kubernetesVersion}` : '';
  const built = BUILT[binaries];
  return {
    en: `Real Kubernetes${version} on one Linux kernel: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kube-proxy in ${run.kubeProxyMode} mode, ${built.en}, with network namespaces as the nodes and pods, wired like kind and kindnet.`,
    zh: `在一个 Linux 内核上运行真实的 Kubernetes${version}：etcd、kube-apiserver、kube-controller-manager、kube-scheduler 和 ${run.kubeProxyMode} 模式的 kube-proxy ${built.zh}，节点和 Pod 是网络命名空间，按 kind 和 kindnet 的方式连接。`,
  };
}

function standsFor(nodes: number): Localized {
  return {
    en: `It stands in for a ${nodes}-node kind cluster. Only kubelet, the container runtime and kindnetd are replaced, by shice’s lab kubelet: it registers the nodes, sets up each pod’s network with the real CNI plugins (ptp, host-local, portmap) and runs the pod’s process.`,
    zh: `它代替一个 ${nodes} 节点的 kind 集群。只有 kubelet、容器运行时和 kindnetd 被替换成 shice 自己的 lab kubelet：它注册节点，用真实的 CNI 插件（ptp、host-local、portmap）配置每个 Pod 的网络，并运行 Pod 的进程。`,
  };
}

/** "a", "a and b", "a, b and c" in English; "a", "a 和 b", "a、b 和 c" in Chinese. */
function listed(items: readonly string[], lang: 'en' | 'zh'): string {
  const [and, comma] = lang === 'en' ? [' and ', ', '] : [' 和 ', '、'];
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(comma)}${and}${items.at(-1)}`;
}

/** The image substitution, when the lab ran any pod: which images Debian's nginx stood in for. */
function imageLimit(images: readonly string[]): Localized[] {
  if (images.length === 0) return [];
  const noun = images.length === 1 ? 'image' : 'images';
  return [
    {
      en: `The backend ran Debian’s nginx-light in place of the ${listed(images, 'en')} ${noun}.`,
      zh: `后端运行的是 Debian 的 nginx-light，代替 ${listed(images, 'zh')} 镜像。`,
    },
  ];
}

export function labEnvironment(facts: LabRunFacts): RunEnvironment {
  return {
    summary: summary(facts),
    standsFor: standsFor(facts.run.nodes),
    limits: [
      {
        en: 'The nodes are network namespaces on one kernel, not containers; there is no Docker, and no real kubelet or container runtime.',
        zh: '节点是同一个内核上的网络命名空间，不是容器；没有 Docker，也没有真实的 kubelet 和容器运行时。',
      },
      ...imageLimit(facts.imagesReplaced),
      {
        en: 'kindnetd did not run: the lab kubelet programmed its routes between the nodes’ pod CIDRs, and no masquerade rules for pod traffic leaving the cluster.',
        zh: 'kindnetd 没有运行：节点之间到 Pod 网段的路由由 lab kubelet 配置，也没有为离开集群的 Pod 流量设置伪装（masquerade）规则。',
      },
    ],
  };
}
