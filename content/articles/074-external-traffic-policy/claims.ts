// What the prose of article 074 asserts about the run, as checks over its facts.
// A passage names the claims it rests on (<Claim ids="...">); a re-run that
// breaks one fails the build (or, with SHICE_DRAFT=1, flags the passage).
import type { ClaimDef } from '../../../src/evidence/claims.ts';
import { across } from '../../../src/experiment/variants.ts';

/** The kube-proxy modes this article's runs measured (ipvs is declared, and not measured here). */
const MODES_MEASURED = ['iptables', 'nftables'];

export const claims: ClaimDef[] = [
  {
    id: 'cluster-hides-client',
    statement: {
      zh: 'Cluster 策略下，无论经哪个节点进入，后端都看不到真实客户端的地址',
      en: 'Under Cluster the backend never sees the real client, whichever node the request enters by',
    },
    facts: ['cluster-via-worker.client', 'cluster-via-worker2.client', 'node.control-plane.ip'],
    holds: (v) => v('cluster-via-worker.client') !== v('node.control-plane.ip') && v('cluster-via-worker2.client') !== v('node.control-plane.ip'),
  },
  {
    id: 'cluster-same-node-sees-gateway',
    statement: {
      zh: '经有后端的节点进入时，后端看到的是该节点 Pod 网段的网关地址',
      en: 'Entering by the node with the backend, the backend sees that node\'s pod gateway address',
    },
    facts: ['cluster-via-worker.client', 'node.worker.podGateway'],
    holds: (v) => v('cluster-via-worker.client') === v('node.worker.podGateway'),
  },
  {
    id: 'cluster-forward-sees-forwarding-node',
    statement: {
      zh: '经没有后端的节点进入时，请求被转发，后端看到的是转发节点自己的地址',
      en: 'Entering by a node without the backend, the request is forwarded and the backend sees the forwarding node\'s address',
    },
    facts: ['cluster-via-worker2.client', 'node.worker2.ip'],
    holds: (v) => v('cluster-via-worker2.client') === v('node.worker2.ip'),
  },
  {
    id: 'local-keeps-client',
    statement: {
      zh: 'Local 策略下，经有后端的节点进入，后端看到的就是真实客户端的地址',
      en: 'Under Local, entering by the node with the backend, the backend sees the real client address',
    },
    facts: ['local-via-worker.client', 'node.control-plane.ip'],
    holds: (v) => v('local-via-worker.client') === v('node.control-plane.ip'),
  },
  {
    id: 'local-drops-without-backend',
    statement: {
      zh: 'Local 策略下，没有本地后端的节点丢弃发往该 NodePort 的包：curl 以超时的退出码放弃，filter 表里有对应的 DROP 规则',
      en: 'Under Local, a node without a local backend drops packets to the NodePort: curl gives up with its timeout exit code and the filter table holds the DROP rule',
    },
    facts: ['local-via-worker2.rc', 'filter-worker2.dropPort', 'service.s-local.nodePort'],
    holds: (v) => v('local-via-worker2.rc') === '28' && v('filter-worker2.dropPort') === v('service.s-local.nodePort'),
    variants: ['iptables'],
  },
  {
    id: 'nat-masquerades-cluster-not-local',
    statement: {
      zh: 'worker 的 nat 表里，s-cluster 把每个从外部进来的连接都打上伪装标记；s-local 只给来自节点自身的连接打标记，外来的连接交给本节点的后端；带标记的包出节点时做 MASQUERADE',
      en: "In worker’s nat table, s-cluster marks every connection from outside for masquerade; s-local marks only connections from the node itself and hands the others to the node’s own backends; marked packets are masqueraded on the way out",
    },
    facts: ['nat-worker.clusterMark', 'nat-worker.localMark', 'nat-worker.localRoute', 'nat-worker.masquerade'],
    holds: (v) =>
      !v('nat-worker.clusterMark').includes('--src-type') &&
      v('nat-worker.localMark').includes('--src-type LOCAL') &&
      /^-A \S+ -j KUBE-SVL-\S+$/.test(v('nat-worker.localRoute')) &&
      v('nat-worker.masquerade').includes('-j MASQUERADE'),
    variants: ['iptables'],
  },
  {
    id: 'nft-drops-without-backend',
    statement: {
      zh: 'nftables 模式下，没有本地后端的节点同样丢弃：curl 以超时的退出码放弃，kube-proxy 表的 no-endpoint-nodeports 映射把该 NodePort 判为 drop，由 filter-input 对新连接跳转到的 nodeport-endpoints-check 查这张映射，且只查 nodeport-ips 里本节点的地址',
      en: 'In nftables mode a node without a local backend drops too: curl gives up with its timeout exit code; the no-endpoint-nodeports map of kube-proxy\'s table sends the NodePort to drop, looked up by nodeport-endpoints-check, which filter-input jumps to for new connections, and only for the node\'s own address in nodeport-ips',
    },
    facts: [
      'local-via-worker2.rc', 'nft-worker2.drop.port', 'nft-worker2.drop.verdict', 'service.s-local.nodePort',
      'nft-worker2.checkRule', 'nft-worker2.inputJump', 'nft-worker2.nodePortIPs', 'node.worker2.ip',
    ],
    holds: (v) => v('local-via-worker2.rc') === '28'
      && v('nft-worker2.drop.port') === v('service.s-local.nodePort') && v('nft-worker2.drop.verdict') === 'drop'
      && v('nft-worker2.checkRule').includes('vmap @no-endpoint-nodeports') && v('nft-worker2.checkRule').includes('@nodeport-ips')
      && v('nft-worker2.inputJump') === 'ct state new jump nodeport-endpoints-check'
      && v('nft-worker2.nodePortIPs') === v('node.worker2.ip'),
    variants: ['nftables'],
  },
  {
    id: 'nodeport-local-has-no-health-port',
    statement: {
      zh: '只有 LoadBalancer + Local 的 Service 才分配 healthCheckNodePort，NodePort + Local 没有',
      en: 'Only a LoadBalancer Service with Local gets a healthCheckNodePort; a NodePort Service with Local gets none',
    },
    facts: ['service.s-local.healthCheckNodePort', 'service.s-lb.healthCheckNodePort'],
    holds: (v) => v('service.s-local.healthCheckNodePort') === 'none' && /^\d+$/.test(v('service.s-lb.healthCheckNodePort')),
  },
  {
    id: 'health-check-follows-local-endpoints',
    statement: {
      zh: '健康检查端口在有本地后端的节点回答健康，在没有本地后端的节点（以及删掉后端之后）回答不健康',
      en: 'The health check answers healthy on a node with a local backend, and unhealthy where there is none, including after the backend is deleted',
    },
    facts: [
      'health-worker.status', 'health-worker.localEndpoints',
      'health-worker2.status', 'health-worker2.localEndpoints',
      'health-control-plane.status', 'health-control-plane.localEndpoints',
      'health-worker-after-delete.status', 'health-worker-after-delete.localEndpoints',
    ],
    holds: (v) =>
      v('health-worker.status') === '200' && v('health-worker.localEndpoints') === '1'
      && v('health-worker2.status') === '503' && v('health-worker2.localEndpoints') === '0'
      && v('health-control-plane.status') === '503' && v('health-control-plane.localEndpoints') === '0'
      && v('health-worker-after-delete.status') === '503' && v('health-worker-after-delete.localEndpoints') === '0',
  },
  {
    id: 'cluster-extra-hop',
    statement: {
      zh: '经没有后端的节点进入时，连接在该节点被 DNAT 到 Pod、再 SNAT 成该节点的地址：conntrack 的回复方向由 Pod 发往该节点',
      en: 'Through a node without the backend, the connection is DNATed to the pod and SNATed to that node: conntrack\'s reply direction runs from the pod to that node',
    },
    facts: [
      'conntrack-worker2.first.original.src', 'conntrack-worker2.first.original.dst', 'conntrack-worker2.first.original.dport',
      'conntrack-worker2.first.reply.src', 'conntrack-worker2.first.reply.dst',
      'node.control-plane.ip', 'node.worker2.ip', 'service.s-cluster.nodePort', 'pod.backend.ip',
    ],
    holds: (v) =>
      v('conntrack-worker2.first.original.src') === v('node.control-plane.ip')
      && v('conntrack-worker2.first.original.dst') === v('node.worker2.ip')
      && v('conntrack-worker2.first.original.dport') === v('service.s-cluster.nodePort')
      && v('conntrack-worker2.first.reply.src') === v('pod.backend.ip')
      && v('conntrack-worker2.first.reply.dst') === v('node.worker2.ip'),
  },
];

/**
 * Claims across the runs of both modes, over facts named `<variant>:<fact id>`:
 * evaluated at every build like the others.
 */
export const comparisons: ClaimDef[] = [
  {
    id: 'modes-drop-alike',
    statement: {
      zh: '两种模式下，没有本地后端的节点都丢弃发往 Local 策略 NodePort 的包：curl 都以同一个超时退出码放弃',
      en: 'In both modes the node without a local backend drops packets to the Local NodePort: curl gives up with the same timeout exit code',
    },
    facts: across(MODES_MEASURED, ['local-via-worker2.rc']),
    holds: (v) => MODES_MEASURED.every((m) => v(`${m}:local-via-worker2.rc`) === '28'),
  },
  {
    id: 'modes-source-alike',
    statement: {
      zh: '两种模式下，后端看到的来源地址规律相同：Cluster 经有后端的节点是该节点的 Pod 网关，经没有后端的节点是转发节点的地址，Local 保留客户端地址',
      en: 'In both modes the backend sees the same pattern of source addresses: under Cluster the pod gateway via the node with the backend and the forwarding node via the other, under Local the client itself',
    },
    facts: across(MODES_MEASURED, [
      'cluster-via-worker.client', 'node.worker.podGateway', 'cluster-via-worker2.client', 'node.worker2.ip',
      'local-via-worker.client', 'node.control-plane.ip',
    ]),
    holds: (v) => MODES_MEASURED.every((m) =>
      v(`${m}:cluster-via-worker.client`) === v(`${m}:node.worker.podGateway`)
      && v(`${m}:cluster-via-worker2.client`) === v(`${m}:node.worker2.ip`)
      && v(`${m}:local-via-worker.client`) === v(`${m}:node.control-plane.ip`)),
  },
  {
    id: 'modes-health-alike',
    statement: {
      zh: '两种模式下，健康检查的回答相同：有本地后端时回答健康，没有本地后端时以及删掉后端之后回答不健康',
      en: 'In both modes the health check answers alike: healthy with a local backend, unhealthy without one and after the backend is deleted',
    },
    facts: across(MODES_MEASURED, ['health-worker.status', 'health-worker2.status', 'health-worker-after-delete.status']),
    holds: (v) => MODES_MEASURED.every((m) =>
      v(`${m}:health-worker.status`) === '200' && v(`${m}:health-worker2.status`) === '503' && v(`${m}:health-worker-after-delete.status`) === '503')
      && MODES_MEASURED.every((m) => v(`${m}:health-worker.status`) === v(`${MODES_MEASURED[0]}:health-worker.status`)),
  },
];
