// Every argv the kind driver runs, built in one place so that --dry-run's plan
// and the real run cannot drift apart. Pure: no I/O here.

import type { KubectlTarget } from '../kubectl/commands.ts';

export * from '../kubectl/commands.ts';

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

/** `wait: false` where the nodes cannot be Ready when kind finishes (no CNI yet: the kindnetd stand-in comes after). */
export function kindCreateCluster(t: KindTarget, configFile: string, image?: string, wait = true): string[] {
  return [
    'kind',
    'create',
    'cluster',
    '--name',
    t.cluster,
    '--config',
    configFile,
    '--kubeconfig',
    t.kubeconfig,
    ...(wait ? ['--wait', CREATE_WAIT] : []),
    ...(image ? ['--image', image] : []),
  ];
}

export const kindDeleteCluster = (t: KindTarget): string[] => ['kind', 'delete', 'cluster', '--name', t.cluster, '--kubeconfig', t.kubeconfig];

export const kindLoadImage = (t: KindTarget, image: string): string[] => ['kind', 'load', 'docker-image', image, '--name', t.cluster];

export const dockerVersion = (): string[] => ['docker', 'version', '--format', '{{json .}}'];
export const dockerListClusterContainers = (cluster: string): string[] => [
  'docker',
  'ps',
  '--all',
  '--no-trunc',
  '--filter',
  `label=${KIND_CLUSTER_LABEL}=${cluster}`,
  '--format',
  '{{.ID}}\t{{.Names}}',
];
/** Removes containers with their anonymous volumes (a kind node's /var), as kind's own delete does. */
export const dockerRemoveContainers = (containers: string[]): string[] => ['docker', 'rm', '--force', '--volumes', ...containers];
export const dockerNodeImage = (container: string): string[] => ['docker', 'container', 'inspect', '--format', '{{.Config.Image}}', container];
export const dockerImageInspect = (image: string): string[] => ['docker', 'image', 'inspect', '--format', '{{.Id}}', image];
export const dockerPull = (image: string): string[] => ['docker', 'pull', image];
export const dockerExec = (container: string, command: string[]): string[] => ['docker', 'exec', container, ...command];
/** docker exec with the child's stdin open, for a file's content (`tee FILE`). */
export const dockerExecWithInput = (container: string, command: string[]): string[] => ['docker', 'exec', '--interactive', container, ...command];
/** The image as the node's containerd holds it (CRI's ImageStatus), by the name a Pod gives: exit 1 when it has none. */
export const crictlInspectImage = (container: string, image: string): string[] => [
  'docker',
  'exec',
  container,
  'crictl',
  'inspecti',
  '--output',
  'json',
  image,
];
export const dockerContainerImageId = (container: string): string[] => ['docker', 'container', 'inspect', '--format', '{{.Image}}', container];
/**
 * Each node container's name, whether it runs, when it (re)started, and its addresses on docker's
 * networks (kind's, for a node): a node that stopped or restarted during the steps shows here.
 */
export const dockerContainerStates = (containers: string[]): string[] => [
  'docker',
  'container',
  'inspect',
  '--format',
  '{{.Name}} {{.State.Running}} {{.State.StartedAt}}{{range .NetworkSettings.Networks}} {{.IPAddress}}{{end}}',
  ...containers,
];
/** Each node container's init process as this machine sees it: the way into its network namespace (nsenterNet). */
export const dockerContainerPids = (containers: string[]): string[] => [
  'docker',
  'container',
  'inspect',
  '--format',
  '{{.Name}} {{.State.Pid}}',
  ...containers,
];
/** A host tool in the network namespace of process `pid` (a node container's init): its loopback, nothing else of it. */
export const nsenterNet = (pid: string, command: string[]): string[] => ['nsenter', `--target=${pid}`, '--net', '--', ...command];
/** A node's own program in its mount and network namespaces, as `docker exec` would run it, without docker's round trip. */
export const nsenterNode = (pid: string, command: string[]): string[] => ['nsenter', `--target=${pid}`, '--mount', '--net', '--', ...command];
export const dockerCgroupVersion = (): string[] => ['docker', 'info', '--format', '{{.CgroupVersion}}'];
/** The docker network kind puts every cluster's nodes on (KIND_EXPERIMENTAL_DOCKER_NETWORK aside). */
export const KIND_NETWORK = 'kind';
export const dockerNetworkInspect = (name: string): string[] => ['docker', 'network', 'inspect', '--format', '{{.Id}} {{len .Containers}}', name];
export const dockerNetworkRemove = (name: string): string[] => ['docker', 'network', 'rm', name];
/** kube-proxy's own word on its mode, from its metrics server on the node's loopback (kube-proxy runs in the host network). */
export const proxyModeCommand = (): string[] => ['curl', '--silent', '--show-error', '--max-time', '5', 'http://127.0.0.1:10249/proxyMode'];

export const iptablesVersionCommand = (): string[] => ['iptables', '--version'];
