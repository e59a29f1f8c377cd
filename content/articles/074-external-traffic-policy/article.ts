// Article 074, externalTrafficPolicy: what runs (the experiment), what the page
// binds (facts, each read from one step's snapshot), what the prose asserts
// (claims, re-checked on every build), each step's measured line, the packets'
// paths and the step-by-step walkthrough. Node, pod and Service facts, versions
// and each step's rc and seconds come from every run (src/evidence/run-facts.ts).
import {
  defineArticle, kubernetesSeries, inEveryVariant, healthCheckLine, conntrackFacts, curlPart, declared, healthCheckFacts, iptables, measured, nft, nftVerdictFacts, part, podGateway,
  rulesPart, settleFacts, event, hop, path, nodePort, serviceKey, exec, curlArgv, type FactIdOf, type RunSnapshot, type PathStation, type TopologyView,
} from '../../../src/authoring/article.ts';

/** kube-proxy's iptables mode, the headline's: where its rules are decided. */
const IPTABLES_PROXIER = 'pkg/proxy/iptables/proxier.go';
/** kube-proxy's nftables mode, the evidence page's second column. */
const NFTABLES_PROXIER = 'pkg/proxy/nftables/proxier.go';

/** curl gives up after this many seconds; the DROP under Local shows up as curl's exit code 28. */
const CURL_TIMEOUT_SECONDS = '3';
/** The kube-proxy modes this article's runs measured (ipvs is declared, and not measured here). */
const MODES_MEASURED = ['iptables', 'nftables'];

/** A request from the client; --include keeps the status line and headers, which a health check answers with. */
const fromClient = <const S extends string>(id: S, title: string, url: (t: TopologyView) => string, include = false) =>
  exec(id, 'control-plane', title, (t) => curlArgv(url(t), { maxTime: CURL_TIMEOUT_SECONDS, include }));
const viaNode = <const S extends string>(id: S, title: string, node: string, service: string) => fromClient(id, title, (t) => `http://${t.ip(node)}:${t.nodePort(service)}/`);
/** s-lb's health check on a node: the step, its facts and its line (what was asked, in words, then the answer). */
const healthPart = <const S extends string, const Zh extends string, const En extends string>(node: string, id: S, zh: Zh, en: En, title = `s-lb's health check on ${node === 'control-plane' ? 'the control-plane' : node}`) =>
  part(fromClient(id, title, (t) => `http://${t.ip(node)}:${t.healthCheckNodePort('s-lb')}/`, true), healthCheckFacts(id), healthCheckLine(id, zh, en));

/** s-local's DROP in worker2's filter table, and the nat rules for s-cluster's and s-local's external traffic on worker. */
const DROP = (run: RunSnapshot) => ({ table: 'filter', chain: 'KUBE-EXTERNAL-SERVICES', target: 'DROP', dport: nodePort(run, 's-local') });
const LOCAL_MARK = (run: RunSnapshot) => ({ table: 'nat', target: 'KUBE-MARK-MASQ', comment: `masquerade LOCAL traffic for ${serviceKey(run, 's-local')} external destinations` });
const noEndpoint = (service: string) => (run: RunSnapshot) => ({ map: 'no-endpoint-nodeports', protocol: 'tcp', port: nodePort(run, service) });

// Each step with the facts read from it and its measured line (every value a {fact.id}, the words ours); facts only one
// mode's run has are that mode's.
const runs = measured(
  // Cluster policy: the source address the backend saw, via the node with and without it.
  curlPart(viaNode('cluster-via-worker', 's-cluster via the node with the backend', 'worker', 's-cluster'), 'answered', {
    zh: '控制面（{node.control-plane.ip}）→ worker {node.worker.ip}:{service.s-cluster.nodePort}（后端就在这个节点）：后端看到 client={cluster-via-worker.client}，rc={cluster-via-worker.rc}，用时 {cluster-via-worker.seconds} 秒',
    en: 'Control-plane ({node.control-plane.ip}) to worker at {node.worker.ip}:{service.s-cluster.nodePort}, where the backend runs: the backend saw client={cluster-via-worker.client}; curl exited {cluster-via-worker.rc} after {cluster-via-worker.seconds} s',
  }),
  // The gateway the CNI put on the host side of the backend's veth, as worker holds it: what the backend saw through worker, if it was masqueraded there.
  part(exec('addresses-worker', 'worker', "worker's IPv4 addresses", () => ['ip', '-j', '-4', 'address', 'show']), { 'node.worker.podGateway': podGateway('addresses-worker', 'worker') }, {
    zh: 'worker 自己持有的、落在其 Pod 网段 {node.worker.podCIDR} 内的地址：{node.worker.podGateway}，在后端 Pod 的 veth 的节点一端',
    en: "The address worker itself holds inside its pod range {node.worker.podCIDR}: {node.worker.podGateway}, on the node’s end of the backend pod’s veth",
  }),
  curlPart(viaNode('cluster-via-worker2', 's-cluster via the node without a backend', 'worker2', 's-cluster'), 'answered', {
    zh: '控制面 → worker2 {node.worker2.ip}:{service.s-cluster.nodePort}（这里没有后端，请求被转发）：后端看到 client={cluster-via-worker2.client}，rc={cluster-via-worker2.rc}，用时 {cluster-via-worker2.seconds} 秒',
    en: 'Control-plane to worker2 at {node.worker2.ip}:{service.s-cluster.nodePort}, which has no backend and forwards the request: the backend saw client={cluster-via-worker2.client}; curl exited {cluster-via-worker2.rc} after {cluster-via-worker2.seconds} s',
  }),
  // The extra hop under Cluster: DNAT to the pod, SNAT to worker2's address.
  part(exec('conntrack-worker2', 'worker2', "worker2's conntrack entries for s-cluster's NodePort", (t) => ['conntrack', '-L', '-p', 'tcp', '--orig-port-dst', t.nodePort('s-cluster')]), conntrackFacts('conntrack-worker2'), {
    zh: 'worker2 的 conntrack 里发往 NodePort {service.s-cluster.nodePort} 的连接共 {conntrack-worker2.count} 条，列在最前的一条原方向是 src={conntrack-worker2.first.original.src} dst={conntrack-worker2.first.original.dst} dport={conntrack-worker2.first.original.dport}，回复方向是 src={conntrack-worker2.first.reply.src} dst={conntrack-worker2.first.reply.dst} dport={conntrack-worker2.first.reply.dport}',
    en: "worker2's conntrack holds {conntrack-worker2.count} [connection|connections] to NodePort {service.s-cluster.nodePort}; the first came in as {conntrack-worker2.first.original.src} to {conntrack-worker2.first.original.dst}:{conntrack-worker2.first.original.dport} and is answered by {conntrack-worker2.first.reply.src}:{conntrack-worker2.first.reply.sport}, addressed to {conntrack-worker2.first.reply.dst}:{conntrack-worker2.first.reply.dport}",
  }),
  // Local policy: the client's address survives; the node without a backend drops the packet.
  curlPart(viaNode('local-via-worker', 's-local via the node with the backend', 'worker', 's-local'), 'answered', {
    zh: '控制面 → worker {node.worker.ip}:{service.s-local.nodePort}（s-local，后端在本节点）：后端看到 client={local-via-worker.client}，正是发起请求的控制面；rc={local-via-worker.rc}，用时 {local-via-worker.seconds} 秒',
    en: 'Control-plane to worker at {node.worker.ip}:{service.s-local.nodePort} (s-local, backend on this node): the backend saw client={local-via-worker.client}, the control-plane itself; curl exited {local-via-worker.rc} after {local-via-worker.seconds} s',
  }),
  curlPart(viaNode('local-via-worker2', 's-local via the node without a backend', 'worker2', 's-local'), 'failed', {
    zh: '控制面 → worker2 {node.worker2.ip}:{service.s-local.nodePort}（s-local，本节点没有后端）：没有任何回应，curl 到了 --max-time {local-via-worker2.timeout} 秒的上限后放弃，rc={local-via-worker2.rc}，用时 {local-via-worker2.seconds} 秒',
    en: 'Control-plane to worker2 at {node.worker2.ip}:{service.s-local.nodePort} (s-local, no backend on this node): nothing came back; curl hit its {local-via-worker2.timeout} s limit and exited {local-via-worker2.rc} after {local-via-worker2.seconds} s',
  }),
  // Every table of a node at one moment (nat and filter together), so a packet can be followed through it.
  rulesPart('iptables-worker2', 'worker2', 'iptables', {
    zh: 'worker2 的 filter 表中对应 s-local 的 NodePort {iptables-worker2.dropPort} 的规则：{iptables-worker2.dropRule}',
    en: "The rule in worker2's filter table for s-local’s NodePort {iptables-worker2.dropPort}: {iptables-worker2.dropRule}",
  }, {
    'iptables-worker2.dropRule': iptables.rule('iptables-worker2', DROP),
    'iptables-worker2.dropPort': iptables.option('iptables-worker2', DROP, '--dport'),
  }),
  // worker, with the backend, holds both Services' external chains: s-cluster's marks every connection for masquerade.
  // s-local's sends connections from pods and from the node itself to every endpoint (KUBE-SVC-…), marking only the
  // node's own, and the rest, from outside, to the node's own endpoints (KUBE-SVL-…); KUBE-POSTROUTING masquerades what is marked.
  rulesPart('iptables-worker', 'worker', 'iptables', {
    zh: 'worker 的 nat 表里，s-cluster 外部流量链的第一条规则：{iptables-worker.clusterMark}',
    en: "The first rule of s-cluster’s external-traffic chain in worker’s nat table: {iptables-worker.clusterMark}",
  }, {
    'iptables-worker.clusterMark': iptables.rule('iptables-worker', (run) => ({ table: 'nat', target: 'KUBE-MARK-MASQ', comment: `masquerade traffic for ${serviceKey(run, 's-cluster')} external destinations` })),
    'iptables-worker.localMark': iptables.rule('iptables-worker', LOCAL_MARK),
    'iptables-worker.localRoute': iptables.inChainOf('iptables-worker', LOCAL_MARK, 'KUBE-SVL-'),
    'iptables-worker.localPodRoute': iptables.rule('iptables-worker', (run) => ({ table: 'nat', comment: `pod traffic for ${serviceKey(run, 's-local')} external destinations` })),
    'iptables-worker.localNodeRoute': iptables.rule('iptables-worker', (run) => ({ table: 'nat', comment: `route LOCAL traffic for ${serviceKey(run, 's-local')} external destinations` })),
    'iptables-worker.masquerade': iptables.rule('iptables-worker', () => ({ table: 'nat', chain: 'KUBE-POSTROUTING', target: 'MASQUERADE' })),
  }),
  // In nftables mode kube-proxy keeps its rules in its own table (the drop lives there), beside iptables-nft's: the
  // verdict map element it wrote, and the path a new connection takes to it.
  rulesPart('nft-worker2', 'worker2', 'nftables', {
    zh: 'worker2 上 kube-proxy 自己的 nftables 表：no-endpoint-nodeports 映射把 s-local 的 NodePort 判为 {nft-worker2.drop.verdict}（{nft-worker2.drop.element}），由 nodeport-endpoints-check 链查表，只对 nodeport-ips 中的 {nft-worker2.nodePortIPs} 生效',
    en: "kube-proxy’s own nftables table on worker2: the no-endpoint-nodeports map sends s-local’s NodePort to {nft-worker2.drop.verdict} ({nft-worker2.drop.element}), looked up by the nodeport-endpoints-check chain, and only for {nft-worker2.nodePortIPs} in nodeport-ips",
  }, {
    ...nftVerdictFacts('nft-worker2.drop', 'nft-worker2', noEndpoint('s-local')),
    ...nftVerdictFacts('nft-worker2.lbDrop', 'nft-worker2', noEndpoint('s-lb')),
    'nft-worker2.checkRule': nft.rule('nft-worker2', 'nodeport-endpoints-check', '@no-endpoint-nodeports'),
    'nft-worker2.inputHook': nft.hook('nft-worker2', 'filter-input'),
    'nft-worker2.inputJump': nft.rule('nft-worker2', 'filter-input', 'jump nodeport-endpoints-check'),
    'nft-worker2.nodePortIPs': nft.set('nft-worker2', 'nodeport-ips'),
  }),
  // s-lb's health check on each node, and on worker once the backend is gone (how long kube-proxy took to see it gone, as its own health check told it).
  healthPart('worker', 'health-worker', 'worker {node.worker.ip}:{service.s-lb.healthCheckNodePort}（有本地后端）', 'Health check on worker, {node.worker.ip}:{service.s-lb.healthCheckNodePort} (a local backend)'),
  healthPart('worker2', 'health-worker2', 'worker2 {node.worker2.ip}:{service.s-lb.healthCheckNodePort}（没有本地后端）', 'Health check on worker2, {node.worker2.ip}:{service.s-lb.healthCheckNodePort} (no local backend)'),
  healthPart('control-plane', 'health-control-plane', '控制面 {node.control-plane.ip}:{service.s-lb.healthCheckNodePort}（没有本地后端）', 'Health check on the control-plane, {node.control-plane.ip}:{service.s-lb.healthCheckNodePort} (no local backend)'),
  part({ kind: 'delete-pod', id: 'delete-backend', title: 'delete the backend pod', pod: 'backend', namespace: 'default', settleNode: 'worker', settleService: 's-lb' }, settleFacts('delete-backend'), {
    zh: '删除 worker 上的后端 Pod（原 IP {pod.backend.ip}）：rc={delete-backend.rc}，用时 {delete-backend.seconds} 秒',
    en: 'Deleted the backend pod on worker (it had {pod.backend.ip}): exit code {delete-backend.rc} after {delete-backend.seconds} s',
  }),
  healthPart('worker', 'health-worker-after-delete', '后端删除之后再问 worker {node.worker.ip}:{service.s-lb.healthCheckNodePort}', 'Worker’s health check once the backend is gone, {node.worker.ip}:{service.s-lb.healthCheckNodePort}', "s-lb's health check on worker after the delete"),
);

const experiment = kubernetesSeries({
  slug: '074-external-traffic-policy',
  manifests: ['manifests/backend.yaml', 'manifests/services.yaml'],
  steps: runs.steps,
  // The same experiment under each of kube-proxy's modes; iptables (the first) is the default run.
  // ipvs needs IPVS in the kernel: the lab refuses it, kind passes it to its cluster config.
  variants: { axis: 'kubeProxyMode', values: ['iptables', 'nftables', 'ipvs'] },
});

const facts = {
  // The image the manifest names (what a registry would have served): declared, not measured.
  'declared.backend.image': declared('manifests/backend.yaml', 'Pod/backend', 'spec.containers.0.image'),
  ...runs.facts,
};
const variantFacts = runs.variantFacts;

type Id = FactIdOf<typeof facts, typeof variantFacts>;

// The packet's path in each case: who sends it, which node it enters, what that node does to its addresses,
// and where it ends. The client's source port and the pod's port are known only for the request through
// worker2 under Cluster (worker2's conntrack entry); the other hops show the addresses without them.
const client: PathStation<Id> = { id: 'client', kind: 'client', label: { zh: '客户端（控制面节点）', en: 'Client (the control-plane node)' }, name: 'node.control-plane.name', address: 'node.control-plane.ip' };
/** A worker node's box: its name and address are the run's. */
const workerNode = (node: 'worker' | 'worker2', label: PathStation['label']): PathStation<Id> => ({ id: node, kind: 'node', label, name: `node.${node}.name`, address: `node.${node}.ip` });
const worker = workerNode('worker', { zh: 'worker（有后端）', en: 'worker (has the backend)' });
const worker2 = workerNode('worker2', { zh: 'worker2（没有后端）', en: 'worker2 (no backend)' });
const pod: PathStation<Id> = { id: 'pod', kind: 'pod', label: { zh: '后端 Pod（在 worker 上）', en: 'Backend pod (on worker)' }, address: 'pod.backend.ip' };
const STATIONS = [client, worker, worker2, pod];

/** The client's request to a worker, at the port of a Service. */
const toNode = (node: 'worker' | 'worker2', port: Id) => hop<Id>('client', node, 'node.control-plane.ip', [`node.${node}.ip`, port]);
/** worker hands the request to the pod on it; `seen` is the source the backend reported. */
const workerToPod = (seen: Id) => hop<Id>('worker', 'pod', seen, 'pod.backend.ip');
/** worker's DNAT of a request it keeps: to the pod on it. */
const dnatToPod = event('worker', 'rewrite', 'DNAT：dst 改为 Pod {pod.backend.ip}', 'DNAT: dst → the pod, {pod.backend.ip}');
/** The conntrack entry worker2 kept for the request through it under Cluster. */
const ct = (field: `${'original' | 'reply'}.${'src' | 'dst' | 'sport' | 'dport'}`): Id => `conntrack-worker2.first.${field}`;
const BACKEND = 'manifests/backend.yaml';
const SERVICES = 'manifests/services.yaml';

export default defineArticle({
  experiment,
  facts,
  variantFacts,
  // What the prose asserts about the run: a passage names the claims it rests on (<Claim ids="...">);
  // a re-run that breaks one fails the build (or, with SHICE_DRAFT=1, flags the passage).
  claims: [
    { id: 'cluster-hides-client',
      zh: 'Cluster 策略下，无论经哪个节点进入，后端都看不到真实客户端的地址',
      en: 'Under Cluster the backend never sees the real client, whichever node the request enters by',
      holds: (v) => v('cluster-via-worker.client') !== v('node.control-plane.ip') && v('cluster-via-worker2.client') !== v('node.control-plane.ip'),
    },
    { id: 'cluster-same-node-sees-gateway',
      zh: '经有后端的节点进入时，后端看到的是该节点 Pod 网段的网关地址',
      en: 'Entering by the node with the backend, the backend sees that node’s pod gateway address',
      holds: (v) => v('cluster-via-worker.client') === v('node.worker.podGateway'),
    },
    { id: 'cluster-forward-sees-forwarding-node',
      zh: '经没有后端的节点进入时，请求被转发，后端看到的是转发节点自己的地址',
      en: 'Entering by a node without the backend, the request is forwarded and the backend sees the forwarding node’s address',
      holds: (v) => v('cluster-via-worker2.client') === v('node.worker2.ip'),
    },
    { id: 'local-keeps-client',
      zh: 'Local 策略下，经有后端的节点进入，后端看到的就是真实客户端的地址',
      en: 'Under Local, entering by the node with the backend, the backend sees the real client address',
      holds: (v) => v('local-via-worker.client') === v('node.control-plane.ip'),
    },
    { id: 'local-drops-without-backend',
      zh: 'Local 策略下，没有本地后端的节点丢弃发往该 NodePort 的包：curl 以超时的退出码放弃，filter 表里有对应的 DROP 规则',
      en: 'Under Local, a node without a local backend drops packets to the NodePort: curl gives up with its timeout exit code and the filter table holds the DROP rule',
      holds: (v) => v('local-via-worker2.rc') === '28' && v('iptables-worker2.dropPort') === v('service.s-local.nodePort'),
      variants: ['iptables'],
    },
    { id: 'nat-masquerades-cluster-not-local',
      zh: 'worker 的 nat 表里，s-cluster 把经 NodePort 进来的每个连接都打上伪装标记；s-local 把来自 Pod 网段和来自节点自身的连接交给整个 Service 的后端，只给节点自身的连接打标记，其余来自集群外的连接交给本节点的后端；带标记的包出节点时做 MASQUERADE',
      en: "In worker’s nat table, s-cluster marks every connection that arrives by its NodePort for masquerade; s-local sends connections from the pod range and from the node itself to all of the Service’s endpoints, marking only the node’s own, and hands the rest, from outside the cluster, to the node’s own backends; marked packets are masqueraded on the way out",
      holds: (v) =>
        !v('iptables-worker.clusterMark').includes('--src-type') &&
        v('iptables-worker.localMark').includes('--src-type LOCAL') &&
        /^-A \S+ -j KUBE-SVL-\S+$/.test(v('iptables-worker.localRoute')) &&
        v('iptables-worker.localPodRoute').includes(` -s ${v('cluster.podSubnet')} `) &&
        / -j KUBE-SVC-\S+$/.test(v('iptables-worker.localPodRoute')) &&
        v('iptables-worker.localNodeRoute').includes('--src-type LOCAL') &&
        / -j KUBE-SVC-\S+$/.test(v('iptables-worker.localNodeRoute')) &&
        v('iptables-worker.masquerade').includes('-j MASQUERADE'),
      variants: ['iptables'],
    },
    { id: 'nft-drops-without-backend',
      zh: 'nftables 模式下，没有本地后端的节点同样丢弃：curl 以超时的退出码放弃，kube-proxy 表的 no-endpoint-nodeports 映射把该 NodePort 判为 drop，由 filter-input 对新连接跳转到的 nodeport-endpoints-check 查这张映射，且只查 nodeport-ips 里本节点的地址',
      en: 'In nftables mode a node without a local backend drops too: curl gives up with its timeout exit code; the no-endpoint-nodeports map of kube-proxy’s table sends the NodePort to drop, looked up by nodeport-endpoints-check, which filter-input jumps to for new connections, and only for the node’s own address in nodeport-ips',
      holds: (v) => v('local-via-worker2.rc') === '28'
        && v('nft-worker2.drop.port') === v('service.s-local.nodePort') && v('nft-worker2.drop.verdict') === 'drop'
        && v('nft-worker2.checkRule').includes('vmap @no-endpoint-nodeports') && v('nft-worker2.checkRule').includes('@nodeport-ips')
        && v('nft-worker2.inputJump') === 'ct state new jump nodeport-endpoints-check'
        && v('nft-worker2.nodePortIPs') === v('node.worker2.ip'),
      variants: ['nftables'],
    },
    { id: 'nodeport-local-has-no-health-port',
      zh: '只有 LoadBalancer + Local 的 Service 才分配 healthCheckNodePort，NodePort + Local 没有',
      en: 'Only a LoadBalancer Service with Local gets a healthCheckNodePort; a NodePort Service with Local gets none',
      holds: (v) => v('service.s-local.healthCheckNodePort') === 'none' && /^\d+$/.test(v('service.s-lb.healthCheckNodePort')),
    },
    { id: 'health-check-follows-local-endpoints',
      zh: '健康检查端口在有本地后端的节点回答健康，在没有本地后端的节点（以及删掉后端之后）回答不健康',
      en: 'The health check answers healthy on a node with a local backend, and unhealthy where there is none, including after the backend is deleted',
      holds: (v) =>
        v('health-worker.status') === '200' && v('health-worker.localEndpoints') === '1'
        && v('health-worker2.status') === '503' && v('health-worker2.localEndpoints') === '0'
        && v('health-control-plane.status') === '503' && v('health-control-plane.localEndpoints') === '0'
        && v('health-worker-after-delete.status') === '503' && v('health-worker-after-delete.localEndpoints') === '0',
    },
    { id: 'cluster-extra-hop',
      zh: '经没有后端的节点进入时，连接在该节点被 DNAT 到 Pod、再 SNAT 成该节点的地址：conntrack 的回复方向由 Pod 发往该节点',
      en: 'Through a node without the backend, the connection is DNATed to the pod and SNATed to that node: conntrack’s reply direction runs from the pod to that node',
      holds: (v) =>
        v('conntrack-worker2.first.original.src') === v('node.control-plane.ip')
        && v('conntrack-worker2.first.original.dst') === v('node.worker2.ip')
        && v('conntrack-worker2.first.original.dport') === v('service.s-cluster.nodePort')
        && v('conntrack-worker2.first.reply.src') === v('pod.backend.ip')
        && v('conntrack-worker2.first.reply.dst') === v('node.worker2.ip'),
    },
  ],
  // Claims across the runs of both modes, over facts named `<variant>:<fact id>`: evaluated at every build like the others.
  comparisons: [
    { id: 'modes-drop-alike',
      zh: '两种模式下，没有本地后端的节点都丢弃发往 Local 策略 NodePort 的包：curl 都以同一个超时退出码放弃',
      en: 'In both modes the node without a local backend drops packets to the Local NodePort: curl gives up with the same timeout exit code',
      holds: inEveryVariant<Id>(MODES_MEASURED, (v) => v('local-via-worker2.rc') === '28'),
    },
    { id: 'modes-source-alike',
      zh: '两种模式下，后端看到的来源地址规律相同：Cluster 经有后端的节点是该节点的 Pod 网关，经没有后端的节点是转发节点的地址，Local 保留客户端地址',
      en: 'In both modes the backend sees the same pattern of source addresses: under Cluster the pod gateway via the node with the backend and the forwarding node via the other, under Local the client itself',
      holds: inEveryVariant<Id>(MODES_MEASURED, (v) =>
        v('cluster-via-worker.client') === v('node.worker.podGateway')
        && v('cluster-via-worker2.client') === v('node.worker2.ip')
        && v('local-via-worker.client') === v('node.control-plane.ip')),
    },
    { id: 'modes-health-alike',
      zh: '两种模式下，健康检查的回答相同：有本地后端时回答健康，没有本地后端时以及删掉后端之后回答不健康',
      en: 'In both modes the health check answers alike: healthy with a local backend, unhealthy without one and after the backend is deleted',
      holds: inEveryVariant<Id>(MODES_MEASURED, (v) =>
        v('health-worker.status') === '200' && v('health-worker2.status') === '503' && v('health-worker-after-delete.status') === '503'),
    },
  ],
  // The rows of <VariantComparison />: the key observations, each read in every measured mode's run.
  comparisonRows: [
    { fact: 'cluster-via-worker.client', label: { zh: 'Cluster，经有后端的 worker：后端看到的来源地址', en: 'Cluster via worker (has the backend): source address the backend saw' } },
    { fact: 'cluster-via-worker2.client', label: { zh: 'Cluster，经没有后端的 worker2：后端看到的来源地址', en: 'Cluster via worker2 (no backend): source address the backend saw' } },
    { fact: 'local-via-worker.client', label: { zh: 'Local，经有后端的 worker：后端看到的来源地址', en: 'Local via worker (has the backend): source address the backend saw' } },
    { fact: 'local-via-worker2.rc', label: { zh: 'Local，经没有后端的 worker2：curl 的退出码', en: 'Local via worker2 (no backend): curl’s exit code' } },
    { fact: 'local-via-worker2.seconds', label: { zh: 'Local，经没有后端的 worker2：curl 用时（秒）', en: 'Local via worker2 (no backend): curl’s time (s)' } },
    { fact: 'health-worker.status', label: { zh: '健康检查，worker（有后端）', en: 'Health check on worker (has the backend)' } },
    { fact: 'health-worker2.status', label: { zh: '健康检查，worker2（没有后端）', en: 'Health check on worker2 (no backend)' } },
    { fact: 'health-worker-after-delete.status', label: { zh: '健康检查，删掉后端之后的 worker', en: 'Health check on worker after the delete' } },
    { fact: 'run.kubeProxyMode', label: { zh: 'kube-proxy 自报的模式', en: 'The mode kube-proxy reports' } },
  ],
  lines: runs.lines,
  paths: [
    path({
      id: 'cluster-via-worker',
      title: { zh: 'Cluster，经有后端的 worker 进入', en: 'Cluster, entering through worker (which has the backend)' },
      stations: STATIONS,
      route: ['client', 'worker', 'pod'],
      hops: [toNode('worker', 'service.s-cluster.nodePort'), workerToPod('cluster-via-worker.client')],
      events: [dnatToPod, event('worker', 'rewrite', 'SNAT：src 改为 worker 的 Pod 网关 {node.worker.podGateway}', 'SNAT: src → worker’s pod gateway, {node.worker.podGateway}')],
      outcome: {
        zh: '后端看到的来源是 {cluster-via-worker.client}，不是客户端的 {node.control-plane.ip}；curl 的退出码 {cluster-via-worker.rc}。',
        en: 'The backend saw the source {cluster-via-worker.client}, not the client’s {node.control-plane.ip}; curl exited with {cluster-via-worker.rc}.',
      },
    }),
    path({
      id: 'cluster-via-worker2',
      title: { zh: 'Cluster，经没有后端的 worker2 进入', en: 'Cluster, entering through worker2 (which has no backend)' },
      stations: STATIONS,
      route: ['client', 'worker2', 'worker', 'pod'],
      hops: [
        hop<Id>('client', 'worker2', [ct('original.src'), ct('original.sport')], [ct('original.dst'), ct('original.dport')]),
        hop<Id>('worker2', 'worker', [ct('reply.dst'), ct('reply.dport')], [ct('reply.src'), ct('reply.sport')], { zh: '经节点网络转发', en: 'Forwarded over the node network' }),
        hop<Id>('worker', 'pod', 'cluster-via-worker2.client', ['pod.backend.ip', ct('reply.sport')]),
      ],
      events: [
        event('worker2', 'rewrite', 'DNAT：dst 改为 Pod {conntrack-worker2.first.reply.src}:{conntrack-worker2.first.reply.sport}', 'DNAT: dst → the pod, {conntrack-worker2.first.reply.src}:{conntrack-worker2.first.reply.sport}'),
        event('worker2', 'rewrite', 'SNAT：src 改为 worker2 自己 {conntrack-worker2.first.reply.dst}:{conntrack-worker2.first.reply.dport}', 'SNAT: src → worker2 itself, {conntrack-worker2.first.reply.dst}:{conntrack-worker2.first.reply.dport}'),
      ],
      outcome: {
        zh: '后端看到的来源是 worker2 的 {cluster-via-worker2.client}。回包先回到 worker2，它的 conntrack 记录（{conntrack-worker2.first.state}）把目的地址换回客户端的 {conntrack-worker2.first.original.src}:{conntrack-worker2.first.original.sport}；curl 的退出码 {cluster-via-worker2.rc}。',
        en: 'The backend saw worker2’s {cluster-via-worker2.client}. The reply goes back to worker2 first, whose conntrack entry ({conntrack-worker2.first.state}) turns its destination back into the client’s {conntrack-worker2.first.original.src}:{conntrack-worker2.first.original.sport}; curl exited with {cluster-via-worker2.rc}.',
      },
    }),
    path({
      id: 'local-via-worker',
      title: { zh: 'Local，经有后端的 worker 进入', en: 'Local, entering through worker (which has the backend)' },
      stations: STATIONS,
      route: ['client', 'worker', 'pod'],
      hops: [toNode('worker', 'service.s-local.nodePort'), workerToPod('local-via-worker.client')],
      events: [dnatToPod, event('worker', 'keep', '不做 SNAT：src 仍是客户端的地址', 'No SNAT: src stays the client’s')],
      outcome: {
        zh: '后端看到的来源 {local-via-worker.client} 就是客户端 {node.control-plane.ip}；curl 的退出码 {local-via-worker.rc}。',
        en: 'The backend saw the source {local-via-worker.client}, the client {node.control-plane.ip} itself; curl exited with {local-via-worker.rc}.',
      },
    }),
    path({
      id: 'local-via-worker2',
      title: { zh: 'Local，经没有后端的 worker2 进入：包被丢弃', en: 'Local, entering through worker2 (which has no backend): dropped' },
      stations: STATIONS,
      route: ['client', 'worker2', 'worker', 'pod'],
      hops: [toNode('worker2', 'service.s-local.nodePort')],
      events: [event('worker2', 'drop', 'DROP：NodePort {iptables-worker2.dropPort} 在本节点没有端点，不转发', 'DROP: NodePort {iptables-worker2.dropPort} has no local endpoints; not forwarded')],
      outcome: {
        zh: '没有任何回应：curl 等满 {local-via-worker2.timeout} 秒，报出“{local-via-worker2.error}”，退出码 {local-via-worker2.rc}，用时 {local-via-worker2.seconds} 秒。',
        en: 'No answer at all: curl waited out its {local-via-worker2.timeout} s, reported "{local-via-worker2.error}" and exited with {local-via-worker2.rc} after {local-via-worker2.seconds} s.',
      },
    }),
    { id: 'health-check',
      title: { zh: 's-lb 的健康检查：客户端探测每个节点的 healthCheckNodePort', en: 's-lb’s health check: the client probes each node’s healthCheckNodePort' },
      stations: STATIONS,
      legs: (['worker', 'worker2'] as const).map((node) => ({
        label: { zh: `探测 ${node}`, en: `Probe of ${node}` },
        stations: node === 'worker' ? ['client', 'worker', 'pod'] : ['client', 'worker2'],
        hops: [toNode(node, 'service.s-lb.healthCheckNodePort')],
        events: [event(node, 'answer', `回答 HTTP {health-${node}.status} {health-${node}.reason}，localEndpoints={health-${node}.localEndpoints}`, `Answers HTTP {health-${node}.status} {health-${node}.reason}, localEndpoints={health-${node}.localEndpoints}`)],
      })),
      outcome: {
        zh: '每个节点的健康检查端口 {service.s-lb.healthCheckNodePort} 只替本节点回答：有本地后端的 worker 回答 {health-worker.status}，没有的 worker2 回答 {health-worker2.status}。',
        en: 'Each node’s health-check port, {service.s-lb.healthCheckNodePort}, speaks only for that node: worker, with a local backend, answers {health-worker.status}; worker2, without one, answers {health-worker2.status}.',
      },
    },
  ],
  // The step-by-step view: one stop per object the experiment sets up or removes, in the order it uses them.
  walkthrough: [
    { id: 'backend-echoes-the-source',
      object: { manifest: BACKEND, document: 'ConfigMap/backend-nginx', highlight: ['default.conf'] },
      steps: [],
    },
    { id: 'backend-pinned-to-worker',
      object: { manifest: BACKEND, document: 'Pod/backend', highlight: ['nodeSelector', 'readinessProbe'] },
      steps: [],
    },
    { id: 's-cluster',
      object: { manifest: SERVICES, document: 'Service/s-cluster', highlight: ['type', 'externalTrafficPolicy'] },
      steps: ['cluster-via-worker', 'cluster-via-worker2', 'conntrack-worker2', 'iptables-worker'],
    },
    { id: 's-local',
      object: { manifest: SERVICES, document: 'Service/s-local', highlight: ['externalTrafficPolicy'] },
      steps: ['local-via-worker', 'local-via-worker2', 'iptables-worker2'],
    },
    { id: 's-lb-health-check',
      object: { manifest: SERVICES, document: 'Service/s-lb', highlight: ['type', 'externalTrafficPolicy'] },
      steps: ['health-worker', 'health-worker2', 'health-control-plane'],
    },
    { id: 'delete-backend',
      object: { manifest: BACKEND, document: 'Pod/backend', highlight: ['name'] },
      steps: ['delete-backend', 'health-worker-after-delete'],
    },
  ],
  // The upstream code each mechanism sentence rests on (<Cite id>), as kubernetes/kubernetes has it at every
  // release the runs used: npm run cite keeps the lines in upstream.yaml, the build checks them.
  citations: {
    'cluster-masquerades': {
      file: IPTABLES_PROXIER,
      lines: [
        'if !svcInfo.ExternalPolicyLocal() {',
        '// If we are using non-local endpoints we need to masquerade,',
        '// in case we cross nodes.',
      ],
      about: { zh: 'Cluster：外部流量链给每个连接打上伪装标记，因为后端可能在别的节点上', en: 'Cluster: the external chain marks every connection for masquerade, since the endpoint may be on another node' },
    },
    'local-retains-source': {
      file: IPTABLES_PROXIER,
      lines: ['} else {', '// If we are only using same-node endpoints, we can retain the', '// source IP in most cases.'],
      about: { zh: 'Local：只用本节点的后端，来源地址多数情况下可以保留', en: 'Local: with only same-node endpoints, the source address can be kept in most cases' },
    },
    'local-pod-traffic': {
      file: IPTABLES_PROXIER,
      lines: ['// Treat all locally-originated pod -> external destination', '…', '// to an external load-balancer and coming back in.'],
      about: { zh: 'Local：来自 Pod 网段的连接不受流量策略约束，交给整个 Service 的后端', en: 'Local: connections from the pod range are subject to no traffic policy and go to every endpoint of the Service' },
    },
    'local-node-traffic': {
      file: IPTABLES_PROXIER,
      lines: ['// Locally originated traffic (not a pod, but the host node)', '…', '// from the host to be redirected to the service correctly.'],
      about: { zh: 'Local：节点自己发起的连接照样打伪装标记，也交给整个 Service 的后端', en: 'Local: connections the node itself makes are still marked for masquerade, and go to every endpoint too' },
    },
    'local-outside-traffic': {
      file: IPTABLES_PROXIER,
      lines: ['// Anything else falls thru to the appropriate policy chain.', '…', '"-j", string(externalPolicyChain))'],
      about: { zh: 'Local：其余的连接，即来自集群外的，落到只含本节点后端的策略链', en: 'Local: the rest, traffic from outside, falls through to the policy chain of the node’s own endpoints' },
    },
    'local-external-policy': {
      file: IPTABLES_PROXIER,
      lines: [
        'externalPolicyChain := clusterPolicyChain',
        'hasExternalEndpoints := hasEndpoints',
        'if svcInfo.ExternalPolicyLocal() {',
        'externalPolicyChain = localPolicyChain',
        'if len(localEndpoints) == 0 {',
        'hasExternalEndpoints = false',
        '}',
        '}',
      ],
      about: { zh: 'Local：外部流量只用本节点后端的链，本节点没有后端就没有端点可用', en: 'Local: external traffic uses the chain of the node’s own endpoints; with none on the node it has none to use' },
    },
    'local-drops-without-endpoints': {
      file: IPTABLES_PROXIER,
      lines: ['// The externalTrafficPolicy is "Local" but there are no', '…', 'externalTrafficFilterTarget = "DROP"'],
      about: { zh: 'Local 且本节点没有后端：从集群外来的流量被 DROP', en: 'Local with no local endpoint: traffic from outside the cluster is dropped' },
    },
    'health-port-only-for-load-balancers': {
      file: 'pkg/api/service/util.go',
      lines: ['func NeedsHealthCheck(service *api.Service) bool {', '…', 'return RequestsOnlyLocalTraffic(service)'],
      about: { zh: '只有 LoadBalancer 类型、策略为 Local 的 Service 需要健康检查端口', en: 'Only a Service of type LoadBalancer with policy Local needs a health-check port' },
    },
    'health-port-answers': {
      file: 'pkg/proxy/healthcheck/service_health.go',
      lines: ['if count != 0 && kubeProxyHealthy {', '…', '}'],
      about: { zh: '健康检查端口：本节点有就绪的后端且 kube-proxy 健康时返回成功，否则返回服务不可用', en: 'The health-check port: success while the node has a ready endpoint and kube-proxy is healthy, service unavailable otherwise' },
    },
    'health-port-counts-ready': {
      file: 'pkg/proxy/endpointschangetracker.go',
      lines: ['// Only add ready endpoints for health checking. Terminating endpoints may still serve traffic', '…', '}'],
      about: { zh: '健康检查只数就绪的本地端点，正在终止的不算', en: 'The health check counts only ready local endpoints, not terminating ones' },
    },
    // The evidence page's nftables column and environments.
    'nft-own-table': {
      file: NFTABLES_PROXIER,
      lines: [
        '// Our nftables table. All of our chains/sets/maps are created inside this table,',
        '// so they don\'t need any "kube-" or "kube-proxy-" prefix of their own.',
        'kubeProxyTable = "kube-proxy"',
      ],
      about: { zh: 'nftables 模式：kube-proxy 的链、集合和映射都建在它自己的 kube-proxy 表里', en: 'nftables mode: kube-proxy creates all its chains, sets and maps in a table of its own, kube-proxy' },
    },
    'nft-health-server': {
      file: NFTABLES_PROXIER,
      lines: ['if err := proxier.serviceHealthServer.SyncEndpoints(proxier.endpointsMap.LocalReadyEndpoints()); err != nil {'],
      about: { zh: 'nftables 模式同样把本节点就绪的后端交给 kube-proxy 的健康检查服务', en: 'nftables mode, too, hands the node’s ready endpoints to kube-proxy’s health-check server' },
    },
    'nft-clears-iptables': {
      file: 'cmd/kube-proxy/app/server_linux.go',
      lines: [
        '// Clean up iptables and ipvs rules if switching to nftables, or if cleanupAndExit',
        'if !isIPTablesBased(mode) || cleanupAndExit {',
        'encounteredError = iptables.CleanupLeftovers(ctx) || encounteredError',
      ],
      about: { zh: 'kube-proxy 以 nftables 模式启动时，清掉 iptables 和 IPVS 模式留下的规则', en: 'Starting in nftables mode, kube-proxy clears the rules the iptables and IPVS modes left' },
    },
    'nft-local-drops': {
      file: NFTABLES_PROXIER,
      lines: ['if !hasInternalEndpoints {', '…', 'externalTrafficFilterVerdict = "drop"'],
      about: {
        zh: 'nftables 模式：策略为 Local 而本节点没有端点时判决为丢弃，ClusterIP 看 internalTrafficPolicy，外部地址看 externalTrafficPolicy',
        en: 'nftables mode: under policy Local with no endpoint on the node the verdict is drop; internalTrafficPolicy for the ClusterIP, externalTrafficPolicy for external addresses',
      },
    },
    'nft-no-endpoint-maps': {
      file: NFTABLES_PROXIER,
      lines: ['// Set up "no endpoints" drop/reject handling', '…', 'Comment: ptr.To("vmap to drop or reject packets to service nodeports with no endpoints"),'],
      about: {
        zh: '两张判决映射：no-endpoint-services 按 Service 地址、协议和端口查，no-endpoint-nodeports 只按协议和 NodePort 查',
        en: 'The two verdict maps: no-endpoint-services is keyed by Service address, protocol and port; no-endpoint-nodeports by protocol and NodePort alone',
      },
    },
    'nft-nodeport-ips': {
      file: NFTABLES_PROXIER,
      lines: ['tx.Add(&knftables.Set{', 'Name:    nodePortIPsSet,', 'Type:    ipvX_addr,', 'Comment: ptr.To("IPs that accept NodePort traffic"),'],
      about: { zh: 'nodeport-ips 集合：接受 NodePort 流量的地址', en: 'The set nodeport-ips: the addresses that accept NodePort traffic' },
    },
    'iptables-nodeport-any-local': {
      file: IPTABLES_PROXIER,
      lines: [
        'filterRules.Write(',
        '"-A", string(kubeExternalServicesChain),',
        '"-m", "comment", "--comment", externalTrafficFilterComment,',
        '"-m", "addrtype", "--dst-type", "LOCAL",',
        '"-m", protocol, "-p", protocol,',
        '"--dport", strconv.Itoa(svcInfo.NodePort()),',
      ],
      about: { zh: 'iptables 模式：NodePort 的丢弃规则用 --dst-type LOCAL 匹配本机的任何地址', en: 'iptables mode: a NodePort’s drop rule matches any local address with --dst-type LOCAL' },
    },
    'nft-nodeport-drop-element': {
      file: NFTABLES_PROXIER,
      lines: [
        'if !hasExternalEndpoints {',
        '// Either no endpoints at all (REJECT) or no endpoints for',
        '// external traffic (DROP anything that didn\'t get',
        '// short-circuited by the EXT chain.)',
        'proxier.noEndpointNodePorts.ensureElem(tx, &knftables.Element{',
        'Map: noEndpointNodePortsMap,',
      ],
      about: {
        zh: 'nftables 模式：只有本节点没有可供外部流量用的端点时，NodePort 才在 no-endpoint-nodeports 里有元素',
        en: 'nftables mode: a NodePort has an element in no-endpoint-nodeports only while the node has no endpoint for external traffic',
      },
    },
    'nft-hook-order': {
      file: NFTABLES_PROXIER,
      lines: ['// filter base chains (filter priority)', '…', '{natPreroutingChain, knftables.NATType, knftables.PreroutingHook, knftables.DNATPriority},'],
      about: { zh: 'nftables 模式的基础链：filter-input 挂在 input 钩子上，nat-prerouting 挂在更早的 prerouting 钩子上', en: 'nftables mode’s base chains: filter-input on the input hook, nat-prerouting on the earlier prerouting hook' },
    },
    'nft-external-falls-through': {
      file: NFTABLES_PROXIER,
      lines: ['// Anything else falls thru to the appropriate policy chain.', '…', '"goto", externalPolicyChain,'],
      about: { zh: 'nftables 模式：外部流量链只在有可供外部流量用的端点时才转到策略链', en: 'nftables mode: the external chain goes on to the policy chain only when there are endpoints for external traffic' },
    },
    'ipam-next-free': {
      file: 'pkg/controller/nodeipam/ipam/cidrset/cidr_set.go',
      lines: [
        '// AllocateNext allocates the next free CIDR range. This will set the range',
        '// as occupied and return the allocated range.',
        'func (s *CidrSet) AllocateNext() (*net.IPNet, error) {',
      ],
      about: { zh: '节点 IPAM：每次分配下一个空闲的子网', en: 'Node IPAM: each allocation takes the next free range' },
    },
  },
});
