// One path to the Kubernetes API for both drivers: apply the experiment's
// manifests with the real kubectl, wait for what the experiment needs, read
// the topology as the API allocated it, delete a pod, and poll kube-proxy's
// health check until it has caught up. The drivers differ only below this:
// how the nodes come to exist and how a command runs on one of them.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Experiment, Topology } from '../../experiment/types.ts';
import { DriverError, type DriverContext, type ExecOutcome } from '../driver.ts';
import { parseLocalEndpoints } from './api-output.ts';
import * as k from './kubectl.ts';
import { declaredObjects, type DeclaredObjects } from './manifest-objects.ts';
import { runTool, sleep, type ToolRun } from './run-tool.ts';
import {
  healthChecksToAwait,
  parseNodeList,
  parsePodList,
  parseServiceList,
  toNodeInfos,
  toPodInfos,
  toServiceInfos,
  workloadPods,
  type KubeNode,
  type KubePod,
  type KubeService,
} from './topology.ts';

/** Upper bounds of the API calls and waits, in milliseconds. */
export interface ApiTimeouts {
  /** version checks and single reads */
  quickMs: number;
  /** `kubectl apply` and `kubectl get` */
  kubectlMs: number;
  /** `kubectl wait` (which has its own --timeout) */
  waitMs: number;
  /** `kubectl delete pod --wait=true` */
  deletePodMs: number;
  /** interval and bound of the polls (the default ServiceAccount, the health checks) */
  settlePollMs: number;
  settleTimeoutMs: number;
}

export interface ClusterSessionOptions {
  target: k.KubectlTarget;
  /** The cluster's name: Kubernetes node names are `<cluster>-<node>`. */
  cluster: string;
  /** The folder manifests' paths are relative to. */
  articleDir: string;
  /** Where every kubectl and node command runs, and with what environment. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeouts: ApiTimeouts;
  /** The argv that runs `command` on a node (docker exec, ip netns exec). */
  execArgv: (node: string, command: string[]) => string[];
  /** Logical node the health checks are asked from (the experiment's client). */
  clientNode: string;
  /** Tells the node runner's own failure from the command's (docker's "No such container"). */
  isRunnerFailure?: (stderr: string) => boolean;
  /** The file `kubectl apply` reads for a manifest of the experiment (a copy with images substituted); the article's own by default. */
  manifestFile?: (manifest: string) => string;
}

/** What the API reported once everything was ready, kept for later reads. */
export interface ClusterReading {
  topology: Topology;
  nodes: KubeNode[];
  pods: KubePod[];
  services: KubeService[];
}

/** Twice kube-proxy's minSyncPeriod. */
const WORKLOAD_SETTLE_MS = 2000;

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
export const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

export class ClusterSession {
  readonly target: k.KubectlTarget;
  private readonly options: ClusterSessionOptions;
  private reading: ClusterReading | null = null;

  constructor(options: ClusterSessionOptions) {
    this.options = options;
    this.target = options.target;
  }

  /** The manifests' names: which Pods to wait for, which Pods and Services to read back. */
  async declared(experiment: Experiment): Promise<DeclaredObjects> {
    const files = await Promise.all(
      experiment.manifests.map(async (m) => {
        const path = resolve(this.options.articleDir, m);
        try {
          return { file: m, text: await readFile(path, 'utf8') };
        } catch (error) {
          throw new DriverError(`experiment.ts manifests: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
        }
      }),
    );
    try {
      return declaredObjects(files);
    } catch (error) {
      throw new DriverError((error as Error).message);
    }
  }

  private manifestFile(manifest: string): string {
    return this.options.manifestFile?.(manifest) ?? resolve(this.options.articleDir, manifest);
  }

  /** The argvs of apply-and-read, for --dry-run. */
  planApply(experiment: Experiment, objects: DeclaredObjects): string[][] {
    const t = this.target;
    return [
      k.kubectlGetServiceAccount(t, 'default', 'default'),
      ...experiment.manifests.map((m) => k.kubectlApply(t, this.manifestFile(m))),
      k.kubectlWaitNodesReady(t),
      ...objects.pods.map((p) => k.kubectlWaitPodReady(t, p.namespace, p.name)),
      ...objects.workloads.map((w) => k.kubectlRolloutStatus(t, w.kind, w.namespace, w.name)),
      k.kubectlGetNodes(t),
      k.kubectlGetPods(t),
      k.kubectlGetServices(t),
      ...objects.services
        .filter((s) => s.healthCheck)
        .map((s) => this.options.execArgv(this.options.clientNode, k.healthCheckProbe(`<${s.name}.endpointNode.ip>`, `<${s.name}.healthCheckNodePort>`))),
    ];
  }

  /**
   * Applies the manifests in order, once the namespace's default ServiceAccount
   * exists (the ServiceAccount admission plugin refuses Pods before that).
   */
  async apply(experiment: Experiment, ctx: DriverContext): Promise<void> {
    ctx.log('waiting for the default ServiceAccount (Pods are refused before it exists)');
    await this.poll(
      async () => (await this.runRaw(k.kubectlGetServiceAccount(this.target, 'default', 'default'), this.options.timeouts.kubectlMs, 'read the default ServiceAccount', ctx)).exitCode === 0,
      ctx,
      'the default ServiceAccount in namespace default',
    );
    for (const manifest of experiment.manifests) {
      ctx.log(`applying ${manifest}`);
      await this.run(k.kubectlApply(this.target, this.manifestFile(manifest)), this.options.timeouts.kubectlMs, `apply ${manifest}`, ctx);
    }
  }

  /**
   * Waits for the nodes and the declared Pods to be Ready, reads nodes, pods and
   * Services as the API allocated them, then waits until kube-proxy reports each
   * ready Pod as a local endpoint on its node: its rules are then in place.
   */
  async readWhenReady(
    experiment: Experiment,
    objects: DeclaredObjects,
    ctx: DriverContext,
    checkNodes: (nodes: KubeNode[]) => void = () => {},
  ): Promise<ClusterReading> {
    const t = this.target;
    const { timeouts } = this.options;
    ctx.log('waiting for the nodes to be Ready');
    await this.run(k.kubectlWaitNodesReady(t), timeouts.waitMs, 'wait for the nodes to be Ready', ctx);
    for (const pod of objects.pods) {
      ctx.log(`waiting for pod ${pod.namespace}/${pod.name} to be Ready`);
      await this.run(k.kubectlWaitPodReady(t, pod.namespace, pod.name), timeouts.waitMs, `wait for pod ${pod.namespace}/${pod.name}`, ctx);
    }
    for (const w of objects.workloads) {
      ctx.log(`waiting for ${w.kind} ${w.namespace}/${w.name} to roll out`);
      await this.run(k.kubectlRolloutStatus(t, w.kind, w.namespace, w.name), timeouts.waitMs, `wait for ${w.kind} ${w.namespace}/${w.name} to roll out`, ctx);
    }
    ctx.log('reading nodes, pods and services from the API');
    // One after the other, in the plan's order (a dry run lists them so).
    const nodesJson = await this.run(k.kubectlGetNodes(t), timeouts.kubectlMs, 'read the nodes', ctx);
    const podsJson = await this.run(k.kubectlGetPods(t), timeouts.kubectlMs, 'read the pods', ctx);
    const servicesJson = await this.run(k.kubectlGetServices(t), timeouts.kubectlMs, 'read the services', ctx);
    let reading: ClusterReading;
    try {
      const nodes = parseNodeList(nodesJson.stdout);
      checkNodes(nodes);
      const pods = parsePodList(podsJson.stdout);
      const services = parseServiceList(servicesJson.stdout);
      reading = {
        nodes,
        pods,
        services,
        topology: {
          nodes: toNodeInfos(nodes, experiment.cluster),
          pods: toPodInfos(pods, [...objects.pods, ...objects.workloads.flatMap((w) => workloadPods(pods, w))], this.options.cluster),
          services: toServiceInfos(services, objects.services),
        },
      };
    } catch (error) {
      if (error instanceof DriverError) throw error;
      throw new DriverError((error as Error).message);
    }
    this.reading = reading;
    // A health check counts only its own Service's endpoints; the other Services' rules follow within
    // kube-proxy's minSyncPeriod (1 s, kind's and the lab's) of the EndpointSlices, which the controller
    // writes as the Pods become ready. Wait that long twice before any step measures them (074's lab
    // test caught worker2 without s-cluster's rules, 075's capture s-cluster without one of its pods).
    ctx.log(`letting kube-proxy sync every Service's endpoints (${seconds(WORKLOAD_SETTLE_MS)})`);
    try {
      await sleep(WORKLOAD_SETTLE_MS, ctx.signal);
    } catch {
      throw new DriverError('interrupted while waiting for kube-proxy to sync');
    }
    for (const wait of healthChecksToAwait(reading.pods, reading.services, objects.services, this.options.cluster)) {
      ctx.log(`waiting for kube-proxy on ${wait.node} to report ${wait.service}'s ${wait.endpoints} local endpoint(s)`);
      await this.pollHealthCheck(wait.node, wait.port, (n) => n >= wait.endpoints, ctx, `before the steps, ${wait.service}'s health check on ${wait.node}`);
    }
    return reading;
  }

  /** `kubectl delete pod --wait=true`, then the health check of `settleNode` until kube-proxy reports 0 local endpoints. */
  async deletePod(
    step: { pod: string; namespace: string; settleNode: string; settleService: string },
    ctx: DriverContext,
  ): Promise<ExecOutcome & { command: string[] }> {
    const topology = this.requireReading().topology;
    const service = topology.services.find((s) => s.name === step.settleService);
    if (!service) throw new DriverError(`delete-pod step: settleService "${step.settleService}" is not among the run's services`);
    if (service.healthCheckNodePort === null) {
      throw new DriverError(`delete-pod step: settleService "${step.settleService}" has no healthCheckNodePort (only LoadBalancer + Local gets one)`);
    }
    ctx.log(`deleting pod ${step.namespace}/${step.pod}`);
    const run = await this.run(k.kubectlDeletePod(this.target, step.namespace, step.pod), this.options.timeouts.deletePodMs, `delete pod ${step.namespace}/${step.pod}`, ctx);
    ctx.log(`waiting for ${step.settleService}'s health check on ${step.settleNode} to report 0 local endpoints`);
    await this.pollHealthCheck(step.settleNode, service.healthCheckNodePort, (n) => n === 0, ctx,
      `after deleting pod ${step.namespace}/${step.pod}, ${step.settleService}'s health check on ${step.settleNode}`);
    return { ...outcome(run), command: k.deletePodCommand(step.namespace, step.pod) };
  }

  planDeletePod(step: { pod: string; namespace: string; settleNode: string; settleService: string }): string[][] {
    return [
      k.kubectlDeletePod(this.target, step.namespace, step.pod),
      this.options.execArgv(this.options.clientNode, k.healthCheckProbe(`<${step.settleNode}.ip>`, `<${step.settleService}.healthCheckNodePort>`)),
    ];
  }

  /** `kubectl label node NAME key= ...` (labels with empty values, as kubeadm sets the role labels). */
  labelArgv(node: string, keys: string[]): string[] {
    return k.kubectl(this.target, 'label', 'node', node, ...keys.map((key) => `${key}=`));
  }

  createConfigMapArgv(map: { namespace: string; name: string; key: string }, file: string): string[] {
    return k.kubectl(this.target, 'create', 'configmap', map.name, '--namespace', map.namespace, `--from-file=${map.key}=${file}`);
  }

  applyArgv(file: string): string[] {
    return k.kubectlApply(this.target, file);
  }

  /** The kubectl client's and the API server's versions, as `kubectl version` reports them. */
  versionArgv(): string[] {
    return k.kubectlVersion(this.target);
  }

  requireReading(): ClusterReading {
    if (this.reading === null) throw new DriverError('the cluster has not been read yet: up() has not finished');
    return this.reading;
  }

  /**
   * Polls kube-proxy's health check from the client node until `accept` holds
   * for its localEndpoints. A refused or timed-out probe is simply "not yet".
   */
  async pollHealthCheck(node: string, port: number, accept: (n: number) => boolean, ctx: DriverContext, what: string): Promise<void> {
    const ip = this.requireReading().topology.nodes.find((n) => n.name === node)?.internalIP;
    if (!ip) throw new DriverError(`${what}: no node "${node}" in the run's topology`);
    const argv = this.options.execArgv(this.options.clientNode, k.healthCheckProbe(ip, String(port)));
    let last = 'no answer yet';
    await this.poll(
      async () => {
        const run = await this.runRaw(argv, this.options.timeouts.quickMs, what, ctx);
        if (run.exitCode !== 0 && this.options.isRunnerFailure?.(run.stderr)) {
          throw new DriverError(`${what}: ${argv[0]} failed (exit ${run.exitCode}): ${firstLine(run.stderr)}`);
        }
        const count = parseLocalEndpoints(run.stdout);
        last = count === null ? `no health-check answer (curl exit ${run.exitCode})` : `localEndpoints=${count}`;
        return count !== null && accept(count);
      },
      ctx,
      `${what} (http://${ip}:${port}/)`,
      () => `still reported ${last}`,
    );
  }

  /** Calls `check` every settlePollMs until it holds; past settleTimeoutMs, a DriverError names what did not happen. */
  private async poll(check: () => Promise<boolean>, ctx: DriverContext, what: string, why: () => string = () => 'did not appear'): Promise<void> {
    const { settlePollMs, settleTimeoutMs } = this.options.timeouts;
    const deadline = performance.now() + settleTimeoutMs;
    for (;;) {
      if (await check()) return;
      if (performance.now() >= deadline) throw new DriverError(`${what} ${why()} after ${seconds(settleTimeoutMs)}`);
      try {
        await sleep(settlePollMs, ctx.signal);
      } catch {
        throw new DriverError(`interrupted while waiting for ${what}`);
      }
    }
  }

  run(argv: string[], timeoutMs: number, what: string, ctx?: DriverContext): Promise<ToolRun> {
    return runOrThrow(argv, { env: this.options.env, cwd: this.options.cwd, timeoutMs }, what, ctx);
  }

  runRaw(argv: string[], timeoutMs: number, what: string, ctx?: DriverContext): Promise<ToolRun> {
    return runJudged(argv, { env: this.options.env, cwd: this.options.cwd, timeoutMs }, what, ctx);
  }
}

interface ToolPlace {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs: number;
  /** Text for the child's stdin. */
  input?: string;
}

/** Runs a command whose exit code is the caller's to judge; missing tools, timeouts and interrupts are DriverErrors. */
export async function runJudged(argv: string[], place: ToolPlace, what: string, ctx?: DriverContext): Promise<ToolRun> {
  if (ctx?.signal.aborted) throw new DriverError(`interrupted before: ${what}`);
  const run = await runTool(argv, {
    env: place.env,
    timeoutMs: place.timeoutMs,
    ...(place.cwd !== undefined ? { cwd: place.cwd } : {}),
    ...(place.input !== undefined ? { input: place.input } : {}),
    ...(ctx ? { signal: ctx.signal } : {}),
  });
  if (run.missing) throw new DriverError(`could not ${what}: \`${argv[0]}\` is not on PATH`);
  if (run.canceled) throw new DriverError(`interrupted while: ${what}`);
  if (run.timedOut) throw new DriverError(`could not ${what}: \`${argv.join(' ')}\` did not finish within ${seconds(place.timeoutMs)}`);
  if (run.exitCode === null) throw new DriverError(`could not ${what}: \`${argv.join(' ')}\` was killed before it exited`);
  return run;
}

/** Runs a command that must succeed; any failure is a DriverError naming what and why. */
export async function runOrThrow(argv: string[], place: ToolPlace, what: string, ctx?: DriverContext): Promise<ToolRun> {
  const run = await runJudged(argv, place, what, ctx);
  if (run.exitCode !== 0) {
    throw new DriverError(`could not ${what}: \`${argv.join(' ')}\` exited ${run.exitCode}: ${firstLine(run.stderr) || firstLine(run.stdout)}`);
  }
  return run;
}

export function outcome(run: ToolRun): ExecOutcome {
  return {
    argv: run.argv,
    // runRaw has already turned a run without an exit code into a DriverError.
    exitCode: run.exitCode!,
    stdout: run.stdout,
    stderr: run.stderr,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
  };
}
