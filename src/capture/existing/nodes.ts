// Which of a reader's nodes plays each of the experiment's: as `--nodes` names
// them, or chosen (the control plane first where the cluster has one, then the
// workers by name) and printed before anything runs. Pure.
import type { NodeSpec } from '../../experiment/types.ts';

/** A node of the cluster as the node list says it is. */
export interface ClusterNode {
  k8sName: string;
  role: 'control-plane' | 'worker';
  ready: boolean;
}

export type NodeChoice = { nodes: Record<string, string>; chosen: boolean } | { problem: string };

/** `--nodes control-plane=a,worker=b`: the experiment's node -> the cluster's; a problem line when it is not that. */
export function parseNodesFlag(value: string, experiment: readonly NodeSpec[]): Record<string, string> | { problem: string } {
  const nodes: Record<string, string> = {};
  for (const pair of value.split(',')) {
    const m = /^([^=\s]+)=([^=\s]+)$/.exec(pair.trim());
    if (!m)
      return {
        problem: `--nodes: expected ROLE=NODE pairs separated by commas (e.g. ${experiment.map((n, i) => `${n.name}=node-${i + 1}`).join(',')}), got ${JSON.stringify(pair)}`,
      };
    const [, role, node] = m as unknown as [string, string, string];
    if (!experiment.some((n) => n.name === role))
      return { problem: `--nodes: the experiment has no node ${JSON.stringify(role)}; it has ${experiment.map((n) => n.name).join(', ')}` };
    if (role in nodes) return { problem: `--nodes: ${role} is named twice` };
    nodes[role] = node;
  }
  return nodes;
}

/**
 * The cluster's nodes for the experiment's: every one named, a node of the cluster, Ready, and none
 * playing two parts; unnamed, chosen. A cluster with fewer Ready nodes than the experiment needs is one problem line.
 */
export function chooseNodes(experiment: readonly NodeSpec[], cluster: readonly ClusterNode[], given: Record<string, string> | null): NodeChoice {
  const ready = cluster.filter((n) => n.ready);
  const needs = `the experiment needs ${experiment.length} nodes (${experiment.map((n) => n.name).join(', ')})`;
  if (given !== null) {
    const missing = experiment.filter((n) => given[n.name] === undefined).map((n) => n.name);
    if (missing.length) return { problem: `--nodes: names no node for ${missing.join(', ')}; ${needs}` };
    for (const [role, name] of Object.entries(given)) {
      const node = cluster.find((n) => n.k8sName === name);
      if (!node) return { problem: `--nodes: ${role}=${name}: the cluster has no node ${name} (it has ${cluster.map((n) => n.k8sName).join(', ') || 'none'})` };
      if (!node.ready) return { problem: `--nodes: ${role}=${name}: node ${name} is not Ready` };
    }
    const names = Object.values(given);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) return { problem: `--nodes: node ${twice} plays two of the experiment's nodes; each needs its own` };
    return { nodes: { ...given }, chosen: false };
  }
  if (ready.length < experiment.length)
    return {
      problem: `the cluster has ${ready.length} Ready ${ready.length === 1 ? 'node' : 'nodes'} (${ready.map((n) => n.k8sName).join(', ') || 'none'}); ${needs}`,
    };
  const byName = (a: ClusterNode, b: ClusterNode) => a.k8sName.localeCompare(b.k8sName);
  const pool = [...ready.filter((n) => n.role === 'control-plane').sort(byName), ...ready.filter((n) => n.role === 'worker').sort(byName)];
  const nodes: Record<string, string> = {};
  // The experiment's control plane takes a control-plane node where there is one; its workers take the workers.
  for (const spec of [...experiment].sort((a, b) => (a.role === b.role ? 0 : a.role === 'control-plane' ? -1 : 1))) {
    const pick =
      spec.role === 'control-plane'
        ? pool[0]!
        : (pool.find((n) => n.role === 'worker' && !Object.values(nodes).includes(n.k8sName)) ?? pool.find((n) => !Object.values(nodes).includes(n.k8sName))!);
    nodes[spec.name] = pick.k8sName;
    pool.splice(pool.indexOf(pick), 1);
  }
  return { nodes, chosen: true };
}

/** The choice as `--nodes` takes it, for the line printed before anything runs and for the driver. */
export const nodesFlag = (nodes: Readonly<Record<string, string>>): string =>
  Object.entries(nodes)
    .map(([role, node]) => `${role}=${node}`)
    .join(',');
