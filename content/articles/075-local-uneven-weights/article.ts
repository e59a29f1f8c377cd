// Article 075, Local's uneven weights: three pods of one Deployment, two on one
// worker and one on the other (the scheduler's choice under the manifest's
// constraints), and the same number of requests sent to each worker's NodePort,
// once per traffic policy. The pods are named by the API and placed by the
// scheduler, so facts name them by role, read from run.yaml: "lone" is the pod
// alone on its node, "shared-1" and "shared-2" the two that share the other
// node (by name). Node and Service facts, versions and each step's rc and
// seconds come from every run (src/evidence/run-facts.ts).
import {
  defineArticle, kubernetesSeries, healthCheckLine, answerFacts, choiceBars, withinBounds, choiceFacts, declared, factsFrom, fromDefinition, fromRun, healthCheckFacts,
  curlArgv, exec, iptables, placement, type Answer, type Experiment, type RunSnapshot, type TopologyView,
} from '../../../src/authoring/article.ts';

const IPTABLES_PROXIER = 'pkg/proxy/iptables/proxier.go';
const TOPOLOGY = 'pkg/proxy/topology.go';
const CORE_TYPES = 'pkg/apis/core/types.go';

/** How many requests each worker receives per policy, as an external load balancer with equal weights would send them. */
export const REQUESTS_PER_NODE = 300;
/** How many standard deviations a count may stray from its expectation before a claim breaks. */
const SIGMAS = 4;
export const ROLES = ['lone', 'shared-1', 'shared-2'] as const;
export const POLICIES = ['cluster', 'local'] as const;
const WORKERS = ['worker', 'worker2'] as const;
type Role = (typeof ROLES)[number];
type Policy = (typeof POLICIES)[number];

/**
 * One curl, many requests: the URL glob sends REQUESTS_PER_NODE to worker, then as many
 * to worker2. `Connection: close` makes each a new connection, for which kube-proxy's rules (iptables
 * mode in every run) pick a backend on their own; every answer prints "<the pod's name> <HTTP status> <the node address it entered by>".
 */
const spread = (service: string) => (t: TopologyView) =>
  curlArgv(`http://{${t.ip('worker')},${t.ip('worker2')}}:${t.nodePort(service)}/?request=[1-${REQUESTS_PER_NODE}]`, {
    maxTime: '2', header: 'Connection: close', writeOut: ' %{http_code} %{remote_ip}\\n',
  });
const healthCheck = (node: string) => (t: TopologyView) => curlArgv(`http://${t.ip(node)}:${t.healthCheckNodePort('s-local')}/`, { maxTime: '2', include: true });
const fromClient = (id: string, title: string, command: (t: TopologyView) => string[]) => exec(id, 'control-plane', title, command);

const experiment: Experiment = kubernetesSeries({
  slug: '075-local-uneven-weights',
  manifests: ['manifests/web.yaml', 'manifests/services.yaml'],
  steps: [
    fromClient('health-worker', "s-local's health check on worker", healthCheck('worker')),
    fromClient('health-worker2', "s-local's health check on worker2", healthCheck('worker2')),
    // Each worker's rules, every table at one moment: the chains that pick a backend for each new connection.
    exec('iptables-worker', 'worker', "worker's iptables rules, every table", () => ['iptables-save']),
    exec('iptables-worker2', 'worker2', "worker2's iptables rules, every table", () => ['iptables-save']),
    fromClient('spread-cluster', 's-cluster: the same number of requests to each worker', spread('s-cluster')),
    fromClient('spread-local', 's-local: the same number of requests to each worker', spread('s-local')),
  ],
});

/** The Deployment's pods by role, as the API placed them: one node must hold exactly one, another exactly two. */
export function podsByRole(run: RunSnapshot): Record<Role, RunSnapshot['pods'][number]> {
  const [[lone], [first, second]] = placement(run, 'web-', [1, 2]);
  return { lone: lone!, 'shared-1': first!, 'shared-2': second! };
}

/**
 * The model the article states: under Cluster every pod has the same chance at every request; under Local a
 * request entering a node goes to one of that node's pods, each with the same chance.
 */
const model = (p: Policy) => (answers: Answer[], run: RunSnapshot, role: Role) => {
  if (p === 'cluster') return { trials: answers.length, probability: 1 / ROLES.length };
  const pods = podsByRole(run);
  const home = pods[role].node;
  const entered = answers.filter((a) => a.via !== '' && run.nodes.find((n) => n.internalIP === a.via)?.name === home).length;
  return { trials: entered, probability: 1 / ROLES.filter((r) => pods[r].node === home).length };
};
const spreadFacts = <P extends Policy>(p: P) => ({
  ...answerFacts(`spread-${p}`, WORKERS),
  ...choiceFacts(`spread-${p}`, ROLES, { who: (run, role) => podsByRole(run)[role].name, model: model(p), sigmas: SIGMAS }),
});

const facts = {
  // What the manifests declare: bound as declared values, not measurements.
  'declared.web.replicas': declared('manifests/web.yaml', 'Deployment/web', 'spec.replicas'),
  'declared.web.maxSkew': declared('manifests/web.yaml', 'Deployment/web', 'spec.template.spec.topologySpreadConstraints.0.maxSkew'),
  'declared.web.containerPort': declared('manifests/web.yaml', 'Deployment/web', 'spec.template.spec.containers.0.ports.0.containerPort'),
  ...healthCheckFacts('health-worker'),
  ...healthCheckFacts('health-worker2'),
  // How each worker's nat table picks: s-cluster's chain over every endpoint, s-local's over the node's own.
  ...factsFrom<`iptables-${(typeof WORKERS)[number]}.${'clusterEndpoints' | 'clusterProbabilities' | 'localEndpoints'}`>(
    WORKERS.flatMap((w) => [
      [`iptables-${w}.clusterEndpoints`, iptables.picks(`iptables-${w}`, 's-cluster', 'KUBE-SVC-', 'endpoints')],
      [`iptables-${w}.clusterProbabilities`, iptables.picks(`iptables-${w}`, 's-cluster', 'KUBE-SVC-', 'probabilities')],
      [`iptables-${w}.localEndpoints`, iptables.picks(`iptables-${w}`, 's-local', 'KUBE-SVL-', 'endpoints')],
    ] as const),
  ),
  ...spreadFacts('cluster'),
  ...spreadFacts('local'),
  // The bound the claims check, set here: declared by this definition, not measured.
  'spread.sigmas': fromDefinition(SIGMAS),
  ...factsFrom<`pod.${Role}.${'name' | 'node' | 'ip'}`>(
    ROLES.flatMap((role) => (['name', 'node', 'ip'] as const).map((key) => [`pod.${role}.${key}`, fromRun((run) => podsByRole(run)[role][key])] as const)),
  ),
  'pod.web.count': fromRun((run) => String(run.pods.filter((p) => p.name.startsWith('web-')).length)),
  'pod.web.image': fromRun((run) => podsByRole(run).lone.image),
  'spread.loneNode': fromRun((run) => podsByRole(run).lone.node),
  'spread.sharedNode': fromRun((run) => podsByRole(run)['shared-1'].node),
};

const n = Number;
const ROLE_LABEL = {
  lone: { zh: '独占节点的 Pod', en: 'Pod alone on its node' },
  'shared-1': { zh: '共用节点的 Pod 甲', en: 'Pod sharing a node, first' },
  'shared-2': { zh: '共用节点的 Pod 乙', en: 'Pod sharing a node, second' },
};
const bars = (p: Policy) => choiceBars(`spread-${p}`, ROLES, (role) => ({ label: ROLE_LABEL[role], name: `pod.${role}.name` }));
/** A policy's name, first on its line of the figure: the two lines are otherwise alike. */
const spreadLine = (p: Policy, name: string) => ({
  zh: `${name} 策略：{spread-${p}.requests} 个请求，worker {spread-${p}.via.worker} 个、worker2 {spread-${p}.via.worker2} 个，得到成功回答的 {spread-${p}.answered} 个：{pod.lone.name}（独占 {pod.lone.node}）{spread-${p}.count.lone} 个，{pod.shared-1.name} {spread-${p}.count.shared-1} 个，{pod.shared-2.name} {spread-${p}.count.shared-2} 个（后两个同在 {pod.shared-1.node}）；用时 {spread-${p}.seconds} 秒`,
  en: `Under ${name}: {spread-${p}.requests} requests, {spread-${p}.via.worker} to worker and {spread-${p}.via.worker2} to worker2, {spread-${p}.answered} answered with success: {pod.lone.name} (alone on {pod.lone.node}) {spread-${p}.count.lone}, {pod.shared-1.name} {spread-${p}.count.shared-1}, {pod.shared-2.name} {spread-${p}.count.shared-2} (both on {pod.shared-1.node}); {spread-${p}.seconds} s in all`,
});

export default defineArticle({
  experiment,
  facts,
  // What the prose asserts about the run. Each count must lie within SIGMAS binomial standard deviations of
  // what the model expects (`expectation`): the bound comes from the number of requests, so more make it tighter.
  claims: [
    { id: 'scheduler-spread-two-one',
      zh: '调度器把三个 Pod 分成二加一：一个节点上两个，另一个节点上一个，两个节点的健康检查端口报告的本地后端数与之相符',
      en: "The scheduler spread the three pods two and one: two on one node, one on the other, and each node’s health-check port reports as many local endpoints",
      holds: (v) =>
        v('pod.web.count') === '3' && v('pod.shared-1.node') === v('pod.shared-2.node') && v('pod.lone.node') !== v('pod.shared-1.node')
        && WORKERS.every((w) => v(`health-${w}.localEndpoints`) === String(ROLES.filter((r) => v(`pod.${r}.node`) === w).length)),
    },
    { id: 'rules-pick-at-random',
      zh: '两个 worker 的 nat 表里，s-cluster 的链跳向三个后端，前两条规则依次以约三分之一、二分之一的概率随机匹配，剩下的落到第三个；s-local 的链只跳向本节点的后端，数目与健康检查报告的相同',
      en: 'In both workers’ nat tables, s-cluster’s chain jumps to three endpoints, its first two rules matching at random with probabilities of about a third and a half, the rest falling to the third; s-local’s chain jumps only to the node’s own endpoints, as many as its health check reports',
      holds: (v) =>
        WORKERS.every((w) => {
          const [first, second, ...more] = v(`iptables-${w}.clusterProbabilities`).split(', ').map(Number);
          return v(`iptables-${w}.clusterEndpoints`) === '3' && more.length === 0 && Math.abs(first! - 1 / 3) < 1e-6 && Math.abs(second! - 1 / 2) < 1e-6
            && v(`iptables-${w}.localEndpoints`) === v(`health-${w}.localEndpoints`);
        }),
    },
    { id: 'nodes-get-equal-traffic',
      zh: '每种策略下，两个节点收到的请求一样多，每个请求都得到了成功的回答',
      en: 'Under each policy both nodes received the same number of requests, and every request was answered successfully',
      holds: (v) => POLICIES.every((p) => v(`spread-${p}.answered`) === v(`spread-${p}.requests`) && v(`spread-${p}.via.worker`) === v(`spread-${p}.via.worker2`)
        && n(v(`spread-${p}.via.worker`)) + n(v(`spread-${p}.via.worker2`)) === n(v(`spread-${p}.requests`))),
    },
    { id: 'cluster-shares-even',
      zh: 'Cluster 策略下，每个 Pod 分到的请求都在三分之一附近，偏差不超过二项分布标准差的四倍',
      en: 'Under Cluster each pod received about a third of the requests, within four binomial standard deviations',
      holds: (v) => withinBounds(v, 'spread-cluster', ROLES),
    },
    { id: 'local-shares-by-node',
      zh: 'Local 策略下，独占节点的 Pod 接下了它所在节点收到的全部请求，约为一半；另外两个 Pod 各约四分之一，偏差不超过二项分布标准差的四倍',
      en: 'Under Local the pod alone on its node took every request that node received, about half; the two others about a quarter each, within four binomial standard deviations',
      holds: (v) => withinBounds(v, 'spread-local', ROLES),
    },
    { id: 'local-lone-pod-gets-more',
      zh: 'Local 策略下，独占节点的 Pod 分到的请求比另外两个 Pod 中的任何一个都多',
      en: 'Under Local the pod alone on its node received more requests than either of the two others',
      holds: (v) => n(v('spread-local.count.lone')) > n(v('spread-local.count.shared-1')) && n(v('spread-local.count.lone')) > n(v('spread-local.count.shared-2')),
    },
  ],
  // The one-line summary each step gets inside a <Measured> block; every value is a {fact.id}, the words are ours.
  lines: {
    'health-worker': healthCheckLine('health-worker', 's-local 在 worker {node.worker.ip}:{service.s-local.healthCheckNodePort} 的健康检查', "s-local’s health check on worker, {node.worker.ip}:{service.s-local.healthCheckNodePort}"),
    'health-worker2': healthCheckLine('health-worker2', 's-local 在 worker2 {node.worker2.ip}:{service.s-local.healthCheckNodePort} 的健康检查', "s-local’s health check on worker2, {node.worker2.ip}:{service.s-local.healthCheckNodePort}"),
    'iptables-worker': {
      zh: 'worker 的 nat 表：s-cluster 的链跳向 {iptables-worker.clusterEndpoints} 个后端，随机匹配的概率依次为 {iptables-worker.clusterProbabilities}；s-local 的链跳向本节点的 {iptables-worker.localEndpoints} 个后端',
      en: "Worker’s nat table: s-cluster’s chain jumps to {iptables-worker.clusterEndpoints} endpoints, matching at random with probabilities {iptables-worker.clusterProbabilities} in turn; s-local’s chain to the node’s own {iptables-worker.localEndpoints}",
    },
    'iptables-worker2': {
      zh: 'worker2 的 nat 表：s-cluster 的链跳向 {iptables-worker2.clusterEndpoints} 个后端，随机匹配的概率依次为 {iptables-worker2.clusterProbabilities}；s-local 的链跳向本节点的 {iptables-worker2.localEndpoints} 个后端',
      en: "Worker2's nat table: s-cluster’s chain jumps to {iptables-worker2.clusterEndpoints} endpoints, matching at random with probabilities {iptables-worker2.clusterProbabilities} in turn; s-local’s chain to the node’s own {iptables-worker2.localEndpoints}",
    },
    'spread-cluster': spreadLine('cluster', 'Cluster'),
    'spread-local': spreadLine('local', 'Local'),
  },
  // <Chart id="shares" />: each pod's share of the requests per policy, with the share the model expects and its tolerance.
  charts: [
    { id: 'shares',
      title: { zh: '每个 Pod 分到的请求占比，按流量策略', en: 'Share of the requests each pod answered, per traffic policy' },
      legend: {
        zh: '条形：实测占比；竖线：按模型应得的占比；浅色带：由请求数算出的容许范围。',
        en: 'Bar: the measured share. Tick: the share the model expects. Light band: the tolerance derived from the number of requests.',
      },
      columns: { zh: ['Pod', '名字', '请求数', '占比', '应得占比', '容许偏差'], en: ['Pod', 'Name', 'Requests', 'Share', 'Expected share', 'Tolerance'] },
      groups: [
        { label: { zh: 'externalTrafficPolicy: Cluster', en: 'externalTrafficPolicy: Cluster' }, bars: bars('cluster') },
        { label: { zh: 'externalTrafficPolicy: Local', en: 'externalTrafficPolicy: Local' }, bars: bars('local') },
      ],
    },
  ],
  // The upstream code each mechanism sentence rests on (<Cite id>); the lines hold, unchanged, in every release the runs used.
  citations: {
    'local-external-chain': {
      file: IPTABLES_PROXIER,
      lines: ['externalPolicyChain := clusterPolicyChain', '…', 'externalPolicyChain = localPolicyChain'],
      about: { zh: 'Local：经 NodePort 或负载均衡地址进来的外部流量走本节点后端的链', en: 'Local: external traffic, by NodePort or load-balancer address, goes to the chain of the node’s own endpoints' },
    },
    'health-counts-ready-local': {
      file: 'pkg/proxy/endpointschangetracker.go',
      lines: ['// Only add ready endpoints for health checking. Terminating endpoints may still serve traffic', '…', 'if ep.IsLocal() {'],
      about: { zh: '健康检查只数本节点上就绪的后端', en: 'The health check counts only the node’s own ready endpoints' },
    },
    'spread-max-skew': {
      file: 'pkg/scheduler/framework/plugins/podtopologyspread/filtering.go',
      lines: ['matchNum := s.TpValueToMatchNum[i][tpVal]', 'skew := matchNum + selfMatchNum - minMatchNum', 'if skew > int(c.MaxSkew) {'],
      about: { zh: '分布约束：放上这个 Pod 后，节点的 Pod 数比最少的节点多出 maxSkew 以上，就不能放', en: 'Spread constraint: a node is ruled out if, with this pod, it would hold more than maxSkew pods above the emptiest node' },
    },
    'spread-taints-honor': {
      file: CORE_TYPES,
      lines: ['// NodeTaintsPolicy indicates how we will treat node taints when calculating', '…', '// has a toleration, are included.'],
      about: { zh: 'nodeTaintsPolicy 为 Honor 时，Pod 不容忍其污点的节点不参与计数', en: 'With nodeTaintsPolicy Honor, nodes whose taints the pod does not tolerate are left out of the count' },
    },
    'node-affinity-score': {
      file: 'pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go',
      lines: [
        '// Score returns the sum of the weights of the terms that match the Node.',
        "// Terms came from the Pod .spec.affinity.nodeAffinity and from the plugin's",
        '// default affinity.',
      ],
      about: { zh: '节点亲和性打分：节点满足的 preferred 规则的权重之和', en: 'Node affinity score: the sum of the weights of the preferred terms a node matches' },
    },
    'scheduler-one-at-a-time': {
      file: 'pkg/scheduler/scheduler.go',
      lines: ['// We need to start scheduleOne loop in a dedicated goroutine,', '…', 'go wait.UntilWithContext(ctx, sched.ScheduleOne, 0)'],
      about: { zh: '调度器在一个循环里从调度队列逐个取出 Pod 安排', en: 'The scheduler runs one loop that takes the next pod from its queue and places it' },
    },
    'hostname-is-pod-name': {
      file: 'pkg/kubelet/kubelet_pods.go',
      lines: [
        'hostname := pod.Name',
        'if len(pod.Spec.Hostname) > 0 {',
        'if msgs := utilvalidation.IsDNS1123Label(pod.Spec.Hostname); len(msgs) != 0 {',
        'return "", "", fmt.Errorf("pod Hostname %q is not a valid DNS label: %s", pod.Spec.Hostname, strings.Join(msgs, ";"))',
        '}',
        'hostname = pod.Spec.Hostname',
        '}',
      ],
      about: { zh: 'kubelet：Pod 的主机名是它的名字，除非 spec.hostname 另有指定', en: 'kubelet: a pod’s hostname is its name, unless spec.hostname says otherwise' },
    },
    'sandbox-hostname': {
      file: 'pkg/kubelet/kuberuntime/kuberuntime_sandbox.go',
      lines: ['podSandboxConfig.Hostname = podHostname'],
      about: { zh: 'kubelet 把主机名写进交给容器运行时的沙箱配置', en: 'kubelet puts the hostname in the sandbox config it hands to the container runtime' },
    },
    'iptables-random': {
      file: IPTABLES_PROXIER,
      lines: ['// Each rule is a probabilistic match.', '…', '"--probability", proxier.probability(numEndpoints-i))'],
      about: {
        zh: 'iptables 模式：每条后端规则按剩下的后端数随机匹配，每个新连接落到各个后端的机会相同',
        en: 'iptables mode: each endpoint rule matches at random, one in as many as endpoints remain, so a new connection is equally likely to reach any endpoint',
      },
    },
    'cluster-endpoints': {
      file: TOPOLOGY,
      lines: ['clusterEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool {', 'if !ep.IsReady() {', 'return false', '}'],
      about: { zh: 'Cluster：整个集群里就绪的后端都是候选', en: 'Cluster: every ready endpoint in the cluster is a candidate' },
    },
    'local-endpoints': {
      file: TOPOLOGY,
      lines: ['if hasLocalReadyEndpoints {', 'localEndpoints = filterEndpoints(endpoints, func(ep Endpoint) bool {', 'return ep.IsLocal() && ep.IsReady()'],
      about: { zh: 'Local：只取本节点上就绪的后端', en: 'Local: only the node’s own ready endpoints' },
    },
    'nftables-random': {
      file: 'pkg/proxy/nftables/proxier.go',
      lines: ['"numgen random mod", len(endpoints), "vmap",'],
      about: { zh: 'nftables 模式：用随机数对后端个数取模，挑出后端', en: 'nftables mode: a random number modulo the number of endpoints picks the endpoint' },
    },
    'ipvs-round-robin': {
      file: 'pkg/proxy/ipvs/proxier.go',
      lines: ['// defaultScheduler is the default ipvs scheduler algorithm - round robin.', 'defaultScheduler = "rr"'],
      about: { zh: 'IPVS 模式：默认调度算法是轮询', en: 'IPVS mode: the default scheduler is round robin' },
    },
    'local-retains-source': {
      file: IPTABLES_PROXIER,
      lines: ['} else {', '// If we are only using same-node endpoints, we can retain the', '// source IP in most cases.'],
      about: { zh: 'Local：只用本节点的后端，来源地址多数情况下可以保留', en: 'Local: with only same-node endpoints, the source address can be kept in most cases' },
    },
    'spread-only-when-scheduling': {
      file: CORE_TYPES,
      lines: ['// If WhenUnsatisfiable is set to DoNotSchedule, incoming pod can only be scheduled', '…', '// won\'t make it *more* imbalanced.'],
      about: { zh: '分布约束只约束新来的 Pod：已有的不均会留下，调度器只是不让它更不均', en: 'The spread constraint binds only incoming pods: an existing imbalance stays, the scheduler only does not make it worse' },
    },
    'health-weight-header': {
      file: 'pkg/proxy/healthcheck/service_health.go',
      lines: ['resp.Header().Set("X-Load-Balancing-Endpoint-Weight", strconv.Itoa(count))'],
      about: { zh: '健康检查在响应头里报告本节点的后端数，供负载均衡器加权', en: 'The health check reports the node’s endpoint count in a response header, for a load balancer to weight by' },
    },
    'itp-local-chain': {
      file: IPTABLES_PROXIER,
      lines: ['if svcInfo.InternalPolicyLocal() {', 'internalPolicyChain = localPolicyChain'],
      about: { zh: 'internalTrafficPolicy 为 Local 时，集群内部的流量也走本节点后端的链', en: 'With internalTrafficPolicy Local, traffic from inside the cluster also goes to the chain of the node’s own endpoints' },
    },
  },
});
