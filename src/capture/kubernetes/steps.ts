// The experiment's steps on the cluster: a command on a node under its time
// limit, its bytes kept as the snapshot; or a pod deleted and the time until
// kube-proxy's health check noticed, which is itself a measurement.
import type { DeletePodStep, ExecStep, Topology, TopologyView } from '../../experiment/types.ts';
import { DEFAULT_STEP_TIMEOUT_MS } from '../../experiment/types.ts';
import type { StepSnapshot } from '../../evidence/schema.ts';
import { STREAM_LIMIT_BYTES, storedFields, storeStreamHead } from '../../evidence/raw-stream.ts';
import { seconds, text, type ProcessResult } from '../process.ts';
import { parseLocalEndpoints } from '../kubectl/api-output.ts';
import * as k from '../kubectl/commands.ts';
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
import type { KubeIo } from './kube-io.ts';

/** A step keeps what its snapshot stores, and one byte more to tell a cut stream. */
const STEP_KEEP_BYTES = STREAM_LIMIT_BYTES + 1;

export async function execStep(io: KubeIo, step: ExecStep, view: TopologyView, ctx: ProviderContext): Promise<StepSnapshot> {
  const command = step.command(view);
  const limit = step.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
  const run = await io.provider.exec(step.node, command, { timeoutMs: limit, keepBytes: STEP_KEEP_BYTES }, ctx);
  if (run.canceled) throw new DriverError(`interrupted while: step ${step.id}`);
  if (run.exitCode === null) throw new DriverError(`step ${step.id}: could not run \`${run.argv.join(' ')}\`: ${run.spawnError ?? 'it did not start'}`);
  if (run.timedOut && step.onTimeout !== 'record') {
    throw new DriverError(
      `step ${step.id} on ${step.node} did not finish within ${seconds(limit)} (\`${command.join(' ')}\`): a step that may take longer declares timeoutMs, or onTimeout: 'record'`,
    );
  }
  return { id: step.id, kind: step.kind, node: step.node, title: step.title, command, ...stepOutcome(run) };
}

/**
 * `kubectl delete pod --wait=true`, then kube-proxy's health check on `settleNode`
 * until it reports 0 local endpoints. That wait is itself a measurement: the step
 * records how long it took and what kube-proxy answered, poll by poll.
 */
export async function deletePod(io: KubeIo, step: DeletePodStep, topology: Topology, client: string, ctx: ProviderContext): Promise<StepSnapshot> {
  const service = topology.services.find((s) => s.name === step.settleService);
  if (!service) throw new DriverError(`delete-pod step ${step.id}: settleService "${step.settleService}" is not among the run's services`);
  if (service.healthCheckNodePort === null) {
    throw new DriverError(`delete-pod step ${step.id}: settleService "${step.settleService}" has no healthCheckNodePort (only LoadBalancer + Local gets one)`);
  }
  ctx.log(`deleting pod ${step.namespace}/${step.pod}`);
  const limit = step.timeoutMs ?? io.timeouts.deletePodMs;
  const run = await io.kubectl(k.kubectlDeletePod(io.access.target, step.namespace, step.pod), limit, `delete pod ${step.namespace}/${step.pod}`, ctx);
  const deletedAt = performance.now();
  ctx.log(`waiting for ${step.settleService}'s health check on ${step.settleNode} to report 0 local endpoints`);
  const settle = await pollHealthCheck(
    io,
    client,
    topology,
    step.settleNode,
    service.healthCheckNodePort,
    (n) => n === 0,
    ctx,
    `after deleting pod ${step.namespace}/${step.pod}, ${step.settleService}'s health check on ${step.settleNode}`,
  );
  return {
    id: step.id,
    kind: step.kind,
    node: 'host',
    title: step.title,
    command: k.deletePodCommand(step.namespace, step.pod),
    ...stepOutcome(run),
    settle: {
      command: settle.command,
      polls: settle.polls,
      afterDeleteMs: Math.round((settle.answeredAt - deletedAt) * 1000) / 1000,
      answer: settle.answer,
    },
  };
}

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
