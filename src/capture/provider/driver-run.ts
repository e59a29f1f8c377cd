// One run's driver, as the Kubernetes platform above it sees it: the node
// provider, and what the nodes' own bootstrap (kind's kubeadm, the lab's
// components) gives the platform: how kubectl reaches the API, the run's
// description, and what a stand-in decided.
import type { Experiment } from '../../experiment/types.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import type { StandInDecision } from '../../evidence/schema.ts';
import type { RunEnvironment, RunIdentity } from '../../i18n/run-environment.ts';
import type { ClusterAccess } from '../kubectl/access.ts';
import type { KubeNode } from '../kubectl/topology.ts';
import type { NodeProvider, ProviderContext, ProviderLeftovers } from './node-provider.ts';

export interface DriverRun {
  provider: NodeProvider;
  /** How kubectl reaches the API server the nodes' bootstrap started. */
  access: ClusterAccess;
  /** The run's description of itself, in both languages; never a mode or version it did not report. Asked while the run is up, before down(). */
  describe(run: RunIdentity): RunEnvironment;
  /**
   * What the stand-in decided or read while the run was up (the lab kubelet's node fields,
   * kind's kindnetd stand-in): asked after the last step, before down(); absent when nothing stands in.
   */
  standIn?(ctx: ProviderContext): Promise<StandInDecision[]>;
  /** Facts this driver reads from the API's nodes (kind: the container runtime its kubelets report), once they are Ready. */
  apiFacts?(nodes: readonly KubeNode[]): Record<string, string>;
}

/** What every driver's factory is given for one run. */
export interface RunSettings {
  runId: string;
  /** The article folder; the experiment's manifest paths are relative to it. */
  articleDir: string;
  /** The project's root (kind keeps its state under it). */
  root: string;
  /** --keep: leave the nodes up after the run. */
  keep: boolean;
  /** The Kubernetes release the run measures: the nodes run its binaries (the lab's build, kind's node image). */
  kubernetes: KubeRelease;
  /** The values of the flags only this driver takes (experiment/drivers.ts), by name; absent when not given. */
  flags: Readonly<Record<string, string | boolean | undefined>>;
}

/** A driver as the registry (src/capture/session/drivers.ts) holds it: one folder's public face. */
export interface CaptureDriver {
  /** One run's driver for one experiment (a variant already chosen). */
  create(experiment: Experiment, run: RunSettings): DriverRun;
  /** What its killed runs may leave, for recovery and --clean. */
  leftovers: ProviderLeftovers;
}
