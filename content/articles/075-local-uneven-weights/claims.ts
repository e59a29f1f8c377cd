// What the prose of article 075 asserts about the run, as checks over its facts.
// Each count must lie within SIGMAS binomial standard deviations of what the
// model expects (facts.ts, `expectation`): the bound comes from the number of
// requests, so more requests make it tighter.
import type { ClaimDef } from '../../../src/evidence/claims.ts';
import { ROLES, WORKERS } from './facts.ts';

const n = (s: string): number => Number(s);
const within = (v: (id: string) => string, step: string) =>
  ROLES.every((r) => Math.abs(n(v(`${step}.count.${r}`)) - n(v(`${step}.expected.${r}`))) <= n(v(`${step}.bound.${r}`)));
const countFacts = (step: string) => ROLES.flatMap((r) => [`${step}.count.${r}`, `${step}.expected.${r}`, `${step}.bound.${r}`]);

export const claims: ClaimDef[] = [
  {
    id: 'scheduler-spread-two-one',
    statement: {
      zh: '调度器把三个 Pod 分成二加一：一个节点上两个，另一个节点上一个，两个节点的健康检查端口报告的本地后端数与之相符',
      en: 'The scheduler spread the three pods two and one: two on one node, one on the other, and each node\'s health-check port reports as many local endpoints',
    },
    facts: ['pod.web.count', 'pod.lone.node', 'pod.shared-1.node', 'pod.shared-2.node', 'health-worker.localEndpoints', 'health-worker2.localEndpoints'],
    holds: (v) => {
      const onNode = (w: string) => ROLES.filter((r) => v(`pod.${r}.node`) === w).length;
      return v('pod.web.count') === '3' && v('pod.shared-1.node') === v('pod.shared-2.node') && v('pod.lone.node') !== v('pod.shared-1.node')
        && WORKERS.every((w) => v(`health-${w}.localEndpoints`) === String(onNode(w)));
    },
  },
  {
    id: 'nodes-get-equal-traffic',
    statement: {
      zh: '每种策略下，两个节点收到的请求一样多，每个请求都得到了成功的回答',
      en: 'Under each policy both nodes received the same number of requests, and every request was answered successfully',
    },
    facts: ['spread-cluster.requests', 'spread-cluster.answered', 'spread-cluster.via.worker', 'spread-cluster.via.worker2',
      'spread-local.requests', 'spread-local.answered', 'spread-local.via.worker', 'spread-local.via.worker2'],
    holds: (v) => ['spread-cluster', 'spread-local'].every((s) =>
      v(`${s}.answered`) === v(`${s}.requests`) && v(`${s}.via.worker`) === v(`${s}.via.worker2`)
      && n(v(`${s}.via.worker`)) + n(v(`${s}.via.worker2`)) === n(v(`${s}.requests`))),
  },
  {
    id: 'cluster-shares-even',
    statement: {
      zh: 'Cluster 策略下，每个 Pod 分到的请求都在三分之一附近，偏差不超过二项分布标准差的四倍',
      en: 'Under Cluster each pod received about a third of the requests, within four binomial standard deviations',
    },
    facts: countFacts('spread-cluster'),
    holds: (v) => within(v, 'spread-cluster'),
  },
  {
    id: 'local-shares-by-node',
    statement: {
      zh: 'Local 策略下，独占节点的 Pod 接下了它所在节点收到的全部请求，约为一半；另外两个 Pod 各约四分之一，偏差不超过二项分布标准差的四倍',
      en: 'Under Local the pod alone on its node took every request that node received, about half; the two others about a quarter each, within four binomial standard deviations',
    },
    facts: countFacts('spread-local'),
    holds: (v) => within(v, 'spread-local'),
  },
  {
    id: 'local-lone-pod-gets-more',
    statement: {
      zh: 'Local 策略下，独占节点的 Pod 分到的请求比另外两个 Pod 中的任何一个都多',
      en: 'Under Local the pod alone on its node received more requests than either of the two others',
    },
    facts: ['spread-local.count.lone', 'spread-local.count.shared-1', 'spread-local.count.shared-2'],
    holds: (v) => n(v('spread-local.count.lone')) > n(v('spread-local.count.shared-1')) && n(v('spread-local.count.lone')) > n(v('spread-local.count.shared-2')),
  },
];
