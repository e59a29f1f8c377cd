// Every kubectl argv both drivers run, built in one place so that --dry-run's
// plan and the real run cannot drift apart. Pure: no I/O here.

/** How to reach one cluster's API: the capture's own kubeconfig (never the user's). */
export interface KubectlTarget {
  kubeconfig: string;
  /**
   * The argv that runs kubectl, when it is not `kubectl` on PATH: the lab runs
   * its own build inside the control-plane node's namespace, where the API listens.
   */
  runner?: string[];
}

/** Bounded waits; the cluster is local, so these are generous rather than tight. */
export const READY_TIMEOUT = '120s';
export const DELETE_TIMEOUT = '60s';

/** kubectl with the capture's kubeconfig first, so no call can fall back to ~/.kube/config. */
export const kubectl = (t: KubectlTarget, ...args: string[]): string[] => [...(t.runner ?? ['kubectl']), '--kubeconfig', t.kubeconfig, ...args];

export const kubectlClientVersion = (t: KubectlTarget): string[] => kubectl(t, 'version', '--client', '-o', 'json');
export const kubectlVersion = (t: KubectlTarget): string[] => kubectl(t, 'version', '-o', 'json');
export const kubectlApply = (t: KubectlTarget, file: string): string[] => kubectl(t, 'apply', '-f', file);
/** The same, reading the manifest on stdin: a step's argv, kept in its snapshot, names no file of this machine. */
export const kubectlApplyStdin = (t: KubectlTarget): string[] => kubectl(t, 'apply', '-f', '-');
export const kubectlWaitNodesReady = (t: KubectlTarget): string[] => kubectl(t, 'wait', '--for=condition=Ready', 'node', '--all', `--timeout=${READY_TIMEOUT}`);
export const kubectlWaitPodReady = (t: KubectlTarget, namespace: string, pod: string): string[] =>
  kubectl(t, 'wait', '--for=condition=Ready', `pod/${pod}`, '--namespace', namespace, `--timeout=${READY_TIMEOUT}`);
/** Waits until a Deployment, StatefulSet or DaemonSet has all its Pods updated and available. */
export const kubectlRolloutStatus = (t: KubectlTarget, kind: string, namespace: string, name: string): string[] =>
  kubectl(t, 'rollout', 'status', `${kind.toLowerCase()}/${name}`, '--namespace', namespace, `--timeout=${READY_TIMEOUT}`);
export const kubectlGetNodes = (t: KubectlTarget): string[] => kubectl(t, 'get', 'nodes', '-o', 'json');
export const kubectlGetPods = (t: KubectlTarget): string[] => kubectl(t, 'get', 'pods', '--all-namespaces', '-o', 'json');
export const kubectlGetServiceAccount = (t: KubectlTarget, namespace: string, name: string): string[] =>
  kubectl(t, 'get', 'serviceaccount', name, '--namespace', namespace, '-o', 'name');
export const kubectlGetServices = (t: KubectlTarget): string[] => kubectl(t, 'get', 'services', '--all-namespaces', '-o', 'json');
export const kubectlGetEndpointSlices = (t: KubectlTarget): string[] => kubectl(t, 'get', 'endpointslices', '--all-namespaces', '-o', 'json');

/** The delete as the experiment states it (no kubeconfig): what a step snapshot calls `command`. */
export const deletePodCommand = (namespace: string, pod: string): string[] => [
  'kubectl',
  'delete',
  'pod',
  pod,
  '--namespace',
  namespace,
  '--wait=true',
  `--timeout=${DELETE_TIMEOUT}`,
];
export const kubectlDeletePod = (t: KubectlTarget, namespace: string, pod: string): string[] => kubectl(t, ...deletePodCommand(namespace, pod).slice(1));

/** Everything a manifest declares, deleted and awaited; none of it there is no error. */
export const kubectlDeleteManifest = (t: KubectlTarget, file: string): string[] =>
  kubectl(t, 'delete', '-f', file, '--ignore-not-found', '--wait=true', `--timeout=${DELETE_TIMEOUT}`);

/** kube-proxy's health check as the settle poll asks it: the body alone, short timeout. */
export const healthCheckProbe = (ip: string, port: string): string[] => ['curl', '--silent', '--max-time', '2', `http://${ip}:${port}/`];
