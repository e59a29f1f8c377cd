// The packet's path in each case of article 074 (<PacketPath id="..." />): who
// sends it, which node it enters, what that node does to its addresses, and
// where it ends. Every address, port and status is a fact id (facts.ts); the
// words are written here, in both languages, and never hold a value.
// The client's source port and the pod's port are known only for the request
// through worker2 under Cluster (worker2's conntrack entry); the other hops show
// the addresses without them.
import type { PacketPathDef, PathEvent, PathHop, PathStation } from '../../../src/article/render/packet-path.ts';

const client: PathStation = {
  id: 'client',
  kind: 'client',
  label: { zh: '客户端（控制面节点）', en: 'Client (the control-plane node)' },
  name: 'node.control-plane.name',
  address: 'node.control-plane.ip',
};
/** A worker node's box: its name and address are the run's. */
const workerNode = (node: 'worker' | 'worker2', label: PathStation['label']): PathStation => ({
  id: node,
  kind: 'node',
  label,
  name: `node.${node}.name`,
  address: `node.${node}.ip`,
});
const worker = workerNode('worker', { zh: 'worker（有后端）', en: 'worker (has the backend)' });
const worker2 = workerNode('worker2', { zh: 'worker2（没有后端）', en: 'worker2 (no backend)' });
const pod: PathStation = {
  id: 'pod',
  kind: 'pod',
  label: { zh: '后端 Pod（在 worker 上）', en: 'Backend pod (on worker)' },
  address: 'pod.backend.ip',
};
const STATIONS = [client, worker, worker2, pod];

/** The client's request to a worker, at the port of a Service (`port` a fact id). */
const fromClient = (node: 'worker' | 'worker2', port: string): PathHop => ({
  from: 'client',
  to: node,
  src: { address: 'node.control-plane.ip' },
  dst: { address: `node.${node}.ip`, port },
});
/** worker hands the request to the pod on it; `seen` is the source the backend reported. */
const workerToPod = (seen: string): PathHop => ({ from: 'worker', to: 'pod', src: { address: seen }, dst: { address: 'pod.backend.ip' } });
/** worker's DNAT of a request it keeps: to the pod on it. */
const dnatToPod: PathEvent = { at: 'worker', kind: 'rewrite', text: { zh: 'DNAT：dst 改为 Pod {pod.backend.ip}', en: 'DNAT: dst → the pod, {pod.backend.ip}' } };

/** The conntrack entry worker2 kept for the request through it under Cluster. */
const ct = (field: string) => `conntrack-worker2.first.${field}`;

export const paths: PacketPathDef[] = [
  {
    id: 'cluster-via-worker',
    title: { zh: 'Cluster，经有后端的 worker 进入', en: 'Cluster, entering through worker (which has the backend)' },
    stations: STATIONS,
    legs: [
      {
        stations: ['client', 'worker', 'pod'],
        hops: [
          fromClient('worker', 'service.s-cluster.nodePort'),
          workerToPod('cluster-via-worker.client'),
        ],
        events: [
          dnatToPod,
          {
            at: 'worker',
            kind: 'rewrite',
            text: { zh: 'SNAT：src 改为 worker 的 Pod 网关 {node.worker.podGateway}', en: 'SNAT: src → worker’s pod gateway, {node.worker.podGateway}' },
          },
        ],
      },
    ],
    outcome: {
      zh: '后端看到的来源是 {cluster-via-worker.client}，不是客户端的 {node.control-plane.ip}；curl 的退出码 {cluster-via-worker.rc}。',
      en: 'The backend saw the source {cluster-via-worker.client}, not the client’s {node.control-plane.ip}; curl exited with {cluster-via-worker.rc}.',
    },
  },
  {
    id: 'cluster-via-worker2',
    title: { zh: 'Cluster，经没有后端的 worker2 进入', en: 'Cluster, entering through worker2 (which has no backend)' },
    stations: STATIONS,
    legs: [
      {
        stations: ['client', 'worker2', 'worker', 'pod'],
        hops: [
          {
            from: 'client',
            to: 'worker2',
            src: { address: ct('original.src'), port: ct('original.sport') },
            dst: { address: ct('original.dst'), port: ct('original.dport') },
          },
          {
            from: 'worker2',
            to: 'worker',
            src: { address: ct('reply.dst'), port: ct('reply.dport') },
            dst: { address: ct('reply.src'), port: ct('reply.sport') },
            note: { zh: '经节点网络转发', en: 'Forwarded over the node network' },
          },
          { from: 'worker', to: 'pod', src: { address: 'cluster-via-worker2.client' }, dst: { address: 'pod.backend.ip', port: ct('reply.sport') } },
        ],
        events: [
          {
            at: 'worker2',
            kind: 'rewrite',
            text: { zh: 'DNAT：dst 改为 Pod {conntrack-worker2.first.reply.src}:{conntrack-worker2.first.reply.sport}', en: 'DNAT: dst → the pod, {conntrack-worker2.first.reply.src}:{conntrack-worker2.first.reply.sport}' },
          },
          {
            at: 'worker2',
            kind: 'rewrite',
            text: {
              zh: 'SNAT：src 改为 worker2 自己 {conntrack-worker2.first.reply.dst}:{conntrack-worker2.first.reply.dport}',
              en: 'SNAT: src → worker2 itself, {conntrack-worker2.first.reply.dst}:{conntrack-worker2.first.reply.dport}',
            },
          },
        ],
      },
    ],
    outcome: {
      zh: '后端看到的来源是 worker2 的 {cluster-via-worker2.client}。回包先回到 worker2，它的 conntrack 记录（{conntrack-worker2.first.state}）把目的地址换回客户端的 {conntrack-worker2.first.original.src}:{conntrack-worker2.first.original.sport}；curl 的退出码 {cluster-via-worker2.rc}。',
      en: 'The backend saw worker2’s {cluster-via-worker2.client}. The reply goes back to worker2 first, whose conntrack entry ({conntrack-worker2.first.state}) turns its destination back into the client’s {conntrack-worker2.first.original.src}:{conntrack-worker2.first.original.sport}; curl exited with {cluster-via-worker2.rc}.',
    },
  },
  {
    id: 'local-via-worker',
    title: { zh: 'Local，经有后端的 worker 进入', en: 'Local, entering through worker (which has the backend)' },
    stations: STATIONS,
    legs: [
      {
        stations: ['client', 'worker', 'pod'],
        hops: [
          fromClient('worker', 'service.s-local.nodePort'),
          workerToPod('local-via-worker.client'),
        ],
        events: [
          dnatToPod,
          { at: 'worker', kind: 'keep', text: { zh: '不做 SNAT：src 仍是客户端的地址', en: 'No SNAT: src stays the client’s' } },
        ],
      },
    ],
    outcome: {
      zh: '后端看到的来源 {local-via-worker.client} 就是客户端 {node.control-plane.ip}；curl 的退出码 {local-via-worker.rc}。',
      en: 'The backend saw the source {local-via-worker.client}, the client {node.control-plane.ip} itself; curl exited with {local-via-worker.rc}.',
    },
  },
  {
    id: 'local-via-worker2',
    title: { zh: 'Local，经没有后端的 worker2 进入：包被丢弃', en: 'Local, entering through worker2 (which has no backend): dropped' },
    stations: STATIONS,
    legs: [
      {
        stations: ['client', 'worker2', 'worker', 'pod'],
        hops: [
          fromClient('worker2', 'service.s-local.nodePort'),
        ],
        events: [
          {
            at: 'worker2',
            kind: 'drop',
            text: { zh: 'DROP：NodePort {filter-worker2.dropPort} 在本节点没有端点，不转发', en: 'DROP: NodePort {filter-worker2.dropPort} has no local endpoints; not forwarded' },
          },
        ],
      },
    ],
    outcome: {
      zh: '没有任何回应：curl 等满 {local-via-worker2.timeout} 秒，报出“{local-via-worker2.error}”，退出码 {local-via-worker2.rc}，用时 {local-via-worker2.seconds} 秒。',
      en: 'No answer at all: curl waited out its {local-via-worker2.timeout} s, reported "{local-via-worker2.error}" and exited with {local-via-worker2.rc} after {local-via-worker2.seconds} s.',
    },
  },
  {
    id: 'health-check',
    title: {
      zh: 's-lb 的健康检查：客户端探测每个节点的 healthCheckNodePort',
      en: 's-lb’s health check: the client probes each node’s healthCheckNodePort',
    },
    stations: STATIONS,
    legs: [
      {
        label: { zh: '探测 worker', en: 'Probe of worker' },
        stations: ['client', 'worker', 'pod'],
        hops: [
          fromClient('worker', 'service.s-lb.healthCheckNodePort'),
        ],
        events: [
          {
            at: 'worker',
            kind: 'answer',
            text: {
              zh: '回答 HTTP {health-worker.status} {health-worker.reason}，localEndpoints={health-worker.localEndpoints}',
              en: 'Answers HTTP {health-worker.status} {health-worker.reason}, localEndpoints={health-worker.localEndpoints}',
            },
          },
        ],
      },
      {
        label: { zh: '探测 worker2', en: 'Probe of worker2' },
        stations: ['client', 'worker2'],
        hops: [
          fromClient('worker2', 'service.s-lb.healthCheckNodePort'),
        ],
        events: [
          {
            at: 'worker2',
            kind: 'answer',
            text: {
              zh: '回答 HTTP {health-worker2.status} {health-worker2.reason}，localEndpoints={health-worker2.localEndpoints}',
              en: 'Answers HTTP {health-worker2.status} {health-worker2.reason}, localEndpoints={health-worker2.localEndpoints}',
            },
          },
        ],
      },
    ],
    outcome: {
      zh: '每个节点的健康检查端口 {service.s-lb.healthCheckNodePort} 只替本节点回答：有本地后端的 worker 回答 {health-worker.status}，没有的 worker2 回答 {health-worker2.status}。',
      en: 'Each node’s health-check port, {service.s-lb.healthCheckNodePort}, speaks only for that node: worker, with a local backend, answers {health-worker.status}; worker2, without one, answers {health-worker2.status}.',
    },
  },
];
