// The one-line summary each step gets inside a <Measured> block, per language.
// Every value is a {fact.id} from facts.ts; the words around them are ours.
import type { LineTemplates } from '../../../src/evidence/template.ts';

export const lines: LineTemplates = {
  'cluster-via-worker': {
    zh: '控制面（{node.control-plane.ip}）→ worker {node.worker.ip}:{service.s-cluster.nodePort}（后端就在这个节点）：后端看到 client={cluster-via-worker.client}，rc={cluster-via-worker.rc}，用时 {cluster-via-worker.seconds} 秒',
    en: 'Control-plane ({node.control-plane.ip}) to worker at {node.worker.ip}:{service.s-cluster.nodePort}, where the backend runs: the backend saw client={cluster-via-worker.client}; curl exited {cluster-via-worker.rc} after {cluster-via-worker.seconds} s',
  },
  'addresses-worker': {
    zh: 'worker 自己持有的、落在其 Pod 网段 {node.worker.podCIDR} 内的地址：{node.worker.podGateway}，在后端 Pod 的 veth 的节点一端',
    en: "The address worker itself holds inside its pod range {node.worker.podCIDR}: {node.worker.podGateway}, on the node’s end of the backend pod’s veth",
  },
  'cluster-via-worker2': {
    zh: '控制面 → worker2 {node.worker2.ip}:{service.s-cluster.nodePort}（这里没有后端，请求被转发）：后端看到 client={cluster-via-worker2.client}，rc={cluster-via-worker2.rc}，用时 {cluster-via-worker2.seconds} 秒',
    en: 'Control-plane to worker2 at {node.worker2.ip}:{service.s-cluster.nodePort}, which has no backend and forwards the request: the backend saw client={cluster-via-worker2.client}; curl exited {cluster-via-worker2.rc} after {cluster-via-worker2.seconds} s',
  },
  'conntrack-worker2': {
    zh: 'worker2 的 conntrack 里发往 NodePort {service.s-cluster.nodePort} 的连接共 {conntrack-worker2.count} 条，列在最前的一条原方向是 src={conntrack-worker2.first.original.src} dst={conntrack-worker2.first.original.dst} dport={conntrack-worker2.first.original.dport}，回复方向是 src={conntrack-worker2.first.reply.src} dst={conntrack-worker2.first.reply.dst} dport={conntrack-worker2.first.reply.dport}',
    en: "worker2's conntrack holds {conntrack-worker2.count} [connection|connections] to NodePort {service.s-cluster.nodePort}; the first came in as {conntrack-worker2.first.original.src} to {conntrack-worker2.first.original.dst}:{conntrack-worker2.first.original.dport} and is answered by {conntrack-worker2.first.reply.src}:{conntrack-worker2.first.reply.sport}, addressed to {conntrack-worker2.first.reply.dst}:{conntrack-worker2.first.reply.dport}",
  },
  'local-via-worker': {
    zh: '控制面 → worker {node.worker.ip}:{service.s-local.nodePort}（s-local，后端在本节点）：后端看到 client={local-via-worker.client}，正是发起请求的控制面；rc={local-via-worker.rc}，用时 {local-via-worker.seconds} 秒',
    en: 'Control-plane to worker at {node.worker.ip}:{service.s-local.nodePort} (s-local, backend on this node): the backend saw client={local-via-worker.client}, the control-plane itself; curl exited {local-via-worker.rc} after {local-via-worker.seconds} s',
  },
  'local-via-worker2': {
    zh: '控制面 → worker2 {node.worker2.ip}:{service.s-local.nodePort}（s-local，本节点没有后端）：没有任何回应，curl 到了 --max-time {local-via-worker2.timeout} 秒的上限后放弃，rc={local-via-worker2.rc}，用时 {local-via-worker2.seconds} 秒',
    en: 'Control-plane to worker2 at {node.worker2.ip}:{service.s-local.nodePort} (s-local, no backend on this node): nothing came back; curl hit its {local-via-worker2.timeout} s limit and exited {local-via-worker2.rc} after {local-via-worker2.seconds} s',
  },
  'filter-worker2': {
    zh: 'worker2 的 filter 表中对应 s-local 的 NodePort {filter-worker2.dropPort} 的规则：{filter-worker2.dropRule}',
    en: "The rule in worker2's filter table for s-local’s NodePort {filter-worker2.dropPort}: {filter-worker2.dropRule}",
  },
  'nat-worker': {
    zh: 'worker 的 nat 表里，s-cluster 外部流量链的第一条规则：{nat-worker.clusterMark}',
    en: "The first rule of s-cluster’s external-traffic chain in worker’s nat table: {nat-worker.clusterMark}",
  },
  'nft-worker2': {
    zh: 'worker2 上 kube-proxy 自己的 nftables 表：no-endpoint-nodeports 映射把 s-local 的 NodePort 判为 {nft-worker2.drop.verdict}（{nft-worker2.drop.element}），由 nodeport-endpoints-check 链查表，只对 nodeport-ips 中的 {nft-worker2.nodePortIPs} 生效',
    en: "kube-proxy’s own nftables table on worker2: the no-endpoint-nodeports map sends s-local’s NodePort to {nft-worker2.drop.verdict} ({nft-worker2.drop.element}), looked up by the nodeport-endpoints-check chain, and only for {nft-worker2.nodePortIPs} in nodeport-ips",
  },
  'health-worker': {
    zh: 'worker {node.worker.ip}:{service.s-lb.healthCheckNodePort}（有本地后端）→ HTTP {health-worker.status}，localEndpoints={health-worker.localEndpoints}',
    en: 'Health check on worker, {node.worker.ip}:{service.s-lb.healthCheckNodePort} (a local backend): HTTP {health-worker.status} {health-worker.reason}, localEndpoints={health-worker.localEndpoints}',
  },
  'health-worker2': {
    zh: 'worker2 {node.worker2.ip}:{service.s-lb.healthCheckNodePort}（没有本地后端）→ HTTP {health-worker2.status}，localEndpoints={health-worker2.localEndpoints}',
    en: 'Health check on worker2, {node.worker2.ip}:{service.s-lb.healthCheckNodePort} (no local backend): HTTP {health-worker2.status} {health-worker2.reason}, localEndpoints={health-worker2.localEndpoints}',
  },
  'health-control-plane': {
    zh: '控制面 {node.control-plane.ip}:{service.s-lb.healthCheckNodePort}（没有本地后端）→ HTTP {health-control-plane.status}，localEndpoints={health-control-plane.localEndpoints}',
    en: 'Health check on the control-plane, {node.control-plane.ip}:{service.s-lb.healthCheckNodePort} (no local backend): HTTP {health-control-plane.status} {health-control-plane.reason}, localEndpoints={health-control-plane.localEndpoints}',
  },
  'delete-backend': {
    zh: '删除 worker 上的后端 Pod（原 IP {pod.backend.ip}）：rc={delete-backend.rc}，用时 {delete-backend.seconds} 秒',
    en: 'Deleted the backend pod on worker (it had {pod.backend.ip}): exit code {delete-backend.rc} after {delete-backend.seconds} s',
  },
  'health-worker-after-delete': {
    zh: '后端删除之后再问 worker {node.worker.ip}:{service.s-lb.healthCheckNodePort} → HTTP {health-worker-after-delete.status}，localEndpoints={health-worker-after-delete.localEndpoints}',
    en: "Worker’s health check once the backend is gone, {node.worker.ip}:{service.s-lb.healthCheckNodePort}: HTTP {health-worker-after-delete.status} {health-worker-after-delete.reason}, localEndpoints={health-worker-after-delete.localEndpoints}",
  },
};
