// Exactly what a run executes, in order, for --dry-run: the provider's setup,
// the API calls and waits, each step with the health checks after it, the
// teardown. Pure: built from the same argv builders the run uses.
import type { ClientSettle, ExecStep, Experiment, StepDef, TopologyView } from '../../experiment/types.ts';
import type { ClusterAccess } from '../kubectl/access.ts';
import { apiGetLine } from '../kubectl/api-get.ts';
import * as k from '../kubectl/commands.ts';
import type { DeclaredObjects } from '../kubectl/manifest-objects.ts';
import { KUBE_PROXY_METRICS } from '../kubectl/proxy-sync.ts';
import type { NodeProvider } from '../provider/node-provider.ts';
import { conntrackDeleteTo } from './earlier-run.ts';
import { healthEndpointsOf } from './health.ts';
import { asksApiItself, inNetns, KUBE_PROXY_MODE, PODS_PATH, probeOf, probesOf } from './kube-io.ts';

export interface ClusterPlan {
  setup: string[][];
  steps: Array<{ step: StepDef; node: string; argvs: string[][] }>;
  teardown: string[][];
}

export function clusterPlan(
  experiment: Experiment,
  objects: DeclaredObjects,
  provider: Pick<NodeProvider, 'plan' | 'nodeArgv' | 'probeArgv' | 'podNetnsPlaceholder' | 'agentHealthz' | 'reuses'>,
  access: ClusterAccess,
  manifestFile: (manifest: string) => string,
  view: TopologyView,
): ClusterPlan {
  const t = access.target;
  const own = provider.plan();
  const nodes = experiment.cluster.nodes;
  const controlPlane = nodes.find((n) => n.role === 'control-plane')!.name;
  // A reused cluster: what the run before left, removed (earlier-run.ts); its ports and addresses are known only then.
  const earlier = provider.reuses
    ? [
        k.kubectlGetServices(t),
        ...[...experiment.manifests].reverse().map((m) => k.kubectlDeleteManifest(t, manifestFile(m))),
        ...nodes.flatMap((n) => [
          provider.nodeArgv(n.name, conntrackDeleteTo({ port: '<each node port of the earlier run>' })),
          provider.nodeArgv(n.name, conntrackDeleteTo({ address: '<each cluster IP of the earlier run>' })),
        ]),
      ]
    : [];
  const setup = [
    ...own.setup,
    ...earlier,
    k.kubectlGetServiceAccount(t, 'default', 'default'),
    ...experiment.manifests.map((m) => k.kubectlApply(t, manifestFile(m))),
    k.kubectlWaitNodesReady(t),
    ...objects.pods.map((p) => k.kubectlWaitPodReady(t, p.namespace, p.name)),
    ...objects.workloads.map((w) => k.kubectlRolloutStatus(t, w.kind, w.namespace, w.name)),
    k.kubectlGetNodes(t),
    k.kubectlGetPods(t),
    k.kubectlGetServices(t),
    k.kubectlGetEndpointSlices(t),
    ...nodes.map((n) => provider.nodeArgv(n.name, probeOf(KUBE_PROXY_METRICS))),
    ...objects.services
      .filter((s) => s.healthCheck)
      .map((s) => provider.nodeArgv(experiment.client, k.healthCheckProbe(`<${s.name}.endpointNode.ip>`, `<${s.name}.healthCheckNodePort>`))),
    k.kubectlVersion(t),
    ...nodes.map((n) => provider.nodeArgv(n.name, probeOf(KUBE_PROXY_MODE))),
  ];
  const health = [
    ...nodes.map((n) => provider.probeArgv(n.name, probesOf(healthEndpointsOf(provider, experiment, n.name).map((e) => e.url)))),
    // Asked by the capture's own process where kubectl would talk to the API from this machine (KubeIo.podsNow).
    asksApiItself(t) ? apiGetLine(PODS_PATH) : k.kubectlGetPods(t),
  ];
  // A step as it runs: on its node, or in its pod's network namespace there.
  const entered = (step: ExecStep) => {
    const command = step.command(view);
    return provider.nodeArgv(step.node, step.pod === undefined ? command : inNetns(provider.podNetnsPlaceholder(step.node, step.pod), command));
  };
  // A client's step run again until a delete or a recreate shows (every poll, the same argv).
  const client = (settle: ClientSettle) => {
    const probe = experiment.steps.find((s) => s.id === settle.step);
    return probe?.kind === 'exec' ? [entered(probe)] : [];
  };
  // After a step changed the pods on a client's word: the rules settled again before the next step.
  const settled = [
    k.kubectlGetPods(t),
    k.kubectlGetServices(t),
    k.kubectlGetEndpointSlices(t),
    ...nodes.map((n) => provider.nodeArgv(n.name, probeOf(KUBE_PROXY_METRICS))),
  ];
  const steps = experiment.steps.map((step) => ({
    step,
    node: step.kind === 'exec' ? step.node : 'host',
    argvs: [
      ...(step.kind === 'exec'
        ? [entered(step)]
        : step.kind === 'delete-pod'
          ? [
              k.kubectlDeletePod(t, step.namespace, step.pod),
              ...('settleClient' in step
                ? client(step.settleClient)
                : [provider.nodeArgv(experiment.client, k.healthCheckProbe(`<${step.settleNode}.ip>`, `<${step.settleService}.healthCheckNodePort>`))]),
            ]
          : [k.kubectlApplyStdin(t), k.kubectlWaitPodReady(t, step.namespace, step.pod), ...client(step.settleClient)]),
      ...(step.kind !== 'exec' && 'settleClient' in step ? settled : []),
      ...health,
    ],
  }));
  return { setup, steps, teardown: own.teardown };
}
