// What a verify run says about itself (its run.yaml's `environment`), in both
// languages: a reader's own cluster, as the run found it (kube-proxy's mode, the
// API server's version), reached through the context the reader named. A verify
// run is never published; its report prints these. Pure.
import type { RunEnvironment, RunIdentity } from './run-environment.ts';

export function existingEnvironment(run: RunIdentity, reached: { context: string; agentImage: string; agentsRefusedWith: string | null }): RunEnvironment {
  const version = run.kubernetesVersion ? ` ${run.kubernetesVersion}` : '';
  return {
    summary: {
      en: `A cluster of the reader’s own, reached through the kubeconfig context ${reached.context}: Kubernetes${version}, kube-proxy in ${run.kubeProxyMode} mode, ${run.nodes} of its nodes playing the experiment’s.`,
      zh: `读者自己的集群，经 kubeconfig 上下文 ${reached.context} 访问：Kubernetes${version}，kube-proxy 为 ${run.kubeProxyMode} 模式，其中 ${run.nodes} 个节点扮演实验里的节点。`,
    },
    standsFor: {
      en: 'It checks the article’s experiment on that cluster. It is not one of the article’s environments and is never published.',
      zh: '它在这个集群上核对文章的实验；它不是文章的测量环境之一，也不会发表。',
    },
    limits: [
      reached.agentsRefusedWith === null
        ? {
            en: `Every command on a node ran through a privileged pod of the run’s own on that node (image ${reached.agentImage}), entering the node’s namespaces: the node’s own programs on its own tables.`,
            zh: `节点上的每条命令都经由本次运行在该节点上的特权 Pod（镜像 ${reached.agentImage}）进入节点的命名空间执行：用的是节点自己的程序，读的是节点自己的表。`,
          }
        : {
            en: `No command ran on a node, so no step ran: the cluster refused the run’s node agents (${reached.agentsRefusedWith}). Only what the API holds was read: the nodes, the pods and the Services.`,
            zh: `没有在任何节点上执行命令，因此没有执行任何步骤：集群拒绝了本次运行的节点代理 Pod（${reached.agentsRefusedWith}）。只读取了 API 中的节点、Pod 和 Service。`,
          },
      {
        en: 'Everything the run created was in a namespace of its own, deleted at the end.',
        zh: '本次运行创建的一切都在它自己的命名空间里，结束时删除。',
      },
    ],
  };
}
