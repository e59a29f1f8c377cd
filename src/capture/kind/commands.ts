// Every argv the kind driver runs, built in one place so that --dry-run's plan
// and the real run cannot drift apart. Pure: no I/O here.

import type { KubectlTarget } from '../cluster/kubectl.ts';

export * from '../cluster/kubectl.ts';

/** Which cluster, and the capture's own kubeconfig (never the user's). */
export interface KindTarget extends KubectlTarget {
  cluster: string;
}

/** The docker label kind puts on every node container of a cluster. */
export const KIND_CLUSTER_LABEL = 'io.x-k8s.kind.cluster';

/** Bounded wait for kind's own readiness check. */
export const CREATE_WAIT = '120s';

/** kind node containers (and Kubernetes node names) are `<cluster>-<node>`. */
export const nodeContainer = (cluster: string, node: string): string => `${cluster}-${node}`;

// kind: only `create cluster` and `delete cluster` take --kubeconfig (they write
// and prune it); `get clusters`, `load docker-image` and `version` reject the flag
// as unknown. Every child also gets KUBECONFIG=<the capture's file> in its env.
export const kindVersion = (): string[] => ['kind', 'version'];
export const kindGetClusters = (): string[] => ['kind', 'get', 'clusters'];

export function kindCreateCluster(t: KindTarget, configFile: string, image?: string): string[] {
  return [
    'kind', 'create', 'cluster',
    '--name', t.cluster,
    '--config', configFile,
    '--kubeconfig', t.kubeconfig,
    '--wait', CREATE_WAIT,
    ...(image ? ['--image', image] : []),
  ];
}

export const kindDeleteCluster = (t: KindTarget): string[] => [
  'kind', 'delete', 'cluster', '--name', t.cluster, '--kubeconfig', t.kubeconfig,
];

export const kindLoadImage = (t: KindTarget, image: string): string[] => [
  'kind', 'load', 'docker-image', image, '--name', t.cluster,
];

export const dockerVersion = (): string[] => ['docker', 'version', '--format', '{{json .}}'];
export const dockerListClusterContainers = (cluster: string): string[] => [
  'docker', 'ps', '--all', '--no-trunc', '--filter', `label=${KIND_CLUSTER_LABEL}=${cluster}`, '--format', '{{.ID}}\t{{.Names}}',
];
export const dockerNodeImage = (container: string): string[] => [
  'docker', 'container', 'inspect', '--format', '{{.Config.Image}}', container,
];
export const dockerImageInspect = (image: string): string[] => ['docker', 'image', 'inspect', '--format', '{{.Id}}', image];
export const dockerPull = (image: string): string[] => ['docker', 'pull', image];
export const dockerExec = (container: string, command: string[]): string[] => ['docker', 'exec', container, ...command];

export const iptablesVersionCommand = (): string[] => ['iptables', '--version'];
