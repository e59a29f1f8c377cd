// The cluster above a node provider, once for both: apply the experiment's
// manifests with the real kubectl, wait for what the experiment needs, read
// the topology as the API allocated it, run the steps under their time limits,
// delete a pod and time how long kube-proxy takes to notice, read the versions
// the cluster reports, check between steps that nothing died, froze or
// restarted, and print exactly this as a plan for --dry-run. The providers
// differ only below: how nodes come to exist and how a command runs on one.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DeletePodStep, ExecStep, Experiment, StepDef, Topology, TopologyView } from '../../experiment/types.ts';
import { DEFAULT_STEP_TIMEOUT_MS } from '../../experiment/types.ts';
import type { StepSnapshot } from '../../evidence/schema.ts';
import { STREAM_LIMIT_BYTES, storedFields, storeStreamHead } from '../../evidence/raw-stream.ts';
import {
  DriverError,
  type ApiAccess,
  type DriverContext,
  type DriverEnvironment,
  type NodeProvider,
  type RunIdentity,
  type StandInDecision,
} from '../driver.ts';
import { judged } from '../checked-run.ts';
import { firstLine, runProcess, seconds, sleep, text, type ProcessResult } from '../process.ts';
import { agreedValue, parseKubectlVersion, parseLocalEndpoints, parseProxyMode } from '../kubectl/api-output.ts';
import * as k from '../kubectl/commands.ts';
import { declaredObjects, type DeclaredObjects } from '../kubectl/manifest-objects.ts';
import {
  healthChecksToAwait,
  notReadyText,
  parseNodeList,
  parsePodList,
  parseServiceList,
  podChanges,
  selects,
  toNodeInfos,
  toPodInfos,
  toServiceInfos,
  workloadPods,
  type KubeNode,
  type KubePod,
} from '../kubectl/topology.ts';

/** Upper bounds of the API calls and waits, in milliseconds. */
export interface ApiTimeouts {
  /** single reads, version checks, health probes */
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

export const DEFAULT_API_TIMEOUTS: ApiTimeouts = {
  quickMs: 15_000,
  kubectlMs: 60_000,
  waitMs: 150_000,
  deletePodMs: 90_000,
  settlePollMs: 100,
  settleTimeoutMs: 30_000,
};

/** Twice kube-proxy's minSyncPeriod (1 s, kind's and the lab's). */
const WORKLOAD_SETTLE_MS = 2000;
/** kube-proxy's own health server (healthzBindAddress, kubeadm's default port) and metrics server. */
const KUBE_PROXY_HEALTHZ = 'http://127.0.0.1:10256/healthz';
const KUBE_PROXY_MODE = 'http://127.0.0.1:10249/proxyMode';
/** The control plane's secure health endpoints, bound to the node's loopback by kubeadm and by the lab. */
const CONTROL_PLANE_HEALTHZ: [string, string][] = [
  ['kube-controller-manager', 'https://127.0.0.1:10257/healthz'],
  ['kube-scheduler', 'https://127.0.0.1:10259/healthz'],
];
/** A step keeps what its snapshot stores, and one byte more to tell a cut stream. */
const STEP_KEEP_BYTES = STREAM_LIMIT_BYTES + 1;

/** What the API reported once everything was ready, kept for the later reads. */
export interface ClusterReading {
  topology: Topology;
  nodes: KubeNode[];
  pods: KubePod[];
}

/** A probe answered with the body text or the reason it did not answer. */
const probeOf = (url: string, insecure = false): string[] => ['curl', '--silent', '--max-time', '2', ...(insecure ? ['--insecure'] : []), url];

export class Cluster {
  readonly provider: NodeProvider;
  readonly experiment: Experiment;
  private readonly articleDir: string;
  private readonly access: ApiAccess;
  private readonly timeouts: ApiTimeouts;
  private objects: DeclaredObjects | null = null;
  private reading: ClusterReading | null = null;
  /** Pods a step deleted on purpose: the health check does not miss them. */
  private readonly deleted = new Set<string>();

  constructor(provider: NodeProvider, experiment: Experiment, options: { articleDir: string; timeouts?: Partial<ApiTimeouts> }) {
    this.provider = provider;
    this.experiment = experiment;
    this.articleDir = options.articleDir;
    this.timeouts = { ...DEFAULT_API_TIMEOUTS, ...options.timeouts };
    this.access = provider.api(experiment);
  }

  /** The provider's description of the run, with what its stand-in decided when one ran (asked before down()). */
  async describe(run: RunIdentity, ctx: DriverContext): Promise<DriverEnvironment & { standIn?: StandInDecision[] }> {
    const environment = this.provider.environment(run);
    const standIn = (await this.provider.standIn?.(ctx)) ?? [];
    return standIn.length > 0 ? { ...environment, standIn } : environment;
  }

  /** The manifests' names: which Pods to wait for, which Pods and Services to read back. */
  declared(): DeclaredObjects {
    if (this.objects !== null) return this.objects;
    const files = this.experiment.manifests.map((m) => {
      const path = resolve(this.articleDir, m);
      try {
        return { file: m, text: readFileSync(path, 'utf8') };
      } catch (error) {
        throw new DriverError(`article.ts experiment.manifests: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    });
    try {
      this.objects = declaredObjects(files);
    } catch (error) {
      throw new DriverError((error as Error).message);
    }
    return this.objects;
  }

  // --- up ---------------------------------------------------------------------

  /** Nodes up (the provider), manifests applied, every declared Pod Ready and kube-proxy synced; returns what the API allocated. */
  async up(ctx: DriverContext): Promise<Topology> {
    const objects = this.declared();
    await this.provider.up(this.experiment, ctx);
    await this.apply(ctx);
    this.reading = await this.readWhenReady(objects, ctx);
    return this.reading.topology;
  }

  private manifestFile(manifest: string): string {
    return this.access.manifestFile?.(manifest) ?? resolve(this.articleDir, manifest);
  }

  /** Applies the manifests in order, once the default ServiceAccount exists (Pods are refused before it does). */
  private async apply(ctx: DriverContext): Promise<void> {
    ctx.log('waiting for the default ServiceAccount (Pods are refused before it exists)');
    const argv = k.kubectlGetServiceAccount(this.access.target, 'default', 'default');
    await this.poll(
      async () => (await this.kubectl(argv, this.timeouts.kubectlMs, 'read the default ServiceAccount', ctx, false)).exitCode === 0,
      ctx,
      'the default ServiceAccount in namespace default',
    );
    for (const manifest of this.experiment.manifests) {
      ctx.log(`applying ${manifest}`);
      await this.kubectl(k.kubectlApply(this.access.target, this.manifestFile(manifest)), this.timeouts.kubectlMs, `apply ${manifest}`, ctx);
    }
  }

  /**
   * Waits for the nodes and the declared Pods to be Ready, reads nodes, pods and
   * Services as the API allocated them, then waits until kube-proxy reports each
   * ready Pod as a local endpoint on its node: its rules are then in place.
   */
  private async readWhenReady(objects: DeclaredObjects, ctx: DriverContext): Promise<ClusterReading> {
    const t = this.access.target;
    const { timeouts } = this;
    ctx.log('waiting for the nodes to be Ready');
    await this.kubectl(k.kubectlWaitNodesReady(t), timeouts.waitMs, 'wait for the nodes to be Ready', ctx);
    for (const pod of objects.pods) {
      ctx.log(`waiting for pod ${pod.namespace}/${pod.name} to be Ready`);
      await this.explainingPods(
        this.kubectl(k.kubectlWaitPodReady(t, pod.namespace, pod.name), timeouts.waitMs, `wait for pod ${pod.namespace}/${pod.name}`, ctx),
        (p) => p.namespace === pod.namespace && p.name === pod.name,
        ctx,
      );
    }
    for (const w of objects.workloads) {
      ctx.log(`waiting for ${w.kind} ${w.namespace}/${w.name} to roll out`);
      await this.explainingPods(
        this.kubectl(k.kubectlRolloutStatus(t, w.kind, w.namespace, w.name), timeouts.waitMs, `wait for ${w.kind} ${w.namespace}/${w.name} to roll out`, ctx),
        (p) => p.namespace === w.namespace && selects(w.selector, p.labels),
        ctx,
      );
    }
    ctx.log('reading nodes, pods and services from the API');
    // One after the other, in the plan's order (a dry run lists them so).
    const nodesJson = await this.kubectl(k.kubectlGetNodes(t), timeouts.kubectlMs, 'read the nodes', ctx);
    const podsJson = await this.kubectl(k.kubectlGetPods(t), timeouts.kubectlMs, 'read the pods', ctx);
    const servicesJson = await this.kubectl(k.kubectlGetServices(t), timeouts.kubectlMs, 'read the services', ctx);
    let reading: ClusterReading;
    let services;
    try {
      const nodes = parseNodeList(text(nodesJson.stdout));
      this.provider.checkNodes?.(nodes);
      const pods = parsePodList(text(podsJson.stdout));
      services = parseServiceList(text(servicesJson.stdout));
      reading = {
        nodes,
        pods,
        topology: {
          nodes: toNodeInfos(nodes, this.experiment.cluster),
          pods: toPodInfos(pods, [...objects.pods, ...objects.workloads.flatMap((w) => workloadPods(pods, w))], this.experiment.cluster.name),
          services: toServiceInfos(services, objects.services),
        },
      };
    } catch (error) {
      if (error instanceof DriverError) throw error;
      throw new DriverError((error as Error).message);
    }
    this.reading = reading;
    // A health check counts only its own Service's endpoints; the other Services' rules follow within
    // kube-proxy's minSyncPeriod of the EndpointSlices, which the controller writes as the Pods become
    // ready. Wait that long twice before any step measures them (074's lab test caught worker2 without
    // s-cluster's rules, 075's capture s-cluster without one of its pods).
    ctx.log(`letting kube-proxy sync every Service's endpoints (${seconds(WORKLOAD_SETTLE_MS)})`);
    await this.pause(WORKLOAD_SETTLE_MS, ctx, 'waiting for kube-proxy to sync');
    for (const wait of healthChecksToAwait(reading.pods, services, objects.services, this.experiment.cluster.name)) {
      ctx.log(`waiting for kube-proxy on ${wait.node} to report ${wait.service}'s ${wait.endpoints} local endpoint(s)`);
      await this.pollHealthCheck(wait.node, wait.port, (n) => n >= wait.endpoints, ctx, `before the steps, ${wait.service}'s health check on ${wait.node}`);
    }
    return reading;
  }

  /**
   * A wait for Pods that failed says why they are not Ready (each waiting container's reason and
   * image, read from the API then), not only that kubectl's wait timed out.
   */
  private async explainingPods<T>(wait: Promise<T>, wanted: (pod: KubePod) => boolean, ctx: DriverContext): Promise<T> {
    try {
      return await wait;
    } catch (error) {
      if (!(error instanceof DriverError) || ctx.signal.aborted) throw error;
      const pods = await this.kubectl(k.kubectlGetPods(this.access.target), this.timeouts.kubectlMs, 'read the pods', ctx, false);
      let why: string;
      try {
        why = pods.exitCode === 0 ? notReadyText(parsePodList(text(pods.stdout)), wanted) : `the pods could not be read (kubectl exited ${pods.exitCode})`;
      } catch (parse) {
        why = `the pods could not be read (${(parse as Error).message})`;
      }
      throw new DriverError(`${why} (${error.message})`);
    }
  }

  private requireReading(): ClusterReading {
    if (this.reading === null) throw new DriverError('the cluster has not been read yet: up() has not finished');
    return this.reading;
  }

  // --- versions ---------------------------------------------------------------

  /** Versions as the tools report them: the provider's own, the API server's and kubectl's, kube-proxy's mode from kube-proxy. */
  async versions(ctx: DriverContext): Promise<Record<string, string>> {
    const reading = this.requireReading();
    const versions = await this.provider.facts(reading.nodes, ctx);
    const kube = parseKubectlVersion(
      text((await this.kubectl(k.kubectlVersion(this.access.target), this.timeouts.quickMs, 'read the kubectl and Kubernetes versions', ctx)).stdout),
    );
    versions.kubectl = kube.client;
    if (kube.server) versions.kubernetes = kube.server;
    // kube-proxy's own answer on every node (its metrics server's /proxyMode), once when all agree.
    const modes: [string, string][] = [];
    for (const node of this.experiment.cluster.nodes) {
      const run = await this.onNode(node.name, probeOf(KUBE_PROXY_MODE), this.timeouts.quickMs, ctx);
      if (run.exitCode !== 0) throw new DriverError(`could not read kube-proxy's mode on ${node.name}: curl ${KUBE_PROXY_MODE} exited ${run.exitCode}`);
      modes.push([node.name, parseProxyMode(text(run.stdout), `${node.name}: /proxyMode`)]);
    }
    versions['kube-proxy-mode'] = agreedValue(modes);
    return versions;
  }

  // --- steps ------------------------------------------------------------------

  /** Runs one step under its time limit; what it printed, byte for byte, is the snapshot. */
  async runStep(step: StepDef, view: TopologyView, ctx: DriverContext): Promise<StepSnapshot> {
    if (step.kind === 'exec') return this.execStep(step, view, ctx);
    return this.deletePod(step, ctx);
  }

  private async execStep(step: ExecStep, view: TopologyView, ctx: DriverContext): Promise<StepSnapshot> {
    const command = step.command(view);
    const limit = step.timeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
    const run = await this.provider.exec(step.node, command, { timeoutMs: limit, keepBytes: STEP_KEEP_BYTES }, ctx);
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
  private async deletePod(step: DeletePodStep, ctx: DriverContext): Promise<StepSnapshot> {
    const topology = this.requireReading().topology;
    const service = topology.services.find((s) => s.name === step.settleService);
    if (!service) throw new DriverError(`delete-pod step ${step.id}: settleService "${step.settleService}" is not among the run's services`);
    if (service.healthCheckNodePort === null) {
      throw new DriverError(
        `delete-pod step ${step.id}: settleService "${step.settleService}" has no healthCheckNodePort (only LoadBalancer + Local gets one)`,
      );
    }
    ctx.log(`deleting pod ${step.namespace}/${step.pod}`);
    this.deleted.add(`${step.namespace}/${step.pod}`);
    const limit = step.timeoutMs ?? this.timeouts.deletePodMs;
    const run = await this.kubectl(k.kubectlDeletePod(this.access.target, step.namespace, step.pod), limit, `delete pod ${step.namespace}/${step.pod}`, ctx);
    const deletedAt = performance.now();
    ctx.log(`waiting for ${step.settleService}'s health check on ${step.settleNode} to report 0 local endpoints`);
    const settle = await this.pollHealthCheck(
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
   * Polls kube-proxy's health check from the client node until `accept` holds for
   * its localEndpoints. A refused or timed-out probe is simply "not yet".
   */
  private async pollHealthCheck(node: string, port: number, accept: (n: number) => boolean, ctx: DriverContext, what: string) {
    const ip = this.requireReading().topology.nodes.find((n) => n.name === node)?.internalIP;
    if (!ip) throw new DriverError(`${what}: no node "${node}" in the run's topology`);
    const command = k.healthCheckProbe(ip, String(port));
    let last = 'no answer yet';
    let polls = 0;
    let answer = '';
    let answeredAt = 0;
    await this.poll(
      async () => {
        const run = await this.onNode(this.experiment.client, command, this.timeouts.quickMs, ctx);
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

  // --- health -----------------------------------------------------------------

  /**
   * Between steps and at the end: every component alive and answering, every Pod
   * that was Ready still Ready, not replaced and not restarted. Anything else is a
   * DriverError naming what broke: a broken run is no measurement.
   */
  async checkHealthy(ctx: DriverContext, when: string): Promise<void> {
    const reading = this.requireReading();
    const fromProvider = await this.provider.problems(ctx);
    let problems = [...fromProvider];
    if (problems.length === 0) {
      const probes: Promise<string | null>[] = this.experiment.cluster.nodes.map(async (node) => {
        const run = await this.onNode(node.name, probeOf(KUBE_PROXY_HEALTHZ), this.timeouts.quickMs, ctx);
        return run.exitCode === 0
          ? null
          : `kube-proxy on ${node.name} did not answer ${KUBE_PROXY_HEALTHZ} (curl exit ${run.exitCode}${run.exitCode === 28 ? ': no answer within 2 s, frozen?' : ''})`;
      });
      const controlPlane = this.experiment.cluster.nodes.find((n) => n.role === 'control-plane')!.name;
      for (const [component, url] of CONTROL_PLANE_HEALTHZ) {
        probes.push(
          (async () => {
            const run = await this.onNode(controlPlane, probeOf(url, true), this.timeouts.quickMs, ctx);
            return run.exitCode === 0 && text(run.stdout).trim() === 'ok'
              ? null
              : `${component} on ${controlPlane} did not answer ${url} with ok (curl exit ${run.exitCode}${run.exitCode === 28 ? ': no answer within 2 s, frozen?' : ''})`;
          })(),
        );
      }
      problems.push(...(await Promise.all(probes)).filter((p): p is string => p !== null));
    }
    if (problems.length === 0) {
      const pods = await this.kubectl(k.kubectlGetPods(this.access.target), this.timeouts.quickMs, 'read the pods (health check)', ctx, false);
      if (pods.exitCode !== 0)
        problems.push(
          `the API server did not list the pods (${pods.timedOut ? `no answer within ${seconds(this.timeouts.quickMs)}` : firstLine(text(pods.stderr))})`,
        );
      else problems.push(...podChanges(reading.pods, parsePodList(text(pods.stdout)), this.deleted));
    }
    if (problems.length > 0 && fromProvider.length === 0) {
      // A probe that failed is often the first sign of a component that died meanwhile: the provider's word names the cause.
      const cause = await this.provider.problems(ctx);
      if (cause.length > 0) problems = cause;
    }
    if (problems.length > 0) throw new DriverError(`the cluster broke ${when} (${problems.join('; ')}): this run is no measurement`);
  }

  // --- plan -------------------------------------------------------------------

  /** Exactly what up(), the steps and down() run, in order: the provider's setup, the API calls, each step, the teardown. */
  plan(view: TopologyView): { setup: string[][]; steps: Array<{ step: StepDef; node: string; argvs: string[][] }>; teardown: string[][] } {
    const objects = this.declared();
    const t = this.access.target;
    const provider = this.provider.plan(this.experiment);
    const controlPlane = this.experiment.cluster.nodes.find((n) => n.role === 'control-plane')!.name;
    const setup = [
      ...provider.setup,
      k.kubectlGetServiceAccount(t, 'default', 'default'),
      ...this.experiment.manifests.map((m) => k.kubectlApply(t, this.manifestFile(m))),
      k.kubectlWaitNodesReady(t),
      ...objects.pods.map((p) => k.kubectlWaitPodReady(t, p.namespace, p.name)),
      ...objects.workloads.map((w) => k.kubectlRolloutStatus(t, w.kind, w.namespace, w.name)),
      k.kubectlGetNodes(t),
      k.kubectlGetPods(t),
      k.kubectlGetServices(t),
      ...objects.services
        .filter((s) => s.healthCheck)
        .map((s) => this.provider.nodeArgv(this.experiment.client, k.healthCheckProbe(`<${s.name}.endpointNode.ip>`, `<${s.name}.healthCheckNodePort>`))),
      k.kubectlVersion(t),
      ...this.experiment.cluster.nodes.map((n) => this.provider.nodeArgv(n.name, probeOf(KUBE_PROXY_MODE))),
    ];
    const health = [
      ...this.experiment.cluster.nodes.map((n) => this.provider.nodeArgv(n.name, probeOf(KUBE_PROXY_HEALTHZ))),
      ...CONTROL_PLANE_HEALTHZ.map(([, url]) => this.provider.nodeArgv(controlPlane, probeOf(url, true))),
      k.kubectlGetPods(t),
    ];
    const steps = this.experiment.steps.map((step) => ({
      step,
      node: step.kind === 'exec' ? step.node : 'host',
      argvs: [
        ...(step.kind === 'exec'
          ? [this.provider.nodeArgv(step.node, step.command(view))]
          : [
              k.kubectlDeletePod(t, step.namespace, step.pod),
              this.provider.nodeArgv(this.experiment.client, k.healthCheckProbe(`<${step.settleNode}.ip>`, `<${step.settleService}.healthCheckNodePort>`)),
            ]),
        ...health,
      ],
    }));
    return { setup, steps, teardown: provider.teardown };
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    await this.provider.down(ctx);
  }

  // --- running ----------------------------------------------------------------

  /** A command on a node through the provider; interrupts become DriverErrors, a timeout is the caller's to judge. */
  private async onNode(node: string, command: string[], timeoutMs: number, ctx: DriverContext): Promise<ProcessResult> {
    const run = await this.provider.exec(node, command, { timeoutMs }, ctx);
    if (run.canceled) throw new DriverError(`interrupted while: ${command[0]} on ${node}`);
    return run;
  }

  /** kubectl with the capture's kubeconfig; with `mustSucceed`, anything but exit 0 is a DriverError naming what and why. */
  private async kubectl(argv: string[], timeoutMs: number, what: string, ctx: DriverContext, mustSucceed = true): Promise<ProcessResult> {
    const run = await runProcess(argv, { env: this.access.env, cwd: this.access.cwd, timeoutMs, signal: ctx.signal });
    return judged(run, what, timeoutMs, mustSucceed);
  }

  private async pause(ms: number, ctx: DriverContext, what: string): Promise<void> {
    try {
      await sleep(ms, ctx.signal);
    } catch {
      throw new DriverError(`interrupted while ${what}`);
    }
  }

  /** Calls `check` every settlePollMs until it holds; past settleTimeoutMs, a DriverError names what did not happen. */
  private async poll(check: () => Promise<boolean>, ctx: DriverContext, what: string, why: () => string = () => 'did not appear'): Promise<void> {
    const { settlePollMs, settleTimeoutMs } = this.timeouts;
    const deadline = performance.now() + settleTimeoutMs;
    for (;;) {
      if (await check()) return;
      if (performance.now() >= deadline) throw new DriverError(`${what} ${why()} after ${seconds(settleTimeoutMs)}`);
      await this.pause(settlePollMs, ctx, `waiting for ${what}`);
    }
  }
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
