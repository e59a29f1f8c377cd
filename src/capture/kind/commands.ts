// Every argv the kind driver runs, built in one place so that --dry-run's plan
// and the real run cannot drift apart. Pure: no I/O here.

/** Which cluster, and the capture's own kubeconfig (never the user's). */
export interface KindTarget {
  cluster: string;
  kubeconfig: string;
}

/** kubectl needs only the kubeconfig (it never learns the cluster's name). */
export type KubeconfigOnly = Pick<KindTarget, 'kubeconfig'>;

/** The docker label kind puts on every node container of a cluster. */
export const KIND_CLUSTER_LABEL = 'io.x-k8s.kind.cluster';

/** Bounded waits; the cluster is local, so these are generous rather than tight. */
export const CREATE_WAIT = '120s';
export const READY_TIMEOUT = '120s';
export const DELETE_TIMEOUT = '60s';

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

/** kubectl with the capture's kubeconfig first, so no call can fall back to ~/.kube/config. */
export const kubectl = (t: KubeconfigOnly, ...args: string[]): string[] => ['kubectl', '--kubeconfig', t.kubeconfig, ...args];

export const kubectlClientVersion = (t: KubeconfigOnly): string[] => kubectl(t, 'version', '--client', '-o', 'json');
export const kubectlVersion = (t: KubeconfigOnly): string[] => kubectl(t, 'version', '-o', 'json');
export const kubectlApply = (t: KubeconfigOnly, file: string): string[] => kubectl(t, 'apply', '-f', file);
export const kubectlWaitNodesReady = (t: KubeconfigOnly): string[] =>
  kubectl(t, 'wait', '--for=condition=Ready', 'node', '--all', `--timeout=${READY_TIMEOUT}`);
export const kubectlWaitPodReady = (t: KubeconfigOnly, namespace: string, pod: string): string[] =>
  kubectl(t, 'wait', '--for=condition=Ready', `pod/${pod}`, '--namespace', namespace, `--timeout=${READY_TIMEOUT}`);
export const kubectlGetNodes = (t: KubeconfigOnly): string[] => kubectl(t, 'get', 'nodes', '-o', 'json');
export const kubectlGetPods = (t: KubeconfigOnly): string[] => kubectl(t, 'get', 'pods', '--all-namespaces', '-o', 'json');
export const kubectlGetServices = (t: KubeconfigOnly): string[] => kubectl(t, 'get', 'services', '--all-namespaces', '-o', 'json');
export const kubectlGetKubeProxyConfig = (t: KubeconfigOnly): string[] =>
  kubectl(t, 'get', 'configmap', 'kube-proxy', '--namespace', 'kube-system', '-o', 'json');

/** The delete as the experiment states it (no kubeconfig): what a step snapshot calls `command`. */
export const deletePodCommand = (namespace: string, pod: string): string[] => [
  'kubectl', 'delete', 'pod', pod, '--namespace', namespace, '--wait=true', `--timeout=${DELETE_TIMEOUT}`,
];
export const kubectlDeletePod = (t: KubeconfigOnly, namespace: string, pod: string): string[] =>
  kubectl(t, ...deletePodCommand(namespace, pod).slice(1));

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

/** kube-proxy's health check as the settle poll asks it: the body alone, short timeout. */
export const healthCheckProbe = (ip: string, port: string): string[] => [
  'curl', '--silent', '--max-time', '2', `http://${ip}:${port}/`,
];
export const iptablesVersionCommand = (): string[] => ['iptables', '--version'];
