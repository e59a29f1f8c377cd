// How step commands see run-time values: the view answers from the topology a
// driver found (placeholders for --dry-run: src/experiment/symbolic-view.ts).
import type { Topology, TopologyView } from '../../experiment/types.ts';

function find<T extends { name: string }>(items: T[], name: string, what: string): T {
  const item = items.find((i) => i.name === name);
  if (!item) {
    const known = items.map((i) => i.name).join(', ') || 'none';
    throw new Error(`the experiment refers to ${what} "${name}", but the run has only: ${known}`);
  }
  return item;
}

export function topologyView(t: Topology): TopologyView {
  return {
    ip: (node) => find(t.nodes, node, 'node').internalIP,
    podIP: (pod) => find(t.pods, pod, 'pod').ip,
    clusterIP: (service) => find(t.services, service, 'service').clusterIP,
    nodePort: (service) => {
      const port = find(t.services, service, 'service').nodePort;
      if (port === null) throw new Error(`service "${service}" has no nodePort (a ClusterIP Service gets none)`);
      return String(port);
    },
    healthCheckNodePort: (service) => {
      const port = find(t.services, service, 'service').healthCheckNodePort;
      if (port === null) throw new Error(`service "${service}" has no healthCheckNodePort (only LoadBalancer + Local gets one)`);
      return String(port);
    },
  };
}
