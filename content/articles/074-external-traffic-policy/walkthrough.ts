// The 分步演示 (step-by-step) view of article 074: one stop per object the
// experiment sets up or removes, in the order the experiment uses them.
// Values in the text are {fact.id} placeholders (facts.ts); no digit is typed in.
import type { WalkthroughStop } from '../../../src/article/render/walkthrough.ts';

const BACKEND = 'manifests/backend.yaml';
const SERVICES = 'manifests/services.yaml';

export const walkthrough: WalkthroughStop[] = [
  {
    id: 'backend-echoes-the-source',
    title: {
      zh: '后端：把看到的来源地址写进响应',
      en: 'The backend: it answers with the source address it saw',
    },
    text: {
      zh: 'nginx 对任何请求都只回一行 client=$remote_addr。$remote_addr 是 TCP 连接对端的地址，也就是包到达 Pod 时的源地址：中途有没有被改写，看这一行就知道。',
      en: 'Whatever the request, nginx answers with one line, client=$remote_addr. $remote_addr is the peer of the TCP connection, that is, the source address of the packets as they reach the pod: this one line shows whether anything on the way rewrote it.',
    },
    object: { manifest: BACKEND, document: 'ConfigMap/backend-nginx', highlight: ['default.conf'] },
    steps: [],
  },
  {
    id: 'backend-pinned-to-worker',
    title: {
      zh: '后端 Pod 固定在 worker 上',
      en: 'One backend pod, pinned to worker',
    },
    text: {
      zh: 'nodeSelector 把唯一的后端放在 {node.worker.name} 上，于是 worker 是“有后端的节点”，worker2 和控制面是“没有后端的节点”。这次运行里 Pod 落在 {pod.backend.node}，地址 {pod.backend.ip}，所在节点的 Pod 网关是 {node.worker.podGateway}。readinessProbe 决定它何时算作就绪的后端，后面的健康检查端口数的正是本节点上就绪的后端。清单里的镜像在这里拉不到，Pod 实际运行的是本机构建的 {pod.backend.image}（Debian 的 nginx-light），读的是同一份配置。',
      en: 'The nodeSelector puts the only backend on {node.worker.name}, which makes worker the node with a backend and leaves worker2 and the control-plane without one. In this run the pod landed on {pod.backend.node} with address {pod.backend.ip}; that node’s pod gateway is {node.worker.podGateway}. The readinessProbe decides when it counts as a ready endpoint, and ready local endpoints are exactly what the health-check port counts later on. No registry could provide the manifest’s image here: the pod ran {pod.backend.image}, Debian’s nginx-light built on this machine, with the same config.',
    },
    object: { manifest: BACKEND, document: 'Pod/backend', highlight: ['nodeSelector', 'readinessProbe'] },
    steps: [],
  },
  {
    id: 's-cluster',
    title: {
      zh: 's-cluster：NodePort + Cluster',
      en: 's-cluster: NodePort with Cluster',
    },
    text: {
      zh: '默认策略 Cluster。控制面（{node.control-plane.ip}）经 worker 访问 NodePort {service.s-cluster.nodePort}，后端看到 {cluster-via-worker.client}；经 worker2 访问，看到 {cluster-via-worker2.client}。两次都不是真实客户端。worker2 的 conntrack 记下了转发：回复方向的源是 Pod {conntrack-worker2.first.reply.src}，目的是 worker2 自己 {conntrack-worker2.first.reply.dst}。',
      en: 'The default policy, Cluster. A request from the control-plane ({node.control-plane.ip}) to NodePort {service.s-cluster.nodePort} reaches the backend as {cluster-via-worker.client} through worker, and as {cluster-via-worker2.client} through worker2. Neither is the real client. worker2’s conntrack records the forwarding: the reply comes from the pod, {conntrack-worker2.first.reply.src}, and goes to worker2 itself, {conntrack-worker2.first.reply.dst}.',
    },
    object: { manifest: SERVICES, document: 'Service/s-cluster', highlight: ['type', 'externalTrafficPolicy'] },
    steps: ['cluster-via-worker', 'cluster-via-worker2', 'conntrack-worker2', 'nat-worker'],
  },
  {
    id: 's-local',
    title: {
      zh: 's-local：NodePort + Local',
      en: 's-local: NodePort with Local',
    },
    text: {
      zh: '只把策略改成 Local。经 worker 访问，后端看到的正是控制面 {local-via-worker.client}；经 worker2 访问，curl 等满 {local-via-worker2.timeout} 秒上限后放弃，退出码 {local-via-worker2.rc}。worker2 的 filter 表里有一条针对端口 {filter-worker2.dropPort} 的 DROP 规则。NodePort 类型不分配健康检查端口：{service.s-local.healthCheckNodePort}。',
      en: 'Only the policy changes, to Local. Through worker the backend sees the control-plane itself, {local-via-worker.client}; through worker2 curl waits out its {local-via-worker2.timeout} s limit and exits with {local-via-worker2.rc}. worker2’s filter table holds a DROP rule for port {filter-worker2.dropPort}. A NodePort Service gets no health-check port: {service.s-local.healthCheckNodePort}.',
    },
    object: { manifest: SERVICES, document: 'Service/s-local', highlight: ['externalTrafficPolicy'] },
    steps: ['local-via-worker', 'local-via-worker2', 'filter-worker2'],
  },
  {
    id: 's-lb-health-check',
    title: {
      zh: 's-lb：LoadBalancer + Local 与健康检查端口',
      en: 's-lb: LoadBalancer with Local, and its health-check port',
    },
    text: {
      zh: '类型换成 LoadBalancer、策略仍是 Local，Service 多分到一个 healthCheckNodePort：{service.s-lb.healthCheckNodePort}。每个节点在这个端口上只报告本节点的情况：worker 回 HTTP {health-worker.status}（localEndpoints={health-worker.localEndpoints}），worker2 和控制面回 {health-worker2.status} 与 {health-control-plane.status}。',
      en: 'With type LoadBalancer and the same Local policy, the Service also gets a healthCheckNodePort, {service.s-lb.healthCheckNodePort}. On that port each node speaks only for itself: worker answers HTTP {health-worker.status} (localEndpoints={health-worker.localEndpoints}), worker2 and the control-plane answer {health-worker2.status} and {health-control-plane.status}.',
    },
    object: { manifest: SERVICES, document: 'Service/s-lb', highlight: ['type', 'externalTrafficPolicy'] },
    steps: ['health-worker', 'health-worker2', 'health-control-plane'],
  },
  {
    id: 'delete-backend',
    title: {
      zh: '删掉后端之后',
      en: 'After the backend is deleted',
    },
    text: {
      zh: '删除 worker 上的后端 Pod 后再问 worker 的健康检查端口：HTTP {health-worker-after-delete.status}，localEndpoints={health-worker-after-delete.localEndpoints}。worker 也不再报告健康，负载均衡器下一次探测失败后就会把它摘出后端池。',
      en: 'With the backend pod on worker deleted, worker’s health-check port answers HTTP {health-worker-after-delete.status}, localEndpoints={health-worker-after-delete.localEndpoints}. worker no longer reports itself healthy either, and a load balancer would take it out of rotation after its next failed probe.',
    },
    object: { manifest: BACKEND, document: 'Pod/backend', highlight: ['name'] },
    steps: ['delete-backend', 'health-worker-after-delete'],
  },
];
