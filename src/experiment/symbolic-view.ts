// The run-time values a step's command reads, as placeholders: what --dry-run
// prints and what a definition's commands are checked with before any run.
import type { TopologyView } from './types.ts';

export const symbolicTopologyView: TopologyView = {
  ip: (node) => `<${node}.ip>`,
  podIP: (pod) => `<${pod}.podIP>`,
  clusterIP: (service) => `<${service}.clusterIP>`,
  nodePort: (service) => `<${service}.nodePort>`,
  healthCheckNodePort: (service) => `<${service}.healthCheckNodePort>`,
};
