// Every driver, once: its name (run.yaml's `driver`; environments.ts says which
// environment each measures), what it is, the flags only it takes, how each of its
// commands enters a node, and the versions only it records. The CLI's choices
// and usage, the snapshot schema, the run-origin check and docs/capture-engine.md's
// table all read this list; src/capture/session/drivers.ts adds each one's factory and
// recovery, keyed by the same names. Plain data: everything else reads it.

/** A flag of `npm run capture` that only one driver takes. */
export interface DriverFlag {
  /** As typed, without the dashes ("reuse"). */
  name: string;
  type: 'boolean' | 'string';
  /** The argument's placeholder in the usage ("DIR"), for a string flag. */
  value?: string;
  /** The usage text, first line first. */
  usage: string[];
}

/** How a command that ran on `node` (a logical node name, or `host` for the driver's own actions) starts its argv. */
export type NodeEntry = (
  run: { runId: string; nodes: ReadonlyArray<{ name: string; k8sName: string; role: string }> },
  node: string,
) => {
  prefix: string[];
  said: string;
};

export interface DriverInfo {
  /** What it is, in the usage's and the docs' words. */
  summary: string;
  /** What it needs, in the usage's and the docs' words. */
  needs: string;
  flags: readonly DriverFlag[];
  enters: NodeEntry;
  /** Versions only this driver records: each is in every one of its runs, and in no other driver's. */
  versions: readonly string[];
  /** A combination of its flags that cannot work, as one line; null when they can. */
  flagProblem?: (flags: Readonly<Record<string, string | boolean | undefined>>) => string | null;
}

const k8sName = (run: Parameters<NodeEntry>[0], node: string) => run.nodes.find((n) => n.name === node)?.k8sName ?? node;
/** What every name the lab gives starts with (src/capture/lab/names.ts), so that recovery finds its leftovers and nothing else. */
export const LAB_PREFIX = 'shice-lab-';
/** A lab node's network namespace: how its commands enter it, and how run-origin knows them again. */
export const labNodeNamespace = (runId: string, node: string) => `${LAB_PREFIX}${runId}.node.${node}`;

export const DRIVERS = {
  kind: {
    summary: 'a real kind cluster, its nodes Docker containers on this host',
    needs: 'docker, kind, kubectl',
    flags: [
      { name: 'reuse', type: 'boolean', usage: ['run on the cluster an earlier capture created and kept'] },
      { name: 'image', type: 'string', value: 'IMG', usage: ['node image, e.g. kindest/node:v1.37.0'] },
      { name: 'load-images', type: 'boolean', usage: ['load the backend image from local docker into the nodes'] },
    ],
    enters: (run, node) =>
      node === 'host'
        ? { prefix: ['kubectl'], said: 'kubectl, run by the capture on the host' }
        : { prefix: ['docker', 'exec', k8sName(run, node)], said: `docker exec ${k8sName(run, node)}` },
    versions: ['kind', 'node-image'],
    flagProblem: (flags) => (flags.reuse && flags.image !== undefined ? '--reuse runs on an existing cluster: --image would not apply' : null),
  },
  lab: {
    summary: 'real Kubernetes (etcd, kube-apiserver, controller-manager, scheduler, kube-proxy) in network namespaces on this Linux kernel',
    needs: "root, npm run lab:build, and Debian's iproute2, iptables, conntrack, containernetworking-plugins, openssl, nginx-light, curl",
    flags: [
      {
        name: 'kube-bin',
        type: 'string',
        value: 'DIR',
        usage: [
          'the Kubernetes binaries (etcd, kube-apiserver, ...) from DIR,',
          "e.g. the official server release, instead of npm run lab:build's",
          '(also: SHICE_KUBE_BIN=DIR)',
        ],
      },
    ],
    // The lab's own actions (deleting a pod) run kubectl in the control-plane's namespace.
    enters: (run, node) => {
      const on = node === 'host' ? (run.nodes.find((n) => n.role === 'control-plane')?.name ?? 'control-plane') : node;
      const namespace = labNodeNamespace(run.runId, on);
      return { prefix: ['ip', 'netns', 'exec', namespace], said: `ip netns exec ${namespace}` };
    },
    versions: ['kube-apiserver', 'etcd'],
  },
  existing: {
    summary: "a cluster you already have, reached by your kubeconfig: measures no article's environment, npm run verify runs it",
    needs: 'kubectl, and a context that may create a namespace, pods in it and privileged node agents',
    flags: [
      { name: 'kubeconfig', type: 'string', value: 'FILE', usage: ['the kubeconfig to reach the cluster by (required)'] },
      { name: 'context', type: 'string', value: 'NAME', usage: ["the kubeconfig's context (default: its current context)"] },
      {
        name: 'nodes',
        type: 'string',
        value: 'ROLE=NODE,...',
        usage: ["which of the cluster's nodes plays each of the experiment's (default: chosen, and printed)"],
      },
      { name: 'agent-image', type: 'string', value: 'IMG', usage: ["the node agents' image; it needs nsenter (default: debian:trixie-slim)"] },
      {
        name: 'stand-in-images',
        type: 'boolean',
        usage: ["run the article's local image builds in place of the images its", "manifests name (a cluster without a registry, as kind:prepare's)"],
      },
    ],
    // Every command on a node goes through the run's node agent there: kubectl exec, then nsenter into the node.
    enters: () => ({ prefix: ['kubectl'], said: "kubectl exec into the run's node agent" }),
    versions: ['agent-image', 'cni-config'],
  },
} as const satisfies Record<string, DriverInfo>;

export type DriverName = keyof typeof DRIVERS;
export const DRIVER_NAMES = Object.keys(DRIVERS) as [DriverName, ...DriverName[]];
/** The driver a capture uses when none is named: the headline environment's. */
export const DEFAULT_DRIVER: DriverName = 'kind';

export const isDriverName = (name: string): name is DriverName => Object.hasOwn(DRIVERS, name);
