// The vocabulary an article's experiment (in its article.ts) is written in. Shared by capture
// (what to run), evidence (what to derive) and the pages (what to show).
// No I/O and no Astro imports here.

export type NodeRole = 'control-plane' | 'worker';

/** A node as the experiment names it ("worker"), independent of the driver. */
export interface NodeSpec {
  name: string;
  role: NodeRole;
}

export interface ClusterSpec {
  /** kind cluster name; kind node containers are `<name>-<node>`. */
  name: string;
  nodes: NodeSpec[];
  podSubnet: string;
  serviceSubnet: string;
  kubeProxyMode: KubeProxyMode;
}

/**
 * Where an article is measured and published: each environment is a complete set of runs in
 * `content/`, made by one driver (environments.ts, DRIVER_OF). A driver may measure none: `existing`,
 * a reader's own cluster, which `npm run verify` runs on and never publishes.
 */
export const ENVIRONMENTS = ['kind', 'lab'] as const;
export type EnvironmentName = (typeof ENVIRONMENTS)[number];

/** kube-proxy's modes on Linux (kind's `networking.kubeProxyMode`). */

export const KUBE_PROXY_MODES = ['iptables', 'nftables', 'ipvs'] as const;
export type KubeProxyMode = (typeof KUBE_PROXY_MODES)[number];

/**
 * Runs of one experiment along an axis (here: kube-proxy's mode). Each variant
 * is a complete run with its own snapshots folder; the first is the default,
 * the run the article's unqualified bindings read.
 */
export interface VariantAxis {
  axis: 'kubeProxyMode';
  values: KubeProxyMode[];
}

/** What a run found the cluster to be: read from the API (kind) or allocated (lab). */
export interface NodeInfo {
  /** Logical name used by steps: control-plane, worker, worker2. */
  name: string;
  /** The Kubernetes node name, e.g. kx-main-worker. */
  k8sName: string;
  role: NodeRole;
  internalIP: string;
  podCIDR: string;
}

export interface PodInfo {
  name: string;
  namespace: string;
  /** Logical node name. */
  node: string;
  ip: string;
  image: string;
}

export type ServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';

export type TrafficPolicy = 'Cluster' | 'Local';

export interface ServiceInfo {
  name: string;
  namespace: string;
  type: ServiceType;
  /** Only a Service reached from outside (NodePort, LoadBalancer) has one; null for a ClusterIP Service. */
  externalTrafficPolicy: TrafficPolicy | null;
  /** As the API server stored it (it defaults to Cluster); absent in runs captured before it was recorded. */
  internalTrafficPolicy?: TrafficPolicy;
  clusterIP: string;
  port: number;
  targetPort: number;
  /** null for a ClusterIP Service. */
  nodePort: number | null;
  /** Only LoadBalancer + Local gets one; null otherwise. */
  healthCheckNodePort: number | null;
}

export interface Topology {
  nodes: NodeInfo[];
  pods: PodInfo[];
  services: ServiceInfo[];
}

/**
 * How a step's command reaches run-time values. The real view reads a
 * Topology; the symbolic view (for --dry-run) answers placeholders.
 */
export interface TopologyView {
  ip(node: string): string;
  podIP(pod: string): string;
  clusterIP(service: string): string;
  nodePort(service: string): string;
  healthCheckNodePort(service: string): string;
}

/** A step's time limit when it declares none: a command on a local cluster that takes longer is stuck. */
export const DEFAULT_STEP_TIMEOUT_MS = 60_000;

/** How long a step may take, and what reaching that limit means. */
interface StepLimits {
  /** The step's time limit (DEFAULT_STEP_TIMEOUT_MS when absent). */
  timeoutMs?: number;
  /**
   * `fail` (the default): a step that reaches its limit fails the run. `record`: the
   * limit is part of the experiment, and the step is stored as timed out, a result.
   */
  onTimeout?: 'fail' | 'record';
}

/** A command run on a node (curl from the client, iptables-save on worker2, ...). */
export interface ExecStep extends StepLimits {
  kind: 'exec';
  id: string;
  /** Logical node the command runs on. */
  node: string;
  /** What the step shows, for progress output and provenance. */
  title: string;
  command: (t: TopologyView) => string[];
  /**
   * Run inside this pod's network namespace (the node's own program, the pod's network), on
   * `node`, where the manifests place the pod: traffic that starts in a pod. On the node itself when absent.
   */
  pod?: PodRef;
  /** Only in these variants (e.g. `iptables-save` only where kube-proxy writes iptables); every variant when absent. */
  variants?: string[];
}

export interface PodRef {
  namespace: string;
  name: string;
}

/**
 * When an action (a delete, a recreate) has taken effect, as a client sees it: an exec step of the
 * experiment, run again every poll until it answers (exit 0) or fails (any other exit).
 */
export interface ClientSettle {
  step: string;
  until: 'answered' | 'failed';
}

/** Delete a pod and wait until its deletion has taken effect; the wait is recorded with the step. */
export type DeletePodStep = Omit<StepLimits, 'onTimeout'> & {
  kind: 'delete-pod';
  id: string;
  title: string;
  pod: string;
  namespace: string;
  variants?: string[];
} & (
    | {
        /** Node whose kube-proxy health check must report 0 local endpoints before the step ends. */
        settleNode: string;
        /** Service whose healthCheckNodePort is polled to know the deletion has settled. */
        settleService: string;
      }
    | { settleClient: ClientSettle }
  );

/**
 * Create a pod again from its manifest (after a delete-pod step), wait until the API says it is
 * Ready, then until a client's answer shows it: the wait after Ready is recorded with the step.
 */
export interface RecreatePodStep extends Omit<StepLimits, 'onTimeout'> {
  kind: 'recreate-pod';
  id: string;
  title: string;
  pod: string;
  namespace: string;
  /** The manifest file (one of experiment.manifests) that declares the pod. */
  manifest: string;
  settleClient: ClientSettle;
  variants?: string[];
}

export type StepDef = ExecStep | DeletePodStep | RecreatePodStep;

/**
 * An image the manifests name and a local build that runs in its place where no
 * registry can provide it (kind:prepare builds the recipe). The run records both
 * names; the page says what ran, in both languages.
 */
export interface ImageSubstitute {
  image: string;
  /** A recipe of kind:prepare's (src/capture/kind/image/build.ts BACKEND_RECIPES). */
  recipe: 'debian-nginx-light';
  /** What the substitute changes for this experiment, and why it does not change what is measured. */
  note: { zh: string; en: string };
}

export interface Experiment {
  slug: string;
  cluster: ClusterSpec;
  /** Manifest files relative to the article folder, applied in order. */
  manifests: string[];
  /** Logical node that plays the client outside the cluster. */
  client: string;
  steps: StepDef[];
  /** Several runs of this experiment, one per value of the axis; one run when absent. */
  variants?: VariantAxis;
  /**
   * The environments it is measured in (src/experiment/environments.ts), the
   * headline first: the one the article's unqualified bindings read. Each is a
   * complete set of runs (every variant) of its own; absent means the headline
   * environment alone.
   */
  environments?: EnvironmentName[];
  /**
   * The Kubernetes minors it is measured on (src/experiment/kubernetes.ts), the
   * newest first: the headline. Each is a complete set of runs (every
   * environment and variant) of its own; absent means the project's headline release alone.
   */
  kubernetes?: string[];
  /** Local images that may run in place of the manifests' where no registry answers. */
  imageSubstitutes?: ImageSubstitute[];
}
