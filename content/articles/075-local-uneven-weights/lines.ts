// The one-line summary each step gets inside a <Measured> block, per language.
// Every value is a {fact.id} from facts.ts; the words around them are ours.
import type { LineTemplates } from '../../../src/evidence/template.ts';

/** A policy's name, first on its line of the figure: the two lines are otherwise alike. */
const POLICY = { cluster: 'Cluster', local: 'Local' } as const;

const spread = (p: 'cluster' | 'local') => ({
  zh: `${POLICY[p]} 策略：{spread-${p}.requests} 个请求，worker {spread-${p}.via.worker} 个、worker2 {spread-${p}.via.worker2} 个，得到成功回答的 {spread-${p}.answered} 个：{pod.lone.name}（独占 {pod.lone.node}）{spread-${p}.count.lone} 个，{pod.shared-1.name} {spread-${p}.count.shared-1} 个，{pod.shared-2.name} {spread-${p}.count.shared-2} 个（后两个同在 {pod.shared-1.node}）；用时 {spread-${p}.seconds} 秒`,
  en: `Under ${POLICY[p]}: {spread-${p}.requests} requests, {spread-${p}.via.worker} to worker and {spread-${p}.via.worker2} to worker2, {spread-${p}.answered} answered with success: {pod.lone.name} (alone on {pod.lone.node}) {spread-${p}.count.lone}, {pod.shared-1.name} {spread-${p}.count.shared-1}, {pod.shared-2.name} {spread-${p}.count.shared-2} (both on {pod.shared-1.node}); {spread-${p}.seconds} s in all`,
});

export const lines: LineTemplates = {
  'health-worker': {
    zh: 's-local 在 worker {node.worker.ip}:{service.s-local.healthCheckNodePort} 的健康检查 → HTTP {health-worker.status}，localEndpoints={health-worker.localEndpoints}',
    en: "s-local’s health check on worker, {node.worker.ip}:{service.s-local.healthCheckNodePort}: HTTP {health-worker.status} {health-worker.reason}, localEndpoints={health-worker.localEndpoints}",
  },
  'health-worker2': {
    zh: 's-local 在 worker2 {node.worker2.ip}:{service.s-local.healthCheckNodePort} 的健康检查 → HTTP {health-worker2.status}，localEndpoints={health-worker2.localEndpoints}',
    en: "s-local’s health check on worker2, {node.worker2.ip}:{service.s-local.healthCheckNodePort}: HTTP {health-worker2.status} {health-worker2.reason}, localEndpoints={health-worker2.localEndpoints}",
  },
  'spread-cluster': spread('cluster'),
  'spread-local': spread('local'),
};
