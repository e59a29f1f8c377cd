// The capture engine: bring the environment up, run the experiment's steps in
// order, stage their raw output, swap the snapshots in only when every step has
// run, and always take the environment down again.
import type { Experiment, StepDef, Topology } from '../../experiment/types.ts';
import type { RunSnapshot, StepSnapshot } from '../../evidence/schema.ts';
import { SNAPSHOT_SCHEMA_VERSION } from '../../evidence/schema.ts';
import type { RunIdentity } from '../../i18n/run-environment.ts';
import type { DriverRun } from '../provider/driver-run.ts';
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
import { Cluster } from '../kubernetes/cluster.ts';
import { openStaging, type Staging } from '../snapshots/snapshot-writer.ts';
import { topologyView } from './topology-view.ts';
import { defaultVariant, experimentForVariant } from '../../experiment/variants.ts';
import { minorOf, type KubeRelease } from '../../experiment/kubernetes.ts';

export interface CaptureReporter {
  /** A setup or teardown phase ("creating namespaces ..."). */
  phase(line: string): void;
  stepStarted(step: StepDef, index: number, total: number, node: string): void;
  stepFinished(snapshot: StepSnapshot, index: number, total: number): void;
}

export interface CaptureInput {
  experiment: Experiment;
  /** The run's driver (the CLI's --driver): its node provider and how kubectl reaches their API. */
  driver: DriverRun;
  /** The article folder; the experiment's manifest paths are relative to it. */
  articleDir: string;
  /** The Kubernetes release the run is to measure: a cluster that reports another minor is no measurement of it. */
  kubernetes: Pick<KubeRelease, 'minor' | 'release'>;
  /** The snapshots folder to replace (content/articles/<slug>/snapshots, or --out). */
  target: string;
  runId: string;
  signal: AbortSignal;
  reporter: CaptureReporter;
  git: RunSnapshot['git'];
  host: RunSnapshot['host'];
  now?: () => Date;
  /** Asked right before the swap: whether the target is still what the capture may replace. */
  mayReplace?: () => boolean;
  /**
   * Leave the complete run staged and hand back its swap: a capture of several
   * variants swaps them in only once every variant has run.
   */
  deferSwap?: boolean;
}

export interface CaptureResult {
  run: RunSnapshot;
  steps: StepSnapshot[];
  target: string;
  /** With deferSwap: swaps the staged run in, or removes it (the target stays as it was). */
  staged?: Staging;
}

export class CaptureAborted extends Error {
  override name = 'CaptureAborted';
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new CaptureAborted('the capture was interrupted');
}

/** The node a step's output is attributed to: its own node, or `host` for driver actions. */
export function stepNode(step: StepDef): string {
  return step.kind === 'exec' ? step.node : 'host';
}

/** The phase line that opens the steps: everything before it set the environment up, everything after it until the teardown is the experiment. */
export const STEPS_PHASE_WORDS = "running the experiment's";
export function stepsPhase(total: number): string {
  return `${STEPS_PHASE_WORDS} ${total} steps`;
}
export const STEPS_PHASE_LINE = new RegExp(`^· ${STEPS_PHASE_WORDS} \\d+ steps$`);
export const TEARDOWN_PHASE_LINE = /^· taking the .+ environment down$/;

export async function runCapture(input: CaptureInput): Promise<CaptureResult> {
  const { driver, signal, reporter } = input;
  // An experiment with variants that reaches here whole runs as its default variant.
  const experiment = input.experiment.variants ? experimentForVariant(input.experiment, defaultVariant(input.experiment)) : input.experiment;
  const now = input.now ?? (() => new Date());
  const ctx: ProviderContext = { signal, log: (line) => reporter.phase(line) };
  const startedAt = now();
  // Before the staging folder: an experiment the provider refuses leaves nothing to remove.
  const cluster = new Cluster(driver, experiment, { articleDir: input.articleDir });
  const staging = await openStaging(input.target, input.runId, input.mayReplace);
  const steps: StepSnapshot[] = [];
  let committed = false;
  let failure: Error | null = null;

  try {
    throwIfAborted(signal);
    const topology = await cluster.up(ctx);
    throwIfAborted(signal);
    // After up(): the server, node image and in-node tool versions exist only then.
    const versions = await cluster.versions(ctx);
    const reported = versions['kubernetes'] ?? '';
    if (minorOf(reported) !== input.kubernetes.minor)
      throw new DriverError(
        `the API server reports Kubernetes ${reported || 'no version'}, the run was to measure ${input.kubernetes.release}: this run is no measurement of it`,
      );
    // A cluster kept from another variant (--reuse) runs the mode it was made with: its answers are that mode's.
    const mode = versions['kube-proxy-mode'];
    if (mode !== undefined && mode !== experiment.cluster.kubeProxyMode)
      throw new DriverError(`kube-proxy reports mode ${mode}, the run was to measure ${experiment.cluster.kubeProxyMode}: this run is no measurement of it`);
    const view = topologyView(topology);
    await cluster.checkHealthy(ctx, 'before the first step');
    // Every step runs on a node or needs kube-proxy's rules, awaited on each node: where the nodes were refused, none runs.
    const refused = driver.provider.nodesRefused ?? null;
    const toRun = refused === null ? experiment.steps : [];
    reporter.phase(refused === null ? stepsPhase(toRun.length) : `no step runs: ${refused}`);

    for (const [index, step] of toRun.entries()) {
      throwIfAborted(signal);
      reporter.stepStarted(step, index, experiment.steps.length, stepNode(step));
      const snapshot = await cluster.runStep(step, view, ctx);
      throwIfAborted(signal);
      // A step's answer means nothing if the cluster broke under it.
      await cluster.checkHealthy(ctx, `during step ${step.id}`);
      await staging.writeStep(snapshot);
      steps.push(snapshot);
      reporter.stepFinished(snapshot, index, experiment.steps.length);
    }

    throwIfAborted(signal);
    // Before down(): the stand-in's decisions are read from the environment while it is still there.
    const environment = await cluster.describe(runIdentity(experiment, versions, topology), ctx);
    const finishedAt = now();
    const run = runSnapshot({ ...input, experiment }, environment, topology, versions, startedAt, finishedAt, toRun);
    await staging.writeRun(run);
    throwIfAborted(signal);
    if (input.deferSwap) {
      committed = true;
      return { run, steps, target: input.target, staged: staging };
    }
    await staging.commit();
    committed = true;
    return { run, steps, target: input.target };
  } catch (error) {
    // A driver interrupted by the signal reports it in its own words; the CLI needs to know it was an interrupt.
    failure =
      signal.aborted && !(error instanceof CaptureAborted) ? new CaptureAborted(`the capture was interrupted (${(error as Error).message})`) : (error as Error);
    throw failure;
  } finally {
    if (!committed) await staging.discard();
    reporter.phase(`taking the ${driver.provider.name} environment down`);
    try {
      await cluster.down({ log: ctx.log });
    } catch (downError) {
      // What broke the run comes first; a teardown that failed after it is added, never put in its place.
      if (failure === null) throw downError;
      throw new DriverError(`${failure.message}; then taking the ${driver.provider.name} environment down failed too: ${(downError as Error).message}`);
    }
  }
}

/** The mode and version a run's description names: what kube-proxy and the API server reported. */
export function runIdentity(
  experiment: Experiment,
  versions: Readonly<Record<string, string>>,
  topology: Pick<Topology, 'services'>,
): Omit<RunIdentity, 'nodes'> {
  return {
    kubeProxyMode: versions['kube-proxy-mode'] ?? experiment.cluster.kubeProxyMode,
    kubernetesVersion: versions['kubernetes'] ?? null,
    loadBalancers: topology.services.filter((s) => s.type === 'LoadBalancer').length,
  };
}

function runSnapshot(
  input: CaptureInput,
  environment: RunSnapshot['environment'],
  topology: Topology,
  versions: Record<string, string>,
  startedAt: Date,
  finishedAt: Date,
  ran: readonly StepDef[],
): RunSnapshot {
  const { experiment, driver } = input;
  return {
    schema: SNAPSHOT_SCHEMA_VERSION,
    slug: experiment.slug,
    runId: input.runId,
    driver: driver.provider.name,
    environment,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    git: input.git,
    host: input.host,
    versions,
    cluster: {
      name: experiment.cluster.name,
      kubeProxyMode: experiment.cluster.kubeProxyMode,
      podSubnet: experiment.cluster.podSubnet,
      serviceSubnet: experiment.cluster.serviceSubnet,
    },
    nodes: topology.nodes,
    pods: topology.pods,
    services: topology.services,
    steps: ran.map((s) => s.id),
  };
}
