// The boundary between the capture engine (which steps, in what order, where the
// snapshots go) and a node provider that can host them (a kind cluster, the lab).
import type { EnvironmentName, Experiment } from '../experiment/types.ts';
import type { StandInDecision } from '../evidence/schema.ts';

export type { StandInDecision };
import type { KubectlTarget } from './kubectl/commands.ts';
import type { KubeNode } from './kubectl/topology.ts';
import type { ProcessResult } from './process.ts';
import type { ProviderRecord } from './run-registry.ts';

/** A missing prerequisite: the CLI prints `message` as one line and exits 2. */
export class PrerequisiteError extends Error {
  override name = 'PrerequisiteError';
}

/**
 * This driver, on this machine, cannot run a variant of the experiment at all (kube-proxy's
 * ipvs mode on a kernel without IPVS). Named, the variant fails the capture; left to the
 * default (every variant), it is skipped with this one line and the others run.
 */
export class VariantUnsupported extends PrerequisiteError {
  override name = 'VariantUnsupported';
}

/** The environment failed (cluster creation, a namespace, a manifest): the run aborts. */
export class DriverError extends Error {
  override name = 'DriverError';
}

export interface DriverContext {
  signal: AbortSignal;
  /** Progress of long setup work ("creating cluster kx-main ..."), one line each. */
  log: (line: string) => void;
}

/** A sentence in each language of the site: the page shows the reader's. */
export interface Localized {
  zh: string;
  en: string;
}

export interface DriverEnvironment {
  /** One sentence: what ran the experiment. */
  summary: Localized;
  /** What it stands in for. */
  standsFor: Localized;
  /** What this run was not or did not verify, the largest limit first. */
  limits: Localized[];
}

/** What a run found out about itself that its description names (from the versions the tools reported). */
export interface RunIdentity {
  /** kube-proxy's mode as kube-proxy reported it (the experiment's when it could not be asked). */
  kubeProxyMode: string;
  /** The version the API server reported ("v1.37.2"), or null when it was not asked. */
  kubernetesVersion: string | null;
}

/** How kubectl reaches a cluster's API: known before up(), so a dry run prints the same argvs. */
export interface ApiAccess {
  target: KubectlTarget;
  /** Where kubectl runs, and with what environment (the capture's kubeconfig, never the user's). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The file `kubectl apply` reads for a manifest of the experiment (a copy with images substituted); the article's own by default. */
  manifestFile?: (manifest: string) => string;
}

/** The bound of one command on a node. */
export interface ExecLimits {
  timeoutMs: number;
  /** How many bytes of each stream to keep (the snapshot's limit, and a little more, for a step). */
  keepBytes?: number;
}

/**
 * A node provider, as kind's own providers are: it brings the nodes up (with an
 * API server to register with), runs an argv on a node under a time limit, and
 * takes the nodes down. Everything above that (manifests, waits, versions that
 * the cluster reports, pod deletion, health, the plan) lives once in
 * src/capture/cluster/. The CLI calls a provider a driver (--driver kind|lab).
 */
export interface NodeProvider {
  readonly name: EnvironmentName;
  /** The run's description of itself, in both languages; never a mode or version it did not report. */
  environment(run: RunIdentity): DriverEnvironment;
  /**
   * Fails at once with a PrerequisiteError naming what is missing and how to get it,
   * also what `experiment` (a variant) needs that this provider or machine cannot give.
   */
  preflight(experiment?: Experiment): Promise<void>;
  /** How kubectl reaches this experiment's cluster. */
  api(experiment: Experiment): ApiAccess;
  /** The nodes up and registered with a serving API server; the experiment's manifests are the cluster's to apply. */
  up(experiment: Experiment, ctx: DriverContext): Promise<void>;
  /** The argv that runs `command` on `node` (what exec runs, and what a dry run prints). */
  nodeArgv(node: string, command: string[]): string[];
  /**
   * Runs `command` on `node` under the limits. A non-zero exit or a timeout is the
   * command's result; the node itself failing under it (a stopped container, a dead
   * component) is a DriverError.
   */
  exec(node: string, command: string[], limits: ExecLimits, ctx: DriverContext): Promise<ProcessResult>;
  /** Checks that the nodes the API reports are this provider's own (kind: the capture's owner label). */
  checkNodes?(nodes: KubeNode[]): void;
  /** The provider's own versions and facts: its tools, node image, engine (read once the nodes are up). */
  facts(nodes: KubeNode[], ctx: DriverContext): Promise<Record<string, string>>;
  /**
   * What broke in the environment since up() (a component exited, a node container
   * stopped or restarted): one phrase each, empty while it is whole. Bounded in time.
   */
  problems(ctx: DriverContext): Promise<string[]>;
  /**
   * What the provider's stand-in decided or read while the run was up (the lab kubelet's
   * node fields, hostnames, probe cadence, stop sequence). Asked after the last step,
   * before down(); absent when nothing stands in.
   */
  standIn?(ctx: DriverContext): Promise<StandInDecision[]>;
  /** Removes everything this provider created (unless kept). Idempotent; safe after a partial up(). */
  down(ctx: { log: (line: string) => void }): Promise<void>;
  /** The provider's own setup and teardown argvs, for --dry-run, in the order up() and down() run them. */
  plan(experiment: Experiment): { setup: string[][]; teardown: string[][] };
}

/**
 * What a provider's killed runs left behind, found only by the records its runs wrote
 * (run-registry.ts): the capture's recovery asks each provider through this, and knows
 * nothing of namespaces or containers itself.
 */
export interface ProviderLeftovers {
  /** The records it answers for: a record's `kind`. */
  readonly kind: ProviderRecord['kind'];
  /** Removes what the dead run recorded; one line per thing removed. Throws (DriverError) when it cannot. */
  remove(record: ProviderRecord): Promise<string[]>;
  /** One line per run whose leftovers no record of this checkout names: never touched, only reported. */
  unrecorded(records: ProviderRecord[], wanted: (runId: string) => boolean): Promise<string[]>;
}
