// The chart of article 075 (<Chart id="shares" />): each pod's share of the
// requests per policy, with the share the model expects and its tolerance.
import type { ChartBar, ChartDef } from '../../../src/article/render/chart.ts';
import { ROLES, type Role } from './facts.ts';

const ROLE_LABEL: Record<Role, Record<'zh' | 'en', string>> = {
  lone: { zh: '独占节点的 Pod', en: 'Pod alone on its node' },
  'shared-1': { zh: '共用节点的 Pod 甲', en: 'Pod sharing a node, first' },
  'shared-2': { zh: '共用节点的 Pod 乙', en: 'Pod sharing a node, second' },
};

const bars = (policy: 'cluster' | 'local'): ChartBar[] => ROLES.map((role) => ({
  label: ROLE_LABEL[role],
  name: `pod.${role}.name`,
  share: `spread-${policy}.share.${role}`,
  count: `spread-${policy}.count.${role}`,
  expected: `spread-${policy}.expectedShare.${role}`,
  tolerance: `spread-${policy}.boundShare.${role}`,
}));

export const charts: ChartDef[] = [
  {
    id: 'shares',
    title: { zh: '每个 Pod 分到的请求占比，按流量策略', en: 'Share of the requests each pod answered, per traffic policy' },
    legend: {
      zh: '条形：实测占比；竖线：按模型应得的占比；浅色带：由请求数算出的容许范围。',
      en: 'Bar: the measured share. Tick: the share the model expects. Light band: the tolerance derived from the number of requests.',
    },
    columns: {
      zh: ['Pod', '名字', '请求数', '占比', '应得占比', '容许偏差'],
      en: ['Pod', 'Name', 'Requests', 'Share', 'Expected share', 'Tolerance'],
    },
    groups: [
      { label: { zh: 'externalTrafficPolicy: Cluster', en: 'externalTrafficPolicy: Cluster' }, bars: bars('cluster') },
      { label: { zh: 'externalTrafficPolicy: Local', en: 'externalTrafficPolicy: Local' }, bars: bars('local') },
    ],
  },
];
