// From nodes that are up to a cluster ready to measure: the manifests applied
// once the default ServiceAccount exists, the nodes and the declared Pods and
// workloads Ready, the topology read as the API allocated it, and kube-proxy
// caught up with every Service's endpoints before any step measures its rules.
import type { Experiment, Topology } from '../../experiment/types.ts';
import { text } from '../machine/process.ts';
import { judged } from '../machine/checked-run.ts';
import { refusalLine } from '../kubectl/api-output.ts';
import * as k from '../kubectl/commands.ts';
import type { DeclaredObjects } from '../kubectl/manifest-objects.ts';
import { endpointsBehind, KUBE_PROXY_METRICS, notSynced, parseEndpointSlices, parseProxySync } from '../kubectl/proxy-sync.ts';
import {
  healthChecksToAwait,
  nodesNotAsProvided,
  notReadyText,
  parseNodeList,
  parsePodList,
  parseServiceList,
  selects,
  toNodeInfos,
  toPodInfos,
  namingOf,
  toServiceInfos,
  workloadPods,
  type KubeNode,
  type KubePod,
  type KubeService,
} from '../kubectl/topology.ts';
import { DriverError, type ProvidedNode, type ProviderContext } from '../provider/node-provider.ts';
import { probeOf, type KubeIo } from './kube-io.ts';
import { pollHealthCheck } from './steps.ts';

/** What the API reported once everything was ready, kept for the later reads. */
export interface ClusterReading {
  topology: Topology;
  nodes: KubeNode[];
  pods: KubePod[];
}

/** The API server refused to create one of the experiment's objects (admission, RBAC): nothing of it can be measured there. */
export class ApiRefused extends DriverError {
  override name = 'ApiRefused';
}

/** Applies the manifests in order, once the default ServiceAccount exists (Pods are refused before it does). */
export async function applyManifests(io: KubeIo, experiment: Experiment, manifestFile: (m: string) => string, ctx: ProviderContext): Promise<void> {
  ctx.log('waiting for the default ServiceAccount (Pods are refused before it exists)');
  const argv = k.kubectlGetServiceAccount(io.access.target, 'default', 'default');
  await io.poll(
    async () => (await io.kubectl(argv, io.timeouts.kubectlMs, 'read the default ServiceAccount', ctx, false)).exitCode === 0,
    ctx,
    'the default ServiceAccount in namespace default',
  );
  for (const manifest of experiment.manifests) {
    ctx.log(`applying ${manifest}`);
    const applied = await io.kubectl(k.kubectlApply(io.access.target, manifestFile(manifest)), io.timeouts.kubectlMs, `apply ${manifest}`, ctx, false);
    if (applied.exitCode === 0) continue;
    const refused = refusalLine(text(applied.stderr));
    if (refused !== null) throw new ApiRefused(`the API server refused what ${manifest} creates: ${refused}`);
    judged(applied, `apply ${manifest}`, io.timeouts.kubectlMs);
  }
}

/**
 * Waits for the nodes and the declared Pods to be Ready, reads nodes, pods and Services as the
 * API allocated them (checking the nodes are the ones the provider brought up), then waits until
 * kube-proxy has every Service's endpoints in its rules and reports each ready Pod of a Service
 * with a health check as a local endpoint on its node.
 */
export async function readWhenReady(
  io: KubeIo,
  experiment: Experiment,
  objects: DeclaredObjects,
  provided: readonly ProvidedNode[],
  ctx: ProviderContext,
): Promise<ClusterReading> {
  const t = io.access.target;
  const { timeouts } = io;
  ctx.log('waiting for the nodes to be Ready');
  await io.kubectl(k.kubectlWaitNodesReady(t), timeouts.waitMs, 'wait for the nodes to be Ready', ctx);
  for (const pod of objects.pods) {
    ctx.log(`waiting for pod ${pod.namespace}/${pod.name} to be Ready`);
    await explainingPods(
      io,
      io.kubectl(k.kubectlWaitPodReady(t, pod.namespace, pod.name), timeouts.waitMs, `wait for pod ${pod.namespace}/${pod.name}`, ctx),
      (p) => p.namespace === pod.namespace && p.name === pod.name,
      ctx,
    );
  }
  for (const w of objects.workloads) {
    ctx.log(`waiting for ${w.kind} ${w.namespace}/${w.name} to roll out`);
    await explainingPods(
      io,
      io.kubectl(k.kubectlRolloutStatus(t, w.kind, w.namespace, w.name), timeouts.waitMs, `wait for ${w.kind} ${w.namespace}/${w.name} to roll out`, ctx),
      (p) => p.namespace === w.namespace && selects(w.selector, p.labels),
      ctx,
    );
  }
  ctx.log('reading nodes, pods and services from the API');
  // One after the other, in the plan's order (a dry run lists them so).
  const nodesJson = await io.kubectl(k.kubectlGetNodes(t), timeouts.kubectlMs, 'read the nodes', ctx);
  const podsJson = await io.kubectl(k.kubectlGetPods(t), timeouts.kubectlMs, 'read the pods', ctx);
  const servicesJson = await io.kubectl(k.kubectlGetServices(t), timeouts.kubectlMs, 'read the services', ctx);
  let reading: ClusterReading;
  let services: KubeService[];
  try {
    const nodes = parseNodeList(text(nodesJson.stdout));
    const naming = namingOf(provided);
    const foreign = nodesNotAsProvided(nodes, provided, experiment.cluster.name);
    if (foreign.length > 0) throw new DriverError(foreign.join('; '));
    const pods = parsePodList(text(podsJson.stdout));
    services = parseServiceList(text(servicesJson.stdout));
    reading = {
      nodes,
      pods,
      topology: {
        nodes: toNodeInfos(nodes, experiment.cluster, naming),
        pods: toPodInfos(pods, [...objects.pods, ...objects.workloads.flatMap((w) => workloadPods(pods, w))], naming),
        services: toServiceInfos(services, objects.services),
      },
    };
  } catch (error) {
    if (error instanceof DriverError) throw error;
    throw new DriverError((error as Error).message);
  }
  await awaitProxySync(io, experiment, reading.pods, services, objects, ctx);
  // Every wait below reads a node; without the nodes no step runs either.
  if (io.provider.nodesRefused) return reading;
  for (const wait of healthChecksToAwait(reading.pods, services, objects.services, namingOf(provided))) {
    ctx.log(`waiting for kube-proxy on ${wait.node} to report ${wait.service}'s ${wait.endpoints} local endpoint(s)`);
    await pollHealthCheck(
      io,
      experiment.client,
      reading.topology,
      wait.node,
      wait.port,
      (n) => n >= wait.endpoints,
      ctx,
      `before the steps, ${wait.service}'s health check on ${wait.node}`,
    );
  }
  return reading;
}

/**
 * After a step deleted or created a pod: the pods and Services read again, then until the
 * EndpointSlices list the ready pods and kube-proxy on every node has synced them, so that the
 * steps after it see the rules settled, not a moment of the change. Returns the pods as read.
 */
export async function awaitRulesSettled(io: KubeIo, experiment: Experiment, objects: DeclaredObjects, ctx: ProviderContext): Promise<KubePod[]> {
  const t = io.access.target;
  const podsJson = await io.kubectl(k.kubectlGetPods(t), io.timeouts.kubectlMs, 'read the pods', ctx);
  const servicesJson = await io.kubectl(k.kubectlGetServices(t), io.timeouts.kubectlMs, 'read the services', ctx);
  let pods: KubePod[];
  let services: KubeService[];
  try {
    pods = parsePodList(text(podsJson.stdout));
    services = parseServiceList(text(servicesJson.stdout));
  } catch (error) {
    throw new DriverError((error as Error).message);
  }
  await awaitProxySync(io, experiment, pods, services, objects, ctx);
  return pods;
}

/**
 * Until every declared Service's EndpointSlices list exactly its ready Pods (the controller
 * writes them as the Pods become ready), then until kube-proxy on every node has no change
 * pending and no sync queued: its rules then hold every Service's endpoints. (074's lab test
 * caught worker2 without s-cluster's rules, 075's capture s-cluster without one of its pods.)
 */
async function awaitProxySync(
  io: KubeIo,
  experiment: Experiment,
  pods: KubePod[],
  services: KubeService[],
  objects: DeclaredObjects,
  ctx: ProviderContext,
): Promise<void> {
  ctx.log("waiting for every Service's EndpointSlices to list its ready pods");
  let behind: string[] = [];
  await io.poll(
    async () => {
      const slices = await io.kubectl(k.kubectlGetEndpointSlices(io.access.target), io.timeouts.kubectlMs, 'read the EndpointSlices', ctx);
      behind = endpointsBehind(objects.services, services, pods, parseEndpointSlices(text(slices.stdout)));
      return behind.length === 0;
    },
    ctx,
    "every Service's EndpointSlices",
    () => `still behind (${behind.join('; ')})`,
  );
  const refused = io.provider.nodesRefused;
  if (refused) return ctx.log(`not waiting for kube-proxy on the nodes to sync them: ${refused}`);
  for (const node of experiment.cluster.nodes) {
    ctx.log(`waiting for kube-proxy on ${node.name} to sync those endpoints`);
    let why = 'no answer yet';
    await io.poll(
      async () => {
        const run = await io.onNode(node.name, probeOf(KUBE_PROXY_METRICS), io.timeouts.quickMs, ctx);
        if (run.exitCode !== 0) {
          why = `no metrics (curl exit ${run.exitCode})`;
          return false;
        }
        try {
          why = notSynced(parseProxySync(text(run.stdout), `${node.name}: ${KUBE_PROXY_METRICS}`)) ?? '';
        } catch (error) {
          throw new DriverError((error as Error).message);
        }
        return why === '';
      },
      ctx,
      `kube-proxy's sync on ${node.name}`,
      () => `still had ${why}`,
    );
  }
}

/**
 * A wait for Pods that failed says why they are not Ready (each waiting container's reason and
 * image, read from the API then), not only that kubectl's wait timed out.
 */
async function explainingPods<T>(io: KubeIo, wait: Promise<T>, wanted: (pod: KubePod) => boolean, ctx: ProviderContext): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    if (!(error instanceof DriverError) || ctx.signal.aborted) throw error;
    const pods = await io.kubectl(k.kubectlGetPods(io.access.target), io.timeouts.kubectlMs, 'read the pods', ctx, false);
    let why: string;
    try {
      why = pods.exitCode === 0 ? notReadyText(parsePodList(text(pods.stdout)), wanted) : `the pods could not be read (kubectl exited ${pods.exitCode})`;
    } catch (parse) {
      why = `the pods could not be read (${(parse as Error).message})`;
    }
    throw new DriverError(`${why} (${error.message})`);
  }
}
