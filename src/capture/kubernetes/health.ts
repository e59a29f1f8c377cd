// Between steps and at the end: every component alive and answering, every Pod
// that was Ready still Ready, not replaced and not restarted. Anything else is
// what broke, one phrase each: a broken run is no measurement.
import type { Experiment } from '../../experiment/types.ts';
import { firstLine, seconds, text } from '../process.ts';
import * as k from '../kubectl/commands.ts';
import { parsePodList, podChanges, type KubePod } from '../kubectl/topology.ts';
import type { ProviderContext } from '../provider/node-provider.ts';
import { CONTROL_PLANE_HEALTHZ, KUBE_PROXY_HEALTHZ, probeOf, type KubeIo } from './kube-io.ts';

const frozen = (exitCode: number | null) => (exitCode === 28 ? ': no answer within 2 s, frozen?' : '');

/** What broke since the reading: the provider's word first, then kube-proxy's and the control plane's probes, then the Pods (all three asked at once). */
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
    io.kubectl(k.kubectlGetPods(io.access.target), io.timeouts.quickMs, 'read the pods (health check)', ctx, false),
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
    if (pods.exitCode !== 0)
      problems.push(
        `the API server did not list the pods (${pods.timedOut ? `no answer within ${seconds(io.timeouts.quickMs)}` : firstLine(text(pods.stderr))})`,
      );
    else problems.push(...podChanges(readPods, parsePodList(text(pods.stdout)), deleted));
  }
  if (problems.length > 0 && fromProvider.length === 0) {
    // A probe that failed is often the first sign of a component that died meanwhile: the provider's word names the cause.
    const cause = await io.provider.problems(ctx);
    if (cause.length > 0) problems = cause;
  }
  return problems;
}

/** kube-proxy's /healthz on every node and the control plane's /healthz, all at once, each bounded. */
async function componentProblems(io: KubeIo, experiment: Experiment, ctx: ProviderContext): Promise<string[]> {
  const probes: Promise<string | null>[] = experiment.cluster.nodes.map(async (node) => {
    const run = await io.onNode(node.name, probeOf(KUBE_PROXY_HEALTHZ), io.timeouts.quickMs, ctx);
    return run.exitCode === 0 ? null : `kube-proxy on ${node.name} did not answer ${KUBE_PROXY_HEALTHZ} (curl exit ${run.exitCode}${frozen(run.exitCode)})`;
  });
  const controlPlane = experiment.cluster.nodes.find((n) => n.role === 'control-plane')!.name;
  for (const [component, url] of CONTROL_PLANE_HEALTHZ) {
    probes.push(
      (async () => {
        const run = await io.onNode(controlPlane, probeOf(url, true), io.timeouts.quickMs, ctx);
        return run.exitCode === 0 && text(run.stdout).trim() === 'ok'
          ? null
          : `${component} on ${controlPlane} did not answer ${url} with ok (curl exit ${run.exitCode}${frozen(run.exitCode)})`;
      })(),
    );
  }
  return (await Promise.all(probes)).filter((p): p is string => p !== null);
}
