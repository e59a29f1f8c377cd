// The boundary between the capture engine (which steps, in what order, where the
// snapshots go) and an environment that can run them (a kind cluster, the lab).
import type { Experiment, Topology } from '../experiment/types.ts';

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

/** One command as it ran. A non-zero exit code is a result, not an error. */
export interface ExecOutcome {
  /** The argv exactly as executed on this machine (e.g. docker exec ... or ip netns exec ...). */
  argv: string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The streams' bytes as they came, when the driver kept them (the snapshot stores these, not the decoded text). */
  stdoutBytes?: Uint8Array;
  stderrBytes?: Uint8Array;
  startedAt: string;
  durationMs: number;
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

export interface Driver {
  readonly name: 'kind' | 'lab';
  /** The run's description of itself, in both languages; never a mode or version it did not report. */
  environment(run: RunIdentity): DriverEnvironment;
  /**
   * Fails at once with a PrerequisiteError naming what is missing and how to get it,
   * also what `experiment` (a variant) needs that this driver or machine cannot give.
   */
  preflight(experiment?: Experiment): Promise<void>;
  /** Versions as the tools report them, keyed by tool. */
  versions(): Promise<Record<string, string>>;
  /** Cluster or lab up, manifests applied, backend ready; returns what it found. */
  up(experiment: Experiment, ctx: DriverContext): Promise<Topology>;
  /** The argv that runs `command` on `node` (for --dry-run and for exec). */
  execArgv(node: string, command: string[]): string[];
  exec(node: string, command: string[], ctx: DriverContext): Promise<ExecOutcome>;
  /** Deletes the pod, then waits (bounded) until `settleNode`'s health check reports 0 local endpoints. */
  deletePod(
    step: { pod: string; namespace: string; settleNode: string; settleService: string },
    ctx: DriverContext,
  ): Promise<ExecOutcome & { command: string[] }>;
  /**
   * After the steps: the environment is still the one up() brought up (no node stopped or
   * restarted). A run whose environment broke under it is no measurement: this throws a
   * DriverError naming what broke, and the capture keeps the previous snapshots.
   */
  verifyIntact?(ctx: DriverContext): Promise<void>;
  /** Removes everything this driver created (unless kept). Idempotent; safe after a partial up(). */
  down(ctx: { log: (line: string) => void }): Promise<void>;
  /** The ordered setup and teardown argvs for --dry-run, one per entry. */
  plan(experiment: Experiment): { setup: string[][]; teardown: string[][] };
  /** The argvs deletePod would run, for --dry-run (placeholders where values come from the run). */
  planDeletePod?(step: { pod: string; namespace: string; settleNode: string; settleService: string }): string[][];
}
