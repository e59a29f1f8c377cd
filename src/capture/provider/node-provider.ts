// The bottom floor of the capture: what a node provider is, as kind's own
// providers are (pkg/cluster/internal/providers). It brings nodes up and says
// what each is (name, role, address); it runs an argv on a node under a time
// limit and gives the bytes back; it reports the nodes' state; it takes them
// down. Kubernetes is a platform above the providers (src/capture/kubernetes/),
// and nothing here names one of its types.
//
// A provider is built for one run of one experiment (its driver's factory in
// src/capture/session/drivers.ts), so its nodes are known before up() and a dry run
// prints the same argvs a run executes.
import type { DriverName } from '../../experiment/drivers.ts';
import type { ProcessResult } from '../machine/process.ts';
import type { ProviderRecord } from '../recovery/run-registry.ts';

/** A missing prerequisite: the CLI prints `message` as one line and exits 2. */
export class PrerequisiteError extends Error {
  override name = 'PrerequisiteError';
}

/**
 * This provider, on this machine, cannot run a variant of the experiment at all (kube-proxy's
 * ipvs mode on a kernel without IPVS). Named, the variant fails the capture; left to the
 * default (every variant), it is skipped with this one line and the others run.
 */
export class VariantUnsupported extends PrerequisiteError {
  override name = 'VariantUnsupported';
}

/** The environment failed (a node, a namespace, a component): the run aborts. */
export class DriverError extends Error {
  override name = 'DriverError';
}

export interface ProviderContext {
  signal: AbortSignal;
  /** Progress of long setup work ("creating cluster kx-main ..."), one line each. */
  log: (line: string) => void;
}

/** A node as its provider brought it up. */
export interface ProvidedNode {
  /** The experiment's name for it ("worker2"). */
  name: string;
  /** The name its kubelet registers with the API ("kx-main-worker2", or a reader's node as the cluster names it). */
  k8sName: string;
  role: 'control-plane' | 'worker';
  /** Its address on the nodes' network, as the provider assigned or read it; null when it cannot know. */
  address: string | null;
  /** Labels the provider had the node register with: the platform checks the API's nodes carry them. */
  labels: Readonly<Record<string, string>>;
}

/** The bound of one command on a node. */
export interface ExecLimits {
  timeoutMs: number;
  /** How many bytes of each stream to keep (the snapshot's limit, and a little more, for a step). */
  keepBytes?: number;
}

export interface NodeProvider {
  readonly name: DriverName;
  /**
   * Whether up() may hand over nodes an earlier run left (--reuse): the platform then removes what that
   * run left in them (earlier-run.ts) before the manifests apply.
   */
  readonly reuses: boolean;
  /** Health endpoints of the provider's own agents on every node (component, URL), asked by the platform with its own between steps. */
  readonly agentHealthz: readonly (readonly [string, string])[];
  /**
   * Whether the control plane's components answer on the control-plane node's loopback (kubeadm's, the lab's): false
   * where the node playing the control plane is not one (a reader's managed cluster); true when absent.
   */
  readonly controlPlaneHealthz?: boolean;
  /**
   * Why no command can run on the nodes, known once up() has returned: the cluster refused what would run them
   * (a reader's cluster, its admission). The platform then runs nothing on a node, waits for nothing it would read
   * there, and the runner runs no step. Null or absent: commands run on every node.
   */
  readonly nodesRefused?: string | null;
  /**
   * Fails at once with a PrerequisiteError naming what is missing and how to get it,
   * also what this run (a variant) needs that the provider or machine cannot give.
   */
  preflight(): Promise<void>;
  /** The nodes up, each as `nodes` says; returns them in the experiment's order. */
  up(ctx: ProviderContext): Promise<ProvidedNode[]>;
  /** The argv that runs `command` on `node` (what exec runs, and what a dry run prints). */
  nodeArgv(node: string, command: string[]): string[];
  /**
   * Runs `command` on `node` under the limits. A non-zero exit or a timeout is the
   * command's result; the node itself failing under it is a DriverError.
   */
  exec(node: string, command: string[], limits: ExecLimits, ctx: ProviderContext): Promise<ProcessResult>;
  /**
   * The argv that runs a host tool in `node`'s network namespace (probe runs it; a dry run prints it):
   * the platform's health probes, which ask endpoints on the node's loopback and measure nothing of
   * the node's own tools. Where the provider has no cheaper way in than exec, it is nodeArgv.
   */
  probeArgv(node: string, command: string[]): string[];
  /** Runs probeArgv's argv under the limits; its exit and output are the caller's to judge. */
  probe(node: string, command: string[], limits: ExecLimits, ctx: ProviderContext): Promise<ProcessResult>;
  /**
   * The path, on `node`, of the network namespace its container runtime made for a pod's sandbox
   * (kind: containerd's, asked through crictl; the lab: its kubelet's). A DriverError when the
   * pod has no ready sandbox there.
   */
  podNetns(node: string, pod: { namespace: string; name: string }, ctx: ProviderContext): Promise<string>;
  /** What podNetns answers in a dry run, where no pod runs yet. */
  podNetnsPlaceholder(node: string, pod: { namespace: string; name: string }): string;
  /**
   * What broke since up() (a node stopped or restarted, a component exited): one phrase
   * each, empty while the nodes are whole. Bounded in time.
   */
  problems(ctx: ProviderContext): Promise<string[]>;
  /** The provider's own versions and facts: its tools, node image, engine (asked once the nodes are up). */
  facts(ctx: ProviderContext): Promise<Record<string, string>>;
  /** Removes everything this provider created (unless kept). Idempotent; safe after a partial up(). */
  down(ctx: { log: (line: string) => void }): Promise<void>;
  /** Its own setup and teardown argvs, for --dry-run, in the order up() and down() run them. */
  plan(): { setup: string[][]; teardown: string[][] };
}

/**
 * What a provider's killed runs left behind, found only by the records its runs wrote
 * (run-registry.ts): recovery asks each provider through this, and knows nothing of
 * namespaces or containers itself.
 */
export interface ProviderLeftovers {
  /** The records it answers for: a record's `kind`. */
  readonly kind: ProviderRecord['kind'];
  /** Removes what the dead run recorded; one line per thing removed. Throws (DriverError) when it cannot. */
  remove(record: ProviderRecord): Promise<string[]>;
  /** One line per run whose leftovers no record of this checkout names: never touched, only reported. */
  unrecorded(records: ProviderRecord[], wanted: (runId: string) => boolean): Promise<string[]>;
}
