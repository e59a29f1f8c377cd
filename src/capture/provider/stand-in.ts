// What a stand-in decided or read, per node, merged into run.yaml's
// environment.standIn: one row per value, with every node that had it. Each
// provider with a stand-in (the lab kubelet, kind's kindnetd stand-in) reports
// its nodes' rows; the merge is the same for all of them.
import type { StandInDecision } from '../../evidence/schema.ts';

/** One node's value: the run's row before the nodes are merged. */
export type Decision = Omit<StandInDecision, 'nodes'>;

/** One node's list of values. */
export interface NodeDecisions {
  node: string;
  decisions: Decision[];
}

/** The run's list: a value several nodes had alike, once, with the nodes that had it. */
export function mergeNodeDecisions(perNode: NodeDecisions[]): StandInDecision[] {
  const merged: StandInDecision[] = [];
  for (const { node, decisions } of perNode) {
    for (const decision of decisions) {
      const same = merged.find((m) => m.field === decision.field && m.value === decision.value && m.source === decision.source);
      if (same !== undefined) same.nodes.push(node);
      else merged.push({ ...decision, nodes: [node] });
    }
  }
  return merged;
}
