// Article 077, sessionAffinity: ClientIP. Three backends behind three Services
// that differ only in session affinity; a client pod on worker asks each many
// times, every request on a connection of its own, and the rules of its node
// show where kube-proxy remembers it.
import {
  defineArticle, kubernetesSeries, inEveryVariant, affinitySetFacts, answersPart, recentTotalFacts, declared, fromDefinition, inPod, measured, recentCheckFacts, requestsArgv, rulesPart,
  type FactIdOf, type TopologyView,
} from '../../../src/authoring/article.ts';

const IPTABLES_PROXIER = 'pkg/proxy/iptables/proxier.go';
const NFTABLES_PROXIER = 'pkg/proxy/nftables/proxier.go';
const MODES = ['iptables', 'nftables'] as const;
/** The spaced-out requests' interval, longer than s-brief's timeout: each finds the client forgotten. */
const SPACING_SECONDS = 3;
const ask = (service: string, count: number, rate?: string) => (t: TopologyView) => requestsArgv(`http://${t.clusterIP(service)}/`, count, { maxTime: '2', rate });
const fromClient = <const S extends string>(id: S, title: string, service: string, count: number, rate?: string) => inPod(id, 'client', 'worker', title, ask(service, count, rate));

const runs = measured(
  answersPart(fromClient('none', "s-none's ClusterIP, 30 requests", 's-none', 30), {
    zh: '客户端 Pod（{pod.client.ip}）→ s-none：{none.requests} 个请求，{none.answered} 个得到回答，回答者 {none.distinct} 个：{none.who}',
    en: 'The client pod ({pod.client.ip}) to s-none: {none.requests} requests, {none.answered} answered, by {none.distinct} backends: {none.who}',
  }),
  answersPart(fromClient('sticky', "s-sticky's ClusterIP, 30 requests", 's-sticky', 30), {
    zh: '客户端 Pod → s-sticky：{sticky.requests} 个请求，{sticky.answered} 个得到回答，回答者 {sticky.distinct} 个：{sticky.who}',
    en: 'The client pod to s-sticky: {sticky.requests} requests, {sticky.answered} answered, by {sticky.distinct} [backend|backends]: {sticky.who}',
  }),
  rulesPart('iptables-worker', 'worker', 'iptables', {
    zh: 'worker 的 nat 表里，s-sticky 的链中匹配了 {iptables-worker.remembered.packets} 个新连接的 recent 检查规则：{iptables-worker.remembered.rule}',
    en: 'In worker’s nat table, the recent check of s-sticky’s chain that matched {iptables-worker.remembered.packets} new connections: {iptables-worker.remembered.rule}',
  }, recentCheckFacts('iptables-worker.remembered', 'iptables-worker', 's-sticky'), { counters: true }),
  rulesPart('nft-worker', 'worker', 'nftables', {
    zh: 'worker 上 kube-proxy 的表里，记着客户端 {nft-worker.remembered.client} 的亲和集合（超时 {nft-worker.remembered.timeout}）：{nft-worker.remembered.set}',
    en: 'In kube-proxy’s table on worker, the affinity set that holds the client {nft-worker.remembered.client} (timeout {nft-worker.remembered.timeout}): {nft-worker.remembered.set}',
  }, affinitySetFacts('nft-worker.remembered', 'nft-worker', 's-sticky')),
  answersPart(fromClient('brief-spaced', `s-brief's ClusterIP, 8 requests ${SPACING_SECONDS} s apart`, 's-brief', 8, `${60 / SPACING_SECONDS}/m`), {
    zh: '客户端 Pod → s-brief，间隔长于超时：{brief-spaced.requests} 个请求，回答者 {brief-spaced.distinct} 个：{brief-spaced.who}',
    en: 'The client pod to s-brief, further apart than its timeout: {brief-spaced.requests} requests, answered by {brief-spaced.distinct} [backend|backends]: {brief-spaced.who}',
  }, { 'brief-spaced.every': fromDefinition(SPACING_SECONDS) }),
  rulesPart('iptables-brief', 'worker', 'iptables', {
    zh: 'worker 的 nat 表里，s-brief 的 recent 检查规则送出的新连接 {iptables-brief.s-brief.checked} 个，它的端点记录下的新连接 {iptables-brief.s-brief.recorded} 个',
    en: 'In worker’s nat table, s-brief’s recent checks sent on {iptables-brief.s-brief.checked} new [connection|connections]; its endpoints recorded {iptables-brief.s-brief.recorded}',
  }, recentTotalFacts('iptables-brief.s-brief', 'iptables-brief', 's-brief'), { counters: true, what: ', after the spaced requests' }),
  answersPart(fromClient('brief-burst', "s-brief's ClusterIP, 20 requests back to back", 's-brief', 20), {
    zh: '客户端 Pod → s-brief，连续发出：{brief-burst.requests} 个请求，回答者 {brief-burst.distinct} 个：{brief-burst.who}',
    en: 'The client pod to s-brief, back to back: {brief-burst.requests} requests, answered by {brief-burst.distinct} [backend|backends]: {brief-burst.who}',
  }),
);

const facts = {
  'declared.s-sticky.timeoutSeconds': declared('manifests/services.yaml', 'Service/s-sticky', 'spec.sessionAffinityConfig.clientIP.timeoutSeconds'),
  'declared.s-brief.timeoutSeconds': declared('manifests/services.yaml', 'Service/s-brief', 'spec.sessionAffinityConfig.clientIP.timeoutSeconds'),
  ...runs.facts,
};
type Id = FactIdOf<typeof facts, typeof runs.variantFacts>;
/** The address of the one backend that answered a step. */
const answerer = (v: (id: Id) => string, step: 'sticky') => v(`pod.${v(`${step}.who`)}.ip` as const);
const spreads = (v: (id: Id) => string) => Number(v('none.distinct')) >= 2 && v('sticky.distinct') === '1' && Number(v('brief-spaced.distinct')) >= 2;

export default defineArticle({
  experiment: kubernetesSeries({
    slug: '077-session-affinity',
    manifests: ['manifests/backends.yaml', 'manifests/services.yaml'],
    steps: runs.steps,
    variants: { axis: 'kubeProxyMode', values: [...MODES] },
  }),
  facts,
  variantFacts: runs.variantFacts,
  lines: runs.lines,
  claims: [
    { id: 'none-spreads', zh: 'None 下，同一个客户端的请求分到了不止一个后端', en: 'Under None, one client’s requests reach more than one backend',
      holds: (v) => v('none.answered') === v('none.requests') && Number(v('none.distinct')) >= 2 },
    { id: 'sticky-pins', zh: 'ClientIP 下，同一个客户端的每个请求都由同一个后端回答', en: 'Under ClientIP, every request of one client is answered by the same backend',
      holds: (v) => v('sticky.answered') === v('sticky.requests') && v('sticky.distinct') === '1' },
    { id: 'iptables-recent', variants: ['iptables'],
      zh: 'iptables 模式下，除第一个连接外，每个新连接都由指向那个后端的 recent 检查规则送出，规则记住客户端的时长就是声明的超时',
      en: 'In iptables mode, every new connection but the first is sent on by the recent check pointing at that backend, which remembers the client for the declared timeout',
      holds: (v) => v('iptables-worker.remembered.endpoint') === answerer(v, 'sticky') && v('iptables-worker.remembered.seconds') === v('declared.s-sticky.timeoutSeconds')
        && Number(v('iptables-worker.remembered.packets')) === Number(v('sticky.requests')) - 1 },
    { id: 'nft-affinity-set', variants: ['nftables'],
      zh: 'nftables 模式下，那个后端的亲和集合里记着客户端 Pod 的地址，集合的超时就是声明的超时',
      en: 'In nftables mode, that backend’s affinity set holds the client pod’s address, with the declared timeout',
      holds: (v) => v('nft-worker.remembered.client') === v('pod.client.ip') && v('nft-worker.remembered.endpoint') === answerer(v, 'sticky')
        && v('nft-worker.remembered.timeout') === `${v('declared.s-sticky.timeoutSeconds')}s` },
    { id: 'brief-pins-within-timeout', zh: '请求之间的间隔短于超时，s-brief 也只由一个后端回答', en: 'With requests closer together than the timeout, s-brief too is answered by one backend',
      holds: (v) => v('brief-burst.distinct') === '1' },
    { id: 'brief-forgets', zh: '请求之间的间隔长于超时，每个请求都重新选后端，回答者不止一个', en: 'With requests further apart than the timeout, each picks a backend afresh, and more than one answers',
      holds: (v) => Number(v('brief-spaced.every')) > Number(v('declared.s-brief.timeoutSeconds')) && Number(v('brief-spaced.distinct')) >= 2 },
    { id: 'iptables-forgets', variants: ['iptables'],
      zh: 'iptables 模式下，间隔长于超时的请求没有一个被 recent 检查规则送出：每个新连接都记录下来，却都过了期',
      en: 'In iptables mode, no request further apart than the timeout was sent on by a recent check: each new connection was recorded, and each record had expired by the next',
      holds: (v) => v('iptables-brief.s-brief.checked') === '0' && v('iptables-brief.s-brief.recorded') === v('brief-spaced.requests') },
  ],
  citations: {
    'iptables-recent-check': {
      file: IPTABLES_PROXIER,
      lines: ['"-m", "recent", "--name", string(epInfo.ChainName),', '"--rcheck", "--seconds", strconv.Itoa(svcInfo.StickyMaxAgeSeconds()), "--reap",', '"-j", string(epInfo.ChainName),'],
      about: { zh: 'Service 的链为每个端点写一条检查：来源地址在该端点的名单里、且在超时之内出现过，就转给它', en: 'The Service’s chain checks, per endpoint, whether the source address is on that endpoint’s list and was seen within the timeout, and if so goes to it' },
    },
    'iptables-recent-set': {
      file: IPTABLES_PROXIER,
      lines: ['// Update client-affinity lists.', 'if svcInfo.SessionAffinityType() == v1.ServiceAffinityClientIP {', 'args = append(args, "-m", "recent", "--name", string(endpointChain), "--set")'],
      about: { zh: '端点的链把每个新连接的来源地址写进自己的名单', en: 'The endpoint’s chain puts the source address of every new connection on its own list' },
    },
    'nft-affinity-set': {
      file: NFTABLES_PROXIER,
      lines: ['knftables.DynamicFlag,', 'knftables.TimeoutFlag,', '},', 'Timeout: ptr.To(time.Duration(svcInfo.StickyMaxAgeSeconds()) * time.Second),'],
      about: { zh: '每个端点一个集合，元素的超时就是 Service 的亲和超时', en: 'One set per endpoint, its elements timing out after the Service’s affinity timeout' },
    },
    'nft-affinity-update': {
      file: NFTABLES_PROXIER,
      lines: ['Chain: endpointChain,', 'Rule: knftables.Concat(', '"update", "@", epInfo.affinitySetName,', '"{", ipX, "saddr", "}",'],
      about: { zh: '端点的链把来源地址写进（或刷新于）自己的集合', en: 'The endpoint’s chain adds (or refreshes) the source address in its own set' },
    },
    'nft-affinity-check': {
      file: NFTABLES_PROXIER,
      lines: ['Chain: svcChain,', 'Rule: knftables.Concat(', 'ipX, "saddr", "@", epInfo.affinitySetName,', '"goto", epInfo.chainName,'],
      about: { zh: 'Service 的链先查各端点的集合，查到来源地址就转给那个端点', en: 'The Service’s chain looks up each endpoint’s set first and goes to the endpoint that holds the source address' },
    },
  },
  comparisonRows: [
    { fact: 'none.distinct', label: { zh: 'None：回答的后端个数', en: 'None: backends that answered' } },
    { fact: 'sticky.distinct', label: { zh: 'ClientIP：回答的后端个数', en: 'ClientIP: backends that answered' } },
    { fact: 'brief-spaced.distinct', label: { zh: '间隔长于超时：回答的后端个数', en: 'Further apart than the timeout: backends that answered' } },
    { fact: 'brief-burst.distinct', label: { zh: '连续发出：回答的后端个数', en: 'Back to back: backends that answered' } },
    { fact: 'run.kubeProxyMode', label: { zh: 'kube-proxy 自报的模式', en: 'The mode kube-proxy reports' } },
  ],
  comparisons: [
    { id: 'modes-alike', zh: '两种模式下结果相同', en: 'Both modes behave alike', holds: inEveryVariant<Id>(MODES, spreads) },
  ],
});
