// Article 076, internalTrafficPolicy: what Local changes for traffic that starts
// inside the cluster. One backend on worker; a client pod on each worker, and
// each worker's own network namespace, ask a Service's ClusterIP. s-local and
// s-ext-local set the external and the internal policy the other way round. Node,
// pod and Service facts, versions and each step's rc and seconds come from every
// run (src/evidence/run-facts.ts).
import {
  defineArticle, kubernetesSeries, inEveryVariant, clientSettleFacts, curlPart, declared, event, exec, factsFrom, hop, inPod, iptables, measured, nft, nftVerdictFacts,
  part, path, podGateway, rulesPart, stdout, curlArgv, service, serviceKey, type FactIdOf, type PathStation, type RunSnapshot, type TopologyView,
} from '../../../src/authoring/article.ts';

/** kube-proxy's two modes: where each writes its rules. */
const IPTABLES_PROXIER = 'pkg/proxy/iptables/proxier.go';
const NFTABLES_PROXIER = 'pkg/proxy/nftables/proxier.go';

/** curl gives up after this many seconds: a dropped packet shows up as curl's exit code 28. */
const CURL_TIMEOUT_SECONDS = '3';
/** The kube-proxy modes this article's runs measured. */
const MODES = ['iptables', 'nftables'];

const toClusterIP = (service: string) => (t: TopologyView) => curlArgv(`http://${t.clusterIP(service)}/`, { maxTime: CURL_TIMEOUT_SECONDS });
const toNodePort = (node: string, service: string) => (t: TopologyView) => curlArgv(`http://${t.ip(node)}:${t.nodePort(service)}/`, { maxTime: CURL_TIMEOUT_SECONDS });
/** A request from the client pod on `node`, inside its network namespace. */
const fromPod = <const S extends string>(id: S, node: 'worker' | 'worker2', service: string, title: string) => inPod(id, `client-${node}`, node, title, toClusterIP(service));
/** A request from a node's own network namespace (host network). */
const fromNode = <const S extends string>(id: S, node: string, service: string, title: string) => exec(id, node, title, toClusterIP(service));
/** Which pod answered: the backend writes its name (the container's hostname) on the first line. */
const server = <const S extends string>(step: S) => factsFrom<`${S}.server`>([[`${step}.server`, stdout(step, /^server=(\S+)$/m)]]);
/** s-local's rule in the filter table's KUBE-SERVICES chain: a DROP while another node has an endpoint, a REJECT once none has. */
const servicesRule = (target: 'DROP' | 'REJECT', comment: string) => (run: RunSnapshot) => ({ table: 'filter', chain: 'KUBE-SERVICES', target, comment: `${serviceKey(run, 's-local')} ${comment}` });
const LOCAL_DROP = servicesRule('DROP', 'has no local endpoints');
const NO_ENDPOINTS = servicesRule('REJECT', 'has no endpoints');
/** s-local's element in the verdict map kube-proxy keeps for Services without (local) endpoints: ClusterIP . tcp . port. */
const noEndpoint = (run: RunSnapshot) => ({ map: 'no-endpoint-services', protocol: 'tcp', port: String(service(run, 's-local').port), address: service(run, 's-local').clusterIP });
/** The mark worker's nat table sets on traffic to s-local's ClusterIP from outside the pod range, in Local's internal chain. */
const LOCAL_MASQ_MARK = (run: RunSnapshot) => ({ table: 'nat', target: 'KUBE-MARK-MASQ', comment: `${serviceKey(run, 's-local')} cluster IP` });

// Each step with the facts read from it and its measured line. Facts only one mode's run has: where each mode keeps
// s-local's drop on worker2, its reject once no endpoint is left, and worker's masquerade of its own requests to the
// ClusterIP (the mark, then MASQUERADE).
const runs = measured(
  // Cluster: answered from both workers, by the backend, which sees the client pod's own address.
  curlPart(fromPod('cluster-from-worker', 'worker', 's-cluster', "s-cluster's ClusterIP from the client pod on worker"), 'answered', {
    zh: 'worker 上的客户端 Pod（{pod.client-worker.ip}）→ s-cluster 的 ClusterIP {service.s-cluster.clusterIP}：{cluster-from-worker.server} 回答，看到 client={cluster-from-worker.client}；rc={cluster-from-worker.rc}，用时 {cluster-from-worker.seconds} 秒',
    en: 'The client pod on worker ({pod.client-worker.ip}) to s-cluster’s ClusterIP {service.s-cluster.clusterIP}: {cluster-from-worker.server} answered and saw client={cluster-from-worker.client}; curl exited {cluster-from-worker.rc} after {cluster-from-worker.seconds} s',
  }, server('cluster-from-worker')),
  curlPart(fromPod('cluster-from-worker2', 'worker2', 's-cluster', "s-cluster's ClusterIP from the client pod on worker2"), 'answered', {
    zh: 'worker2 上的客户端 Pod（{pod.client-worker2.ip}）→ s-cluster 的 ClusterIP：{cluster-from-worker2.server} 回答，看到 client={cluster-from-worker2.client}；rc={cluster-from-worker2.rc}，用时 {cluster-from-worker2.seconds} 秒',
    en: 'The client pod on worker2 ({pod.client-worker2.ip}) to s-cluster’s ClusterIP: {cluster-from-worker2.server} answered and saw client={cluster-from-worker2.client}; curl exited {cluster-from-worker2.rc} after {cluster-from-worker2.seconds} s',
  }, server('cluster-from-worker2')),
  // Local: answered on the node with the backend, dropped on the other; the same from each node's own namespace.
  curlPart(fromPod('local-from-worker', 'worker', 's-local', "s-local's ClusterIP from the client pod on worker"), 'answered', {
    zh: 'worker 上的客户端 Pod → s-local 的 ClusterIP {service.s-local.clusterIP}：{local-from-worker.server} 回答，看到 client={local-from-worker.client}；rc={local-from-worker.rc}，用时 {local-from-worker.seconds} 秒',
    en: 'The client pod on worker to s-local’s ClusterIP {service.s-local.clusterIP}: {local-from-worker.server} answered and saw client={local-from-worker.client}; curl exited {local-from-worker.rc} after {local-from-worker.seconds} s',
  }, server('local-from-worker')),
  curlPart(fromPod('local-from-worker2', 'worker2', 's-local', "s-local's ClusterIP from the client pod on worker2"), 'failed', {
    zh: 'worker2 上的客户端 Pod → s-local 的 ClusterIP：没有回应，curl 等满 {local-from-worker2.timeout} 秒后放弃，rc={local-from-worker2.rc}，用时 {local-from-worker2.seconds} 秒',
    en: 'The client pod on worker2 to s-local’s ClusterIP: no answer; curl waited out its {local-from-worker2.timeout} s and exited {local-from-worker2.rc} after {local-from-worker2.seconds} s',
  }),
  curlPart(fromNode('host-local-from-worker', 'worker', 's-local', "s-local's ClusterIP from worker's own network namespace"), 'answered', {
    zh: 'worker 自己 → s-local 的 ClusterIP：后端看到 client={host-local-from-worker.client}；rc={host-local-from-worker.rc}，用时 {host-local-from-worker.seconds} 秒',
    en: 'Worker itself to s-local’s ClusterIP: the backend saw client={host-local-from-worker.client}; curl exited {host-local-from-worker.rc} after {host-local-from-worker.seconds} s',
  }),
  // Worker's rules as its own request met them: the nat table's masquerade mark for traffic from outside the pod range.
  rulesPart('iptables-worker', 'worker', 'iptables', {
    zh: 'worker 的 nat 表中 s-local 的 Local 内部链给不来自 Pod 网段的包打伪装标记：{iptables-worker.masqueradeMark}；KUBE-POSTROUTING 对带标记的包做伪装：{iptables-worker.masquerade}',
    en: 'In worker’s nat table, s-local’s Local internal chain marks packets not from the pod range for masquerade: {iptables-worker.masqueradeMark}; KUBE-POSTROUTING masquerades what is marked: {iptables-worker.masquerade}',
  }, {
    'iptables-worker.masqueradeMark': iptables.rule('iptables-worker', LOCAL_MASQ_MARK),
    'iptables-worker.masquerade': iptables.rule('iptables-worker', () => ({ table: 'nat', chain: 'KUBE-POSTROUTING', target: 'MASQUERADE' })),
  }),
  rulesPart('nft-worker', 'worker', 'nftables', {
    zh: 'worker 上 kube-proxy 的 nftables 表：给不来自 Pod 网段的 ClusterIP 流量打伪装标记的规则（{nft-worker.masqueradeMark}），masquerading 链对带标记的包做伪装（{nft-worker.masquerade}）',
    en: 'kube-proxy’s nftables table on worker: the rule marking ClusterIP traffic not from the pod range ({nft-worker.masqueradeMark}), and the masquerading chain masquerading what is marked ({nft-worker.masquerade})',
  }, {
    // v1.36 on: one rule of the services chain for every ClusterIP; v1.35 and v1.34: one in each Service's chain.
    'nft-worker.masqueradeMark': nft.ruleWhere('nft-worker', "marking s-local's ClusterIP traffic from outside the pod range", (rule, _chain, run) =>
      rule.includes(' ip saddr != ') && (rule.includes('ip daddr @cluster-ips ') || rule.startsWith(`ip daddr ${service(run, 's-local').clusterIP} `)) && /mark/.test(rule)),
    'nft-worker.masquerade': nft.ruleWhere('nft-worker', 'masquerading what is marked', (rule, chain) =>
      chain === 'masquerading' && rule.includes('masquerade') && !rule.includes('@hairpin-connections')),
  }),
  // The address worker holds on its pods' veths: the source its own requests to a pod leave with.
  part(exec('addresses-worker', 'worker', "worker's IPv4 addresses", () => ['ip', '-j', '-4', 'address', 'show']), { 'node.worker.podGateway': podGateway('addresses-worker', 'worker') }, {
    zh: 'worker 在其 Pod 网段 {node.worker.podCIDR} 内持有的地址：{node.worker.podGateway}，在各 Pod 的 veth 的节点一端',
    en: 'The address worker holds inside its pod range {node.worker.podCIDR}: {node.worker.podGateway}, on the node’s end of its pods’ veths',
  }),
  curlPart(fromNode('host-local-from-worker2', 'worker2', 's-local', "s-local's ClusterIP from worker2's own network namespace"), 'failed', {
    zh: 'worker2 自己 → s-local 的 ClusterIP：没有回应，rc={host-local-from-worker2.rc}，用时 {host-local-from-worker2.seconds} 秒',
    en: 'Worker2 itself to s-local’s ClusterIP: no answer; curl exited {host-local-from-worker2.rc} after {host-local-from-worker2.seconds} s',
  }),
  rulesPart('iptables-worker2', 'worker2', 'iptables', {
    zh: 'worker2 的 filter 表中发往 s-local 的 ClusterIP 的规则：{iptables-worker2.dropRule}',
    en: 'The rule in worker2’s filter table for s-local’s ClusterIP: {iptables-worker2.dropRule}',
  }, { 'iptables-worker2.dropRule': iptables.rule('iptables-worker2', LOCAL_DROP) }),
  rulesPart('nft-worker2', 'worker2', 'nftables', {
    zh: 'worker2 上 kube-proxy 的 nftables 表：no-endpoint-services 把 s-local 判为 {nft-worker2.drop.verdict}（{nft-worker2.drop.element}）',
    en: 'kube-proxy’s nftables table on worker2: no-endpoint-services sends s-local to {nft-worker2.drop.verdict} ({nft-worker2.drop.element})',
  }, {
    ...nftVerdictFacts('nft-worker2.drop', 'nft-worker2', noEndpoint),
    'nft-worker2.checkRule': nft.rule('nft-worker2', 'service-endpoints-check', '@no-endpoint-services'),
  }),
  // Each policy on its own traffic: from outside through worker2's NodePort, from inside through the ClusterIP.
  curlPart(exec('local-via-worker2', 'control-plane', "s-local's NodePort on worker2, from the control-plane", toNodePort('worker2', 's-local')), 'answered', {
    zh: '控制面 → worker2 {node.worker2.ip}:{service.s-local.nodePort}（s-local 的 NodePort，外部策略 Cluster）：后端看到 client={local-via-worker2.client}；rc={local-via-worker2.rc}',
    en: 'Control-plane to worker2 at {node.worker2.ip}:{service.s-local.nodePort} (s-local’s NodePort, external policy Cluster): the backend saw client={local-via-worker2.client}; curl exited {local-via-worker2.rc}',
  }),
  curlPart(exec('ext-local-via-worker2', 'control-plane', "s-ext-local's NodePort on worker2, from the control-plane", toNodePort('worker2', 's-ext-local')), 'failed', {
    zh: '控制面 → worker2 {node.worker2.ip}:{service.s-ext-local.nodePort}（s-ext-local 的 NodePort，外部策略 Local）：没有回应，rc={ext-local-via-worker2.rc}，用时 {ext-local-via-worker2.seconds} 秒',
    en: 'Control-plane to worker2 at {node.worker2.ip}:{service.s-ext-local.nodePort} (s-ext-local’s NodePort, external policy Local): no answer; curl exited {ext-local-via-worker2.rc} after {ext-local-via-worker2.seconds} s',
  }),
  curlPart(fromPod('ext-local-from-worker2', 'worker2', 's-ext-local', "s-ext-local's ClusterIP from the client pod on worker2"), 'answered', {
    zh: 'worker2 上的客户端 Pod → s-ext-local 的 ClusterIP {service.s-ext-local.clusterIP}（内部策略 Cluster）：后端看到 client={ext-local-from-worker2.client}；rc={ext-local-from-worker2.rc}',
    en: 'The client pod on worker2 to s-ext-local’s ClusterIP {service.s-ext-local.clusterIP} (internal policy Cluster): the backend saw client={ext-local-from-worker2.client}; curl exited {ext-local-from-worker2.rc}',
  }),
  // The local backend deleted, then created again: how long until the client on its node sees each.
  part(
    { kind: 'delete-pod', id: 'delete-backend', title: 'delete the backend pod', pod: 'backend', namespace: 'default', settleClient: { step: 'local-from-worker', until: 'failed' } },
    clientSettleFacts('delete-backend'), {
    zh: '删除后端 Pod：worker 上的客户端 Pod 的回答在删除发出后 {delete-backend.settleAfterSeconds} 到 {delete-backend.settleSeconds} 秒之间变为失败（共询问 {delete-backend.settlePolls} 次）；删除命令用时 {delete-backend.seconds} 秒',
    en: 'Deleted the backend pod: the client pod on worker went from answered to failing between {delete-backend.settleAfterSeconds} and {delete-backend.settleSeconds} s after the delete was sent ({delete-backend.settlePolls} [probe|probes]); the delete command took {delete-backend.seconds} s',
  },
  ),
  curlPart(fromPod('local-from-worker-after-delete', 'worker', 's-local', "s-local's ClusterIP from the client pod on worker, the backend deleted"), 'failed', {
    zh: '删除之后，worker 上的客户端 Pod → s-local：{local-from-worker-after-delete.error}，rc={local-from-worker-after-delete.rc}，用时 {local-from-worker-after-delete.seconds} 秒',
    en: 'After the delete, the client pod on worker to s-local: {local-from-worker-after-delete.error}; curl exited {local-from-worker-after-delete.rc} after {local-from-worker-after-delete.seconds} s',
  }),
  rulesPart('iptables-worker-after-delete', 'worker', 'iptables', {
    zh: '删除之后 worker 的 filter 表中 s-local 的规则：{iptables-worker-after-delete.rejectRule}',
    en: 'The rule for s-local in worker’s filter table after the delete: {iptables-worker-after-delete.rejectRule}',
  }, {
    'iptables-worker-after-delete.rejectRule': iptables.rule('iptables-worker-after-delete', NO_ENDPOINTS),
  }, { what: ', the backend deleted' }),
  rulesPart('nft-worker-after-delete', 'worker', 'nftables', {
    zh: '删除之后 worker 上的 no-endpoint-services：{nft-worker-after-delete.reject.element}',
    en: 'Worker’s no-endpoint-services after the delete: {nft-worker-after-delete.reject.element}',
  }, {
    ...nftVerdictFacts('nft-worker-after-delete.reject', 'nft-worker-after-delete', noEndpoint),
  }, { what: ', the backend deleted' }),
  part(
    { kind: 'recreate-pod', id: 'recreate-backend', title: 'create the backend pod again', pod: 'backend', namespace: 'default', manifest: 'manifests/backend.yaml', settleClient: { step: 'local-from-worker', until: 'answered' } },
    clientSettleFacts('recreate-backend'), {
    zh: '重新创建后端 Pod：API 报告就绪后 {recreate-backend.settleAfterSeconds} 到 {recreate-backend.settleSeconds} 秒之间，客户端重新得到回答（共询问 {recreate-backend.settlePolls} 次）',
    en: 'Created the backend pod again: the client was answered again between {recreate-backend.settleAfterSeconds} and {recreate-backend.settleSeconds} s after the API reported it Ready ({recreate-backend.settlePolls} [probe|probes])',
  },
  ),
  curlPart(fromPod('local-from-worker-after-recreate', 'worker', 's-local', "s-local's ClusterIP from the client pod on worker, the backend created again"), 'answered', {
    zh: '重新创建之后，worker 上的客户端 Pod → s-local：{local-from-worker-after-recreate.server} 回答，rc={local-from-worker-after-recreate.rc}',
    en: 'After the recreate, the client pod on worker to s-local: {local-from-worker-after-recreate.server} answered; curl exited {local-from-worker-after-recreate.rc}',
  }, server('local-from-worker-after-recreate')),
);

const experiment = kubernetesSeries({
  slug: '076-internal-traffic-policy',
  manifests: ['manifests/backend.yaml', 'manifests/clients.yaml', 'manifests/services.yaml'],
  steps: runs.steps,
  // The same experiment under each of kube-proxy's modes; iptables (the first) is the default run.
  variants: { axis: 'kubeProxyMode', values: ['iptables', 'nftables'] },
});

const facts = {
  'declared.s-local.internalTrafficPolicy': declared('manifests/services.yaml', 'Service/s-local', 'spec.internalTrafficPolicy'),
  'declared.s-ext-local.externalTrafficPolicy': declared('manifests/services.yaml', 'Service/s-ext-local', 'spec.externalTrafficPolicy'),
  ...runs.facts,
};
const variantFacts = runs.variantFacts;

type Id = FactIdOf<typeof facts, typeof variantFacts>;

// The packets' paths: a client pod (or a node itself) sends to the ClusterIP; its own node rewrites or drops it.
const podStation = (node: 'worker' | 'worker2'): PathStation<Id> => ({
  id: `client-${node}`,
  kind: 'client',
  label: { zh: `客户端 Pod（在 ${node} 上）`, en: `Client pod (on ${node})` },
  name: `pod.client-${node}.node`,
  address: `pod.client-${node}.ip`,
});
const nodeStation = (node: 'worker' | 'worker2', label: PathStation['label']): PathStation<Id> => ({ id: node, kind: 'node', label, name: `node.${node}.name`, address: `node.${node}.ip` });
const STATIONS: PathStation<Id>[] = [
  podStation('worker'),
  podStation('worker2'),
  nodeStation('worker', { zh: 'worker（有后端）', en: 'worker (has the backend)' }),
  nodeStation('worker2', { zh: 'worker2（没有后端）', en: 'worker2 (no backend)' }),
  { id: 'backend', kind: 'pod', label: { zh: '后端 Pod（在 worker 上）', en: 'Backend pod (on worker)' }, address: 'pod.backend.ip' },
];
const dnat = (at: string) => event(at, 'rewrite', 'DNAT：dst 由 ClusterIP 改为后端 {pod.backend.ip}', 'DNAT: dst, the ClusterIP → the backend, {pod.backend.ip}');
const keep = (at: string) => event(at, 'keep', '不做 SNAT：src 仍是客户端 Pod 的地址', 'No SNAT: src stays the client pod’s');

export default defineArticle({
  experiment,
  facts,
  variantFacts,
  claims: [
    { id: 'pods-keep-their-address',
      zh: '从 Pod 发起的请求，无论策略、无论是否跨节点，后端看到的都是客户端 Pod 自己的地址',
      en: 'A request from a pod reaches the backend with the pod’s own address, under either policy and across nodes',
      holds: (v) =>
        v('cluster-from-worker.client') === v('pod.client-worker.ip') && v('cluster-from-worker2.client') === v('pod.client-worker2.ip')
        && v('local-from-worker.client') === v('pod.client-worker.ip') && v('ext-local-from-worker2.client') === v('pod.client-worker2.ip'),
    },
    { id: 'cluster-answers-from-every-node',
      zh: 'Cluster 策略下，两个节点上的客户端 Pod 都由后端回答',
      en: 'Under Cluster the client pods on both nodes are answered by the backend',
      holds: (v) => v('cluster-from-worker.server') === 'backend' && v('cluster-from-worker2.server') === 'backend',
    },
    { id: 'local-answers-on-the-backend-node',
      zh: 'Local 策略下，和后端同在 worker 上的客户端 Pod 照常得到回答',
      en: 'Under Local the client pod on worker, beside the backend, is answered as before',
      holds: (v) => v('local-from-worker.rc') === '0' && v('local-from-worker.server') === 'backend',
    },
    { id: 'local-drops-elsewhere',
      zh: 'Local 策略下，worker2 上的客户端 Pod 和 worker2 自己都得不到回应：包被丢弃，curl 等满超时、以退出码 28 放弃',
      en: 'Under Local, the client pod on worker2 and worker2 itself get no answer: the packets are dropped, and curl waits out its limit and exits with 28',
      holds: (v) => v('local-from-worker2.rc') === '28' && v('host-local-from-worker2.rc') === '28',
    },
    { id: 'iptables-drop-rule',
      zh: 'iptables 模式下，worker2 的 filter 表里有一条丢弃发往 s-local ClusterIP 的包的规则，注释是“has no local endpoints”',
      en: 'In iptables mode, worker2’s filter table holds a rule that drops packets to s-local’s ClusterIP, commented "has no local endpoints"',
      holds: (v) => v('iptables-worker2.dropRule').includes(`-d ${v('service.s-local.clusterIP')}/32`),
      variants: ['iptables'],
    },
    { id: 'nft-drop-element',
      zh: 'nftables 模式下，worker2 上 kube-proxy 的 no-endpoint-services 映射把 s-local 的 ClusterIP 判为 drop，由 service-endpoints-check 链查这张映射',
      en: 'In nftables mode, the no-endpoint-services map of kube-proxy’s table on worker2 sends s-local’s ClusterIP to drop, looked up by the service-endpoints-check chain',
      holds: (v) => v('nft-worker2.drop.verdict') === 'drop' && v('nft-worker2.checkRule').includes('vmap @no-endpoint-services'),
      variants: ['nftables'],
    },
    { id: 'iptables-host-masquerade',
      zh: 'iptables 模式下，worker 的 nat 表在 s-local 的 Local 内部链里给不来自 Pod 网段、发往其 ClusterIP 的包打伪装标记，KUBE-POSTROUTING 对带标记的包做 MASQUERADE',
      en: 'In iptables mode, worker’s nat table marks packets to s-local’s ClusterIP that do not come from the pod range for masquerade, in s-local’s Local internal chain, and KUBE-POSTROUTING masquerades what is marked',
      holds: (v) =>
        v('iptables-worker.masqueradeMark').startsWith('-A KUBE-SVL-') && v('iptables-worker.masqueradeMark').includes(' ! -s ')
        && v('iptables-worker.masqueradeMark').includes(`-d ${v('service.s-local.clusterIP')}/32`) && v('iptables-worker.masquerade').includes('-j MASQUERADE'),
      variants: ['iptables'],
    },
    { id: 'nft-host-masquerade',
      zh: 'nftables 模式下，worker 上 kube-proxy 的表给不来自 Pod 网段、发往 s-local 的 ClusterIP 的包打伪装标记，masquerading 链对带标记的包做 masquerade',
      en: 'In nftables mode, kube-proxy’s table on worker marks packets to s-local’s ClusterIP that do not come from the pod range for masquerade, and the masquerading chain masquerades what is marked',
      holds: (v) => v('nft-worker.masqueradeMark').includes(' ip saddr != ') && v('nft-worker.masquerade').includes('masquerade'),
      variants: ['nftables'],
    },
    { id: 'host-network-alike',
      zh: '节点自己（主机网络）发出的请求同样受 Local 约束：worker 上得到回答，后端看到的来源是 worker 的 Pod 网关；worker2 上被丢弃',
      en: 'Requests from a node’s own network namespace are bound by Local too: answered on worker, where the backend sees worker’s pod gateway, and dropped on worker2',
      holds: (v) => v('host-local-from-worker.client') === v('node.worker.podGateway') && v('host-local-from-worker2.rc') === '28',
    },
    { id: 'policies-independent',
      zh: '两个策略各管各的流量：s-local（外部 Cluster、内部 Local）经 worker2 的 NodePort 从外部访问得到回答，后端看到的是转发节点 worker2 的地址，从 worker2 上的 Pod 访问 ClusterIP 则被丢弃；s-ext-local（外部 Local、内部 Cluster）正好相反',
      en: 'Each policy governs its own traffic: s-local (external Cluster, internal Local) answers from outside through worker2’s NodePort, the backend seeing the forwarding node worker2, and drops the pod on worker2 at its ClusterIP; s-ext-local (external Local, internal Cluster) does the opposite',
      holds: (v) =>
        v('local-via-worker2.rc') === '0' && v('local-via-worker2.client') === v('node.worker2.ip') && v('local-from-worker2.rc') === '28'
        && v('ext-local-via-worker2.rc') === '28' && v('ext-local-from-worker2.rc') === '0',
    },
    { id: 'no-endpoints-rejects',
      zh: '后端删掉、一个端点都不剩时，先前得到回答的同一个客户端立即被拒绝（退出码 7）',
      en: 'With the backend deleted and no endpoint left anywhere, the same client, answered before, is refused at once (exit code 7)',
      holds: (v) => v('local-from-worker.rc') === '0' && v('local-from-worker-after-delete.rc') === '7',
    },
    { id: 'iptables-reject-rule',
      zh: 'iptables 模式下，此时 worker 的 filter 表里有一条 s-local 的 REJECT 规则，注释是“has no endpoints”',
      en: 'In iptables mode, worker’s filter table then holds a REJECT for s-local, commented "has no endpoints"',
      holds: (v) => v('iptables-worker-after-delete.rejectRule').includes(`-d ${v('service.s-local.clusterIP')}/32`),
      variants: ['iptables'],
    },
    { id: 'nft-reject-element',
      zh: 'nftables 模式下，此时 worker 上 s-local 在 no-endpoint-services 里的判决转到 reject-chain',
      en: 'In nftables mode, s-local’s verdict in worker’s no-endpoint-services map then goes to reject-chain',
      holds: (v) => v('nft-worker-after-delete.reject.verdict') === 'goto reject-chain',
      variants: ['nftables'],
    },
    { id: 'answered-again',
      zh: '后端重新创建并就绪后，worker 上的客户端 Pod 又由它回答',
      en: 'Once the backend is created again and Ready, the client pod on worker is answered by it again',
      holds: (v) => v('local-from-worker-after-recreate.rc') === '0' && v('local-from-worker-after-recreate.server') === 'backend',
    },
  ],
  comparisons: [
    { id: 'modes-alike',
      zh: '两种模式下结果相同：Local 在没有本地后端的节点丢弃（退出码 28），一个端点都不剩时拒绝（退出码 7），两个策略各管各的流量',
      en: 'Both modes behave alike: Local drops on a node without a local backend (exit 28), refuses once no endpoint is left (exit 7), and each policy governs its own traffic',
      holds: inEveryVariant<Id>(MODES, (v) =>
        v('local-from-worker2.rc') === '28' && v('local-from-worker-after-delete.rc') === '7'
        && v('local-via-worker2.rc') === '0' && v('ext-local-via-worker2.rc') === '28'),
    },
  ],
  comparisonRows: [
    { fact: 'local-from-worker.client', label: { zh: 'Local，worker 上的 Pod：后端看到的来源地址', en: 'Local, the pod on worker: source address the backend saw' } },
    { fact: 'local-from-worker2.rc', label: { zh: 'Local，worker2 上的 Pod：curl 的退出码', en: 'Local, the pod on worker2: curl’s exit code' } },
    { fact: 'host-local-from-worker.client', label: { zh: 'Local，worker 自己：后端看到的来源地址', en: 'Local, worker itself: source address the backend saw' } },
    { fact: 'local-via-worker2.rc', label: { zh: 's-local 经 worker2 的 NodePort：curl 的退出码', en: 's-local through worker2’s NodePort: curl’s exit code' } },
    { fact: 'ext-local-from-worker2.rc', label: { zh: 's-ext-local，worker2 上的 Pod：curl 的退出码', en: 's-ext-local, the pod on worker2: curl’s exit code' } },
    { fact: 'delete-backend.settleSeconds', label: { zh: '删除后端后，客户端的回答改变前的时间（秒）', en: 'After the delete, time until the client’s answer changed (s)' } },
    { fact: 'local-from-worker-after-delete.rc', label: { zh: '没有端点时：curl 的退出码', en: 'No endpoint left: curl’s exit code' } },
    { fact: 'recreate-backend.settleSeconds', label: { zh: '后端就绪后，客户端又得到回答前的时间（秒）', en: 'After Ready, time until the client was answered again (s)' } },
    { fact: 'run.kubeProxyMode', label: { zh: 'kube-proxy 自报的模式', en: 'The mode kube-proxy reports' } },
  ],
  lines: runs.lines,
  paths: [
    path({
      id: 'local-from-worker',
      title: { zh: 'Local，从和后端同节点的 Pod 发出', en: 'Local, from the pod beside the backend' },
      stations: STATIONS,
      route: ['client-worker', 'worker', 'backend'],
      hops: [hop<Id>('client-worker', 'worker', 'pod.client-worker.ip', 'service.s-local.clusterIP'), hop<Id>('worker', 'backend', 'local-from-worker.client', 'pod.backend.ip')],
      events: [dnat('worker'), keep('worker')],
      outcome: {
        zh: '后端看到的来源 {local-from-worker.client} 就是客户端 Pod；curl 的退出码 {local-from-worker.rc}。',
        en: 'The backend saw the source {local-from-worker.client}, the client pod itself; curl exited with {local-from-worker.rc}.',
      },
    }),
    path({
      id: 'local-from-worker2',
      title: { zh: 'Local，从没有本地后端的 worker2 上的 Pod 发出：包被丢弃', en: 'Local, from the pod on worker2, which has no local backend: dropped' },
      stations: STATIONS,
      route: ['client-worker2', 'worker2'],
      hops: [hop<Id>('client-worker2', 'worker2', 'pod.client-worker2.ip', 'service.s-local.clusterIP')],
      events: [event('worker2', 'drop', 'DROP：s-local 在本节点没有端点，不转发', 'DROP: s-local has no endpoint on this node; not forwarded')],
      outcome: {
        zh: '没有任何回应：curl 等满 {local-from-worker2.timeout} 秒，报出“{local-from-worker2.error}”，退出码 {local-from-worker2.rc}。',
        en: 'No answer at all: curl waited out its {local-from-worker2.timeout} s, reported "{local-from-worker2.error}" and exited with {local-from-worker2.rc}.',
      },
    }),
    path({
      id: 'cluster-from-worker2',
      title: { zh: 'Cluster，从 worker2 上的 Pod 发出：跨节点送到后端', en: 'Cluster, from the pod on worker2: across to the backend' },
      stations: STATIONS,
      route: ['client-worker2', 'worker2', 'worker', 'backend'],
      hops: [
        hop<Id>('client-worker2', 'worker2', 'pod.client-worker2.ip', 'service.s-cluster.clusterIP'),
        hop<Id>('worker2', 'worker', 'pod.client-worker2.ip', 'pod.backend.ip', { zh: '经节点网络转发', en: 'Forwarded over the node network' }),
        hop<Id>('worker', 'backend', 'cluster-from-worker2.client', 'pod.backend.ip'),
      ],
      events: [dnat('worker2'), keep('worker2')],
      outcome: {
        zh: '后端看到的来源 {cluster-from-worker2.client} 仍是客户端 Pod；curl 的退出码 {cluster-from-worker2.rc}。',
        en: 'The backend saw the source {cluster-from-worker2.client}, still the client pod; curl exited with {cluster-from-worker2.rc}.',
      },
    }),
  ],
  // The upstream code each mechanism sentence rests on (<Cite id>), as kubernetes/kubernetes has it at every
  // release the runs used: npm run cite keeps the lines in upstream.yaml, the build checks them.
  citations: {
    'internal-policy-chain': {
      file: IPTABLES_PROXIER,
      lines: ['// internalPolicyChain is the chain containing the endpoints for', '…', 'hasInternalEndpoints = false'],
      about: {
        zh: '发往 ClusterIP 的流量走内部策略的链：Local 下只含本节点的端点，本节点一个都没有时就无处可去',
        en: 'Traffic to the ClusterIP takes the internal policy’s chain: under Local it holds only this node’s endpoints, and with none here it leads nowhere',
      },
    },
    'masquerade-off-cluster': {
      file: IPTABLES_PROXIER,
      lines: ['// This masquerades off-cluster traffic to a service VIP. The', '…', '"-j", string(kubeMarkMasqChain))'],
      about: {
        zh: '内部流量的链只给来源不在集群 Pod 网段里的连接打伪装标记',
        en: 'The internal chain marks a connection for masquerade only when its source is outside the cluster’s pod range',
      },
    },
    'masquerade-marked': {
      file: IPTABLES_PROXIER,
      lines: [
        '"-A", string(kubePostroutingChain),',
        '"-m", "comment", "--comment", `"kubernetes service traffic requiring SNAT"`,',
        '"-j", "MASQUERADE",',
      ],
      about: {
        zh: 'KUBE-POSTROUTING：带伪装标记的 Service 流量在出节点前被 MASQUERADE',
        en: 'KUBE-POSTROUTING: Service traffic that carries the mark is masqueraded on its way out',
      },
    },
    'no-local-endpoints-drop': {
      file: IPTABLES_PROXIER,
      lines: ['// The internalTrafficPolicy is "Local" but there are no local', '…', 'internalTrafficFilterComment = fmt.Sprintf(`"%s has no local endpoints"`, svcPortNameString)'],
      about: {
        zh: '内部策略为 Local、本节点没有端点：发往 ClusterIP 的流量被 DROP，规则的注释写明本节点没有端点',
        en: 'Internal policy Local and no endpoint on this node: traffic to the ClusterIP is dropped, commented "has no local endpoints"',
      },
    },
    'no-endpoints-reject': {
      file: IPTABLES_PROXIER,
      lines: ['// The service has no endpoints at all; hasInternalEndpoints and', '…', 'internalTrafficFilterComment = fmt.Sprintf(`"%s has no endpoints"`, svcPortNameString)'],
      about: {
        zh: '整个集群都没有端点：filter 表里的规则把发往 Service 的包 REJECT，规则的注释写明没有端点',
        en: 'No endpoint anywhere in the cluster: a rule in the filter table rejects packets to the Service, commented "has no endpoints"',
      },
    },
    'external-destinations': {
      file: IPTABLES_PROXIER,
      lines: [
        '// Similarly, externalPolicyChain is the chain containing the endpoints',
        '// for "external" (NodePort, LoadBalancer, and ExternalIP) traffic.',
      ],
      about: {
        zh: '外部流量指发往 NodePort、负载均衡器地址和外部 IP 的流量',
        en: 'External traffic is traffic to a NodePort, a load balancer’s address or an external IP',
      },
    },
    'external-pod-traffic': {
      file: IPTABLES_PROXIER,
      lines: ['// Treat all locally-originated pod -> external destination', '…', '// to an external load-balancer and coming back in.'],
      about: {
        zh: '外部策略为 Local 时，来自 Pod 网段、发往外部目的地址的流量不受流量策略约束',
        en: 'Under external policy Local, traffic from the pod range to an external destination is subject to no traffic policy',
      },
    },
    'external-node-traffic': {
      file: IPTABLES_PROXIER,
      lines: [
        '// Redirect all src-type=LOCAL -> external destination to the',
        '// policy=cluster chain. This allows traffic originating',
        '// from the host to be redirected to the service correctly.',
      ],
      about: {
        zh: '外部策略为 Local 时，节点自己发往外部目的地址的流量转到 Cluster 策略的链',
        en: 'Under external policy Local, the node’s own traffic to an external destination goes to the Cluster policy’s chain',
      },
    },
    'terminating-fallback': {
      file: 'pkg/proxy/topology.go',
      lines: ['// If we didn\'t get any endpoints, try again using terminating endpoints.', '…', '// point must be that there are no ready endpoints anywhere.)'],
      about: {
        zh: '没有就绪端点时，kube-proxy 再从正在终止、仍在服务的端点里挑',
        en: 'With no ready endpoint, kube-proxy tries again with endpoints that are terminating but still serving',
      },
    },
    'nft-no-local-endpoints-drop': {
      file: NFTABLES_PROXIER,
      lines: ['// The internalTrafficPolicy is "Local" but there are no local', '…', 'internalTrafficFilterVerdict = "drop"'],
      about: {
        zh: 'nftables 模式：内部策略为 Local、本节点没有端点时，ClusterIP 的判决是 drop',
        en: 'nftables mode: with internal policy Local and no endpoint on this node, the ClusterIP’s verdict is drop',
      },
    },
    'nft-no-endpoints-reject': {
      file: NFTABLES_PROXIER,
      lines: ['// The service has no endpoints at all; hasInternalEndpoints and', '…', 'internalTrafficFilterVerdict = fmt.Sprintf("goto %s", rejectChain)'],
      about: {
        zh: 'nftables 模式：整个集群都没有端点时，ClusterIP 的判决是转到 reject-chain',
        en: 'nftables mode: with no endpoint anywhere in the cluster, the ClusterIP’s verdict goes to reject-chain',
      },
    },
    'pod-ranges-in-order': {
      file: 'pkg/controller/nodeipam/ipam/cidrset/cidr_set.go',
      lines: [
        '// AllocateNext allocates the next free CIDR range. This will set the range',
        '// as occupied and return the allocated range.',
        'func (s *CidrSet) AllocateNext() (*net.IPNet, error) {',
      ],
      about: {
        zh: '节点 IPAM 控制器给每个新节点分配下一个空闲的 Pod 网段',
        en: 'The node IPAM controller gives each new node the next free pod range',
      },
    },
  },
});
