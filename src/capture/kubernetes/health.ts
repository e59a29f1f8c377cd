// Between steps and at the end: every component alive and answering, every Pod
// that was Ready still Ready, not replaced and not restarted. Anything else is
// what broke, one phrase each: a broken run is no measurement.
import type { Experiment } from '../../experiment/types.ts';
import { text, waitUntil } from '../machine/process.ts';
import { parsePodList, podChanges, type KubePod } from '../kubectl/topology.ts';
import type { NodeProvider, ProviderContext } from '../provider/node-provider.ts';
import { CONTROL_PLANE_HEALTHZ, KUBE_PROXY_HEALTHZ, parseProbeAnswers, probesOf, type KubeIo, type ProbeAnswer } from './kube-io.ts';

const frozen = (exitCode: number | null) => (exitCode === 28 ? ': no answer within 2 s, frozen?' : '');

/** What broke since the reading: the provider's word first, then the nodes' health endpoints, then the Pods (all three asked at once). */
export async function clusterProblems(
  io: KubeIo,
  experiment: Experiment,
  readPods: KubePod[],
  deleted: ReadonlySet<string>,
  ctx: ProviderContext,
): Promise<string[]> {
  // The provider, the components and the API server's list of pods asked at once (each bounded), and read
  // in that order, as if asked one after the other: a probe on a node that stopped fails, and the provider's
  // word on it comes first; the pods count once both found nothing. Asked one after another, the check
  // between two steps took the sum of the three, and a capture has a check after every step.
  const [providerSaid, componentsSaid, podsSaid] = await Promise.allSettled([
    io.provider.problems(ctx),
    componentProblems(io, experiment, ctx),
    io.podsNow(ctx),
  ]);
  if (providerSaid.status === 'rejected') throw providerSaid.reason;
  const fromProvider = providerSaid.value;
  let problems = [...fromProvider];
  if (problems.length === 0) {
    if (componentsSaid.status === 'rejected') throw componentsSaid.reason;
    problems.push(...componentsSaid.value);
  }
  if (problems.length === 0) {
    if (podsSaid.status === 'rejected') throw podsSaid.reason;
    const pods = podsSaid.value;
    if ('failed' in pods) problems.push(`the API server did not list the pods (${pods.failed})`);
    else problems.push(...podChanges(readPods, parsePodList(pods.json), deleted));
  }
  if (problems.length > 0 && fromProvider.length === 0) {
    // A probe that failed is often the first sign of a component or node going away: the provider's word names the
    // cause. Where a node's probe did not even run (its exec failed), the provider may need a moment to see the node
    // stop (docker reports a killed container as running until its process has exited): its word is awaited, bounded.
    const nodeGone = componentsSaid.status === 'fulfilled' && componentsSaid.value.some((p) => p.includes(NODE_EXEC_FAILED));
    let cause: string[] = [];
    await waitUntil(async () => (cause = await io.provider.problems(ctx)).length > 0, nodeGone ? PROVIDER_WORD_MS : 0, 200, ctx.signal);
    if (cause.length > 0) problems = cause;
  }
  return problems;
}

/** What the health check asks on `node`: the provider's node agents, kube-proxy, and on the control plane its components (component, URL, whether the body must be ok). */
export function healthEndpointsOf(
  provider: Pick<NodeProvider, 'agentHealthz' | 'controlPlaneHealthz'>,
  experiment: Experiment,
  node: string,
): HealthEndpoint[] {
  const controlPlane = experiment.cluster.nodes.find((n) => n.role === 'control-plane')!.name;
  return [
    ...provider.agentHealthz.map(([component, url]) => ({ component, url, ok: true })),
    { component: 'kube-proxy', url: KUBE_PROXY_HEALTHZ, ok: false },
    ...(node === controlPlane && provider.controlPlaneHealthz !== false ? CONTROL_PLANE_HEALTHZ.map(([component, url]) => ({ component, url, ok: true })) : []),
  ];
}

export interface HealthEndpoint {
  component: string;
  url: string;
  /** A /healthz answering 200 and ok when healthy; false for kube-proxy's, which answers with its sync state: any answer is alive. */
  ok: boolean;
}

/** How long the health check waits for the provider's word on a node whose probe could not run. */
const PROVIDER_WORD_MS = 5000;
/** The phrase of a node whose probe did not run at all (no line from curl): the node's exec failed. */
const NODE_EXEC_FAILED = 'the health probe could not run on';

/**
 * One node's answers judged, one phrase per endpoint that failed. `whole` is the exit of the command on
 * the node: with no line from curl at all, the probe did not run there (the node's exec failed). Pure.
 */
export function endpointProblems(node: string, endpoints: HealthEndpoint[], answers: Map<string, ProbeAnswer>, whole: number | null): string[] {
  if (answers.size === 0 && whole !== 0) return [`${NODE_EXEC_FAILED} ${node} (${whole === null ? 'its exec gave no exit code' : `its exec exited ${whole}`})`];
  return endpoints.flatMap(({ component, url, ok }) => {
    const answer = answers.get(url);
    if (answer === undefined) return [`${component} on ${node}: curl printed no line for ${url}`];
    if (answer.curlExit === 0 && (!ok || answer.status === 200)) return [];
    const why = answer.curlExit === 0 ? `HTTP ${answer.status}` : `curl exit ${answer.curlExit}${frozen(answer.curlExit)}`;
    return [`${component} on ${node} did not answer ${url}${ok ? ' with ok' : ''} (${why})`];
  });
}

/** Every node's health endpoints, one curl per node, all nodes at once, each bounded. */
async function componentProblems(io: KubeIo, experiment: Experiment, ctx: ProviderContext): Promise<string[]> {
  // Nothing can be asked on a node the cluster refused the run: the provider's word and the pods remain.
  if (io.provider.nodesRefused) return [];
  const perNode = experiment.cluster.nodes.map(async (node) => {
    const endpoints = healthEndpointsOf(io.provider, experiment, node.name);
    const run = await io.probeNode(node.name, probesOf(endpoints.map((e) => e.url)), io.timeouts.quickMs, ctx);
    return endpointProblems(node.name, endpoints, parseProbeAnswers(text(run.stdout)), run.exitCode);
  });
  return (await Promise.all(perNode)).flat();
}
