// Every value article 074 binds, derived from its snapshots (step ids: experiment.ts).
// Ids read as "<where>.<what>": a step id, or node./pod./service./cluster./run./version.
import type { FactDef } from '../../../src/evidence/facts.ts';
import {
  conntrackFacts, curlFacts, healthCheckFacts, iptablesChainRuleFact, iptablesRuleFacts, iptablesRuleLineFact, nftHookFact, nftRuleFact, nftSetFact, nftVerdictFacts,
  declaredFact, optional, outcomeFacts, podGatewayFact, runFact, settleFacts,
} from '../../../src/evidence/fact-kit.ts';
import {
  healthCheckNodePort, node, nodeIP, nodePort, pod, service, version,
} from '../../../src/evidence/extract/run.ts';
import { durationSeconds } from '../../../src/evidence/extract/duration.ts';
import type { ComparisonRow } from '../../../src/evidence/article/variants.ts';

const NODES = ['control-plane', 'worker', 'worker2'];
const SERVICES = ['s-cluster', 's-local', 's-lb'];

/** Versions only one driver records: kind's tools for `kind`, the host's tools and the components' own answers for `lab`. */
const DRIVER_VERSIONS: Array<[tool: string, recordedBy: string]> = [
  ['kind', 'kind'], ['docker', 'kind'], ['nodeImage', 'kind'],
  ['iptables', 'lab'], ['conntrack', 'lab'], ['nginx', 'lab'], ['curl', 'lab'],
];

export const facts: FactDef[] = [
  // The image the manifest names (what a registry would have served): declared, not measured.
  declaredFact('declared.backend.image', '074-external-traffic-policy', 'manifests/backend.yaml', 'Pod/backend', 'spec.containers.0.image'),
  // Cluster policy: the source address the backend saw, via the node with and without it.
  ...curlFacts('cluster-via-worker', 'answered'),
  ...curlFacts('cluster-via-worker2', 'answered'),
  // The address worker holds on its pod's veth: what the backend saw through worker, if it was masqueraded there.
  podGatewayFact('node.worker.podGateway', 'addresses-worker', 'worker'),
  // Local policy: the client's address survives; the node without a backend drops the packet.
  ...curlFacts('local-via-worker', 'answered'),
  ...curlFacts('local-via-worker2', 'failed'),
  // The extra hop under Cluster: DNAT to the pod, SNAT to worker2's address.
  ...conntrackFacts('conntrack-worker2'),
  // s-lb's health check on each node, and on worker once the backend is gone.
  ...healthCheckFacts('health-worker'),
  ...healthCheckFacts('health-worker2'),
  ...healthCheckFacts('health-control-plane'),
  ...outcomeFacts('delete-backend'),
  // How long kube-proxy took to see the backend gone, as its own health check told it.
  ...settleFacts('delete-backend'),
  ...healthCheckFacts('health-worker-after-delete'),

  ...NODES.flatMap((n) => [
    runFact(`node.${n}.ip`, (run) => nodeIP(run, n)),
    runFact(`node.${n}.name`, (run) => node(run, n).k8sName),
    runFact(`node.${n}.podCIDR`, (run) => node(run, n).podCIDR),
  ]),
  runFact('pod.backend.ip', (run) => pod(run, 'backend').ip),
  runFact('pod.backend.node', (run) => pod(run, 'backend').node),
  runFact('pod.backend.image', (run) => pod(run, 'backend').image),
  ...SERVICES.flatMap((s) => [
    runFact(`service.${s}.nodePort`, (run) => nodePort(run, s)),
    runFact(`service.${s}.type`, (run) => service(run, s).type),
    runFact(`service.${s}.externalTrafficPolicy`, (run) => service(run, s).externalTrafficPolicy),
    runFact(`service.${s}.clusterIP`, (run) => service(run, s).clusterIP),
  ]),
  runFact('service.s-lb.healthCheckNodePort', (run) => healthCheckNodePort(run, 's-lb')),
  // The article shows that a NodePort Service with Local gets none: "none" is the measured value.
  runFact('service.s-local.healthCheckNodePort', (run) => String(service(run, 's-local').healthCheckNodePort ?? 'none')),

  runFact('cluster.name', (run) => run.cluster.name),
  runFact('cluster.nodeCount', (run) => String(run.nodes.length)),
  runFact('cluster.podSubnet', (run) => run.cluster.podSubnet),
  runFact('cluster.serviceSubnet', (run) => run.cluster.serviceSubnet),
  runFact('cluster.kubeProxyMode', (run) => run.cluster.kubeProxyMode),
  // kube-proxy's own answer on /proxyMode, as the lab records it (kind records the ConfigMap's).
  runFact('run.kubeProxyMode', (run) => version(run, 'kube-proxy-mode')),
  runFact('run.seconds', (run) => durationSeconds(run.durationMs)),
  runFact('version.os', (run) => `${run.host.os} ${run.host.arch}`),
  // Both drivers ask the API server and kubectl themselves (`kubectl version`).
  runFact('version.kubectl', (run) => version(run, 'kubectl')),
  ...DRIVER_VERSIONS.map(([tool, recordedBy]) =>
    optional(runFact(`version.${tool}`, (run) => version(run, tool)), `only the ${recordedBy} driver records versions.${tool}`)),
];

/** Facts only one variant's run has: where each mode keeps the drop for s-local's NodePort on worker2. */
export const variantFacts: Record<string, FactDef[]> = {
  iptables: [
    // The DROP rule kube-proxy wrote into worker2's filter table.
    ...iptablesRuleFacts('filter-worker2.drop', 'filter-worker2', (run) => ({
      table: 'filter', chain: 'KUBE-EXTERNAL-SERVICES', target: 'DROP', dport: nodePort(run, 's-local'),
    })),
    // worker's nat table: s-cluster's external chain marks every connection for masquerade; s-local's
    // marks only the node's own and sends the rest to the node's own endpoints (KUBE-SVL-…);
    // KUBE-POSTROUTING masquerades what is marked.
    iptablesRuleLineFact('nat-worker.clusterMark', 'nat-worker', {
      table: 'nat', target: 'KUBE-MARK-MASQ', comment: 'masquerade traffic for default/s-cluster external destinations',
    }),
    iptablesRuleLineFact('nat-worker.localMark', 'nat-worker', {
      table: 'nat', target: 'KUBE-MARK-MASQ', comment: 'masquerade LOCAL traffic for default/s-local external destinations',
    }),
    iptablesChainRuleFact('nat-worker.localRoute', 'nat-worker', {
      table: 'nat', target: 'KUBE-MARK-MASQ', comment: 'masquerade LOCAL traffic for default/s-local external destinations',
    }, 'KUBE-SVL-'),
    iptablesRuleLineFact('nat-worker.masquerade', 'nat-worker', { table: 'nat', chain: 'KUBE-POSTROUTING', target: 'MASQUERADE' }),
  ],
  nftables: [
    // The verdict map element kube-proxy wrote into its own table, and the path a new connection takes to it.
    ...nftVerdictFacts('nft-worker2.drop', 'nft-worker2', (run) => ({ map: 'no-endpoint-nodeports', protocol: 'tcp', port: nodePort(run, 's-local') })),
    ...nftVerdictFacts('nft-worker2.lbDrop', 'nft-worker2', (run) => ({ map: 'no-endpoint-nodeports', protocol: 'tcp', port: nodePort(run, 's-lb') })),
    nftRuleFact('nft-worker2.checkRule', 'nft-worker2', 'nodeport-endpoints-check', '@no-endpoint-nodeports'),
    nftHookFact('nft-worker2.inputHook', 'nft-worker2', 'filter-input'),
    nftRuleFact('nft-worker2.inputJump', 'nft-worker2', 'filter-input', 'jump nodeport-endpoints-check'),
    nftSetFact('nft-worker2.nodePortIPs', 'nft-worker2', 'nodeport-ips'),
  ],
};

/** The rows of <VariantComparison />: the key observations, each read in every measured mode's run. */
export const comparisonRows: ComparisonRow[] = [
  { fact: 'cluster-via-worker.client', label: { zh: 'Cluster，经有后端的 worker：后端看到的来源地址', en: 'Cluster via worker (has the backend): source address the backend saw' } },
  { fact: 'cluster-via-worker2.client', label: { zh: 'Cluster，经没有后端的 worker2：后端看到的来源地址', en: 'Cluster via worker2 (no backend): source address the backend saw' } },
  { fact: 'local-via-worker.client', label: { zh: 'Local，经有后端的 worker：后端看到的来源地址', en: 'Local via worker (has the backend): source address the backend saw' } },
  { fact: 'local-via-worker2.rc', label: { zh: 'Local，经没有后端的 worker2：curl 的退出码', en: 'Local via worker2 (no backend): curl’s exit code' } },
  { fact: 'local-via-worker2.seconds', label: { zh: 'Local，经没有后端的 worker2：curl 用时（秒）', en: 'Local via worker2 (no backend): curl’s time (s)' } },
  { fact: 'health-worker.status', label: { zh: '健康检查，worker（有后端）', en: 'Health check on worker (has the backend)' } },
  { fact: 'health-worker2.status', label: { zh: '健康检查，worker2（没有后端）', en: 'Health check on worker2 (no backend)' } },
  { fact: 'health-worker-after-delete.status', label: { zh: '健康检查，删掉后端之后的 worker', en: 'Health check on worker after the delete' } },
  { fact: 'run.kubeProxyMode', label: { zh: 'kube-proxy 自报的模式', en: 'The mode kube-proxy reports' } },
];
