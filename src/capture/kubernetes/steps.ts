// The experiment's steps on the cluster: a command on a node (or in a pod's network
// namespace there) under its time limit, its bytes kept as the snapshot; or a pod
// deleted or created again and the time until that took effect, as kube-proxy's
// health check or a client saw it, which is itself a measurement.
import { readFileSync } from 'node:fs';
import type { ClientSettle, DeletePodStep, ExecStep, PodRef, RecreatePodStep, Topology, TopologyView } from '../../experiment/types.ts';
import { DEFAULT_STEP_TIMEOUT_MS } from '../../experiment/types.ts';
import type { StepSnapshot } from '../../evidence/schema.ts';
import { STREAM_LIMIT_BYTES, storedFields, storeStreamHead } from '../../evidence/raw-stream.ts';
import { seconds, text, type ProcessResult } from '../machine/process.ts';
import { parseLocalEndpoints } from '../kubectl/api-output.ts';
import * as k from '../kubectl/commands.ts';
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
import { inNetns, type KubeIo } from './kube-io.ts';

/** A step keeps what its snapshot stores, and one byte more to tell a cut stream. */
const STEP_KEEP_BYTES = STREAM_LIMIT_BYTES + 1;

export async function execStep(io: KubeIo, step: ExecStep, view: TopologyView, topology: Topology, ctx: ProviderContext): Promise<StepSnapshot> {
  const command = step.command(view);
  const limit = step.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  const entered = step.pod === undefined ? command : await inPodNetwork(io, { ...step, pod: step.pod }, topology, command, ctx);
  const run = await io.provider.exec(step.node, entered, { timeoutMs: limit, keepBytes: STEP_KEEP_BYTES }, ctx);
  if (run.canceled) throw new DriverError(`interrupted while: step ${step.id}`);
  if (run.exitCode === null) throw new DriverError(`step ${step.id}: could not run \`${run.argv.join(' ')}\`: ${run.spawnError ?? 'it did not start'}`);
  if (run.timedOut && step.onTimeout !== 'record') {
    throw new DriverError(
      `step ${step.id} on ${step.node} did not finish within ${seconds(limit)} (\`${command.join(' ')}\`): a step that may take longer declares timeoutMs, or onTimeout: 'record'`,
    );
  }
  const pod = step.pod === undefined ? {} : { pod: podName(step.pod) };
  return { id: step.id, kind: step.kind, node: step.node, ...pod, title: step.title, command, ...stepOutcome(run) };
}

const podName = (pod: PodRef) => `${pod.namespace}/${pod.name}`;

/**
 * `command` entered into the network namespace the node's runtime made for the step's pod: the
 * node's own program, with the pod's interfaces, routes and address. The pod must run on the
 * step's node, where the manifests place it.
 */
async function inPodNetwork(io: KubeIo, step: ExecStep & { pod: PodRef }, topology: Topology, command: string[], ctx: ProviderContext): Promise<string[]> {
  const pod = topology.pods.find((p) => p.name === step.pod.name && p.namespace === step.pod.namespace);
  if (pod === undefined) throw new DriverError(`step ${step.id}: pod ${podName(step.pod)} is not among the run's pods (the manifests declare it?)`);
  if (pod.node !== step.node) throw new DriverError(`step ${step.id}: pod ${podName(step.pod)} runs on ${pod.node}, not on ${step.node} as the step says`);
  const netns = await io.provider.podNetns(step.node, step.pod, ctx);
  return inNetns(netns, command);
}

/**
 * `kubectl delete pod --wait=true`, then, until the deletion has taken effect, kube-proxy's health
 * check on `settleNode` (0 local endpoints) or a client's step run again (`settleClient`). That
 * wait is itself a measurement: the step records how long it took and the answer that ended it.
 */
export async function deletePod(
  io: KubeIo,
  step: DeletePodStep,
  topology: Topology,
  client: string,
  rerun: ClientProbe,
  ctx: ProviderContext,
): Promise<StepSnapshot> {
  const service = 'settleService' in step ? topology.services.find((s) => s.name === step.settleService) : undefined;
  if ('settleService' in step) {
    if (!service) throw new DriverError(`delete-pod step ${step.id}: settleService "${step.settleService}" is not among the run's services`);
    if (service.healthCheckNodePort === null)
      throw new DriverError(
        `delete-pod step ${step.id}: settleService "${step.settleService}" has no healthCheckNodePort (only LoadBalancer + Local gets one)`,
      );
  }
  ctx.log(`deleting pod ${step.namespace}/${step.pod}`);
  const limit = step.timeoutMs ?? io.timeouts.deletePodMs;
  const deleting = () => io.kubectl(k.kubectlDeletePod(io.access.target, step.namespace, step.pod), limit, `delete pod ${step.namespace}/${step.pod}`, ctx);
  const what = `after deleting pod ${step.namespace}/${step.pod}`;
  const outcome = { id: step.id, kind: step.kind, node: 'host', title: step.title, command: k.deletePodCommand(step.namespace, step.pod) };
  if ('settleClient' in step) {
    // The client asks from the moment the delete is sent: `kubectl delete --wait` returns only once the
    // pod is gone, long after its endpoint left the rules, so the wait counts from the delete's start.
    ctx.log(`asking again, as step ${step.settleClient.step}, until it ${step.settleClient.until === 'answered' ? 'is answered' : 'fails'}`);
    const stop = new AbortController();
    const pollCtx = { ...ctx, signal: AbortSignal.any([ctx.signal, stop.signal]) };
    const issuedAt = performance.now();
    const polling = pollClient(io, step.settleClient, rerun, pollCtx, what);
    const run = await deleting().catch((error: unknown) => {
      stop.abort();
      polling.catch(() => {});
      throw error;
    });
    const { kept, untilMs, lastUnchangedMs } = clientWait(issuedAt, await polling);
    return { ...outcome, ...stepOutcome(run), settle: { ...kept, afterDeleteStartMs: untilMs, lastUnchangedMs } };
  }
  const run = await deleting();
  const deletedAt = performance.now();
  ctx.log(`waiting for ${step.settleService}'s health check on ${step.settleNode} to report 0 local endpoints`);
  const { answeredAt, ...kept } = await pollHealthCheck(
    io,
    client,
    topology,
    step.settleNode,
    service!.healthCheckNodePort!,
    (n) => n === 0,
    ctx,
    `${what}, ${step.settleService}'s health check on ${step.settleNode}`,
  );
  return { ...outcome, ...stepOutcome(run), settle: { ...kept, afterDeleteMs: elapsedMs(deletedAt, answeredAt) } };
}

/**
 * `kubectl apply` of the manifest that declares the pod, `kubectl wait` until the API says it is
 * Ready, then a client's step run again until its answer shows it; the wait after Ready is the
 * measurement, recorded with the step.
 */
export async function recreatePod(io: KubeIo, step: RecreatePodStep, manifestFile: string, rerun: ClientProbe, ctx: ProviderContext): Promise<StepSnapshot> {
  ctx.log(`creating pod ${step.namespace}/${step.pod} again from ${step.manifest}`);
  const limit = step.timeoutMs ?? io.timeouts.kubectlMs;
  let manifest: string;
  try {
    manifest = readFileSync(manifestFile, 'utf8');
  } catch (error) {
    throw new DriverError(`recreate-pod step ${step.id}: cannot read ${step.manifest} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  // On stdin: the argv the snapshot keeps names no path of this machine.
  const run = await io.kubectl(k.kubectlApplyStdin(io.access.target), limit, `apply ${step.manifest} again`, ctx, true, manifest);
  ctx.log(`waiting for pod ${step.namespace}/${step.pod} to be Ready`);
  await io.kubectl(
    k.kubectlWaitPodReady(io.access.target, step.namespace, step.pod),
    io.timeouts.waitMs,
    `wait for pod ${step.namespace}/${step.pod} to be Ready`,
    ctx,
  );
  const readyAt = performance.now();
  const { kept, untilMs, lastUnchangedMs } = clientWait(
    readyAt,
    await pollClient(io, step.settleClient, rerun, ctx, `after pod ${step.namespace}/${step.pod} was Ready again`),
  );
  return {
    id: step.id,
    kind: step.kind,
    node: 'host',
    title: step.title,
    command: ['kubectl', 'apply', '-f', step.manifest],
    ...stepOutcome(run),
    settle: { ...kept, afterReadyMs: untilMs, lastUnchangedMs },
  };
}

const elapsedMs = (from: number, to: number) => Math.round((to - from) * 1000) / 1000;

/** A client's step run once more, as it ran: the command, its exit code and what it printed. */
export type ClientProbe = (step: string, ctx: ProviderContext) => Promise<{ command: string[]; exitCode: number; stdout: string; stderr: string }>;

/**
 * Runs a client's step again every poll until it answers (exit 0) or fails (any other exit), as
 * `settle.until` asks. The change came between the start of the last probe that did not show it
 * (`lastUnchangedAt`, null when the first probe showed it) and the return of the first that did.
 */
async function pollClient(io: KubeIo, settle: ClientSettle, rerun: ClientProbe, ctx: ProviderContext, what: string) {
  let polls = 0;
  let last: Awaited<ReturnType<ClientProbe>> | null = null;
  let answeredAt = 0;
  let lastUnchangedAt: number | null = null;
  await io.poll(
    async () => {
      const startedAt = performance.now();
      last = await rerun(settle.step, ctx);
      polls += 1;
      answeredAt = performance.now();
      const changed = (last.exitCode === 0) === (settle.until === 'answered');
      if (!changed) lastUnchangedAt = startedAt;
      return changed;
    },
    ctx,
    `${what}, step ${settle.step} (until it ${settle.until === 'answered' ? 'is answered' : 'fails'})`,
    () => `still ${last?.exitCode === 0 ? 'answered' : `failed (exit ${last?.exitCode})`}`,
  );
  const { command, exitCode, stdout, stderr } = last!;
  return { command, polls, answer: stdout || stderr, exitCode, answeredAt, lastUnchangedAt: lastUnchangedAt as number | null };
}

/** The bracket of a client's wait, in ms from `origin`: the change came after `lastUnchangedMs` (0 when the first probe showed it). */
const clientWait = (origin: number, wait: Awaited<ReturnType<typeof pollClient>>) => {
  const { answeredAt, lastUnchangedAt, ...kept } = wait;
  return { kept, untilMs: elapsedMs(origin, answeredAt), lastUnchangedMs: lastUnchangedAt === null ? 0 : elapsedMs(origin, lastUnchangedAt) };
};

/**
 * Polls kube-proxy's health check on `node`, from the client node, until `accept` holds for
 * its localEndpoints. A refused or timed-out probe is simply "not yet".
 */
export async function pollHealthCheck(
  io: KubeIo,
  client: string,
  topology: Topology,
  node: string,
  port: number,
  accept: (n: number) => boolean,
  ctx: ProviderContext,
  what: string,
) {
  const ip = topology.nodes.find((n) => n.name === node)?.internalIP;
  if (!ip) throw new DriverError(`${what}: no node "${node}" in the run's topology`);
  const command = k.healthCheckProbe(ip, String(port));
  let last = 'no answer yet';
  let polls = 0;
  let answer = '';
  let answeredAt = 0;
  await io.poll(
    async () => {
      const run = await io.onNode(client, command, io.timeouts.quickMs, ctx);
      polls += 1;
      const body = text(run.stdout);
      const count = parseLocalEndpoints(body);
      last = count === null ? `no health-check answer (curl exit ${run.exitCode})` : `localEndpoints=${count}`;
      answer = body;
      answeredAt = performance.now();
      return count !== null && accept(count);
    },
    ctx,
    `${what} (http://${ip}:${port}/)`,
    () => `still reported ${last}`,
  );
  return { command, polls, answer, answeredAt };
}

/** A finished process as a step snapshot keeps it: the streams' bytes (raw-stream.ts), the time limit when it hit one. */
export function stepOutcome(run: ProcessResult): Omit<StepSnapshot, 'id' | 'kind' | 'node' | 'title' | 'command'> {
  const stream = (s: ProcessResult['stdout']) => storeStreamHead(s.head, s.bytes > STREAM_LIMIT_BYTES ? { bytes: s.bytes, sha256: s.sha256 } : null);
  return {
    argv: run.argv,
    // A run without an exit code never started, and never reaches a snapshot (judged(), execStep).
    exitCode: run.exitCode!,
    ...(run.timedOut ? { timedOut: true as const } : {}),
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    ...storedFields(stream(run.stdout), stream(run.stderr)),
  };
}
