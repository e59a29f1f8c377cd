// The `lab` driver: an experiment's cluster rebuilt from Linux network
// namespaces on this kernel (a bridge, one namespace per node and per pod),
// real nginx, curl, conntrack and iptables, with kube-proxy's iptables rules
// and health-check servers reproduced by shice.
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadManifests, ManifestError, type ManifestSet } from '../../experiment/manifests.ts';
import type { Experiment, Topology } from '../../experiment/types.ts';
import {
  DriverError,
  type Driver,
  type DriverContext,
  type DriverEnvironment,
  type ExecOutcome,
} from '../driver.ts';
import {
  allocateServices,
  buildLabLayout,
  labTopology,
  LabLayoutError,
  NODE_SUBNET,
  proxyInput,
  type LabLayout,
  type LabNode,
  type LabPod,
  type LabService,
} from './layout.ts';
import { batchInput, runIpBatch, type IpBatch } from './ip-batch.ts';
import { deleteNamespaces, listNamespaces, processStartTime, stopNamespaceProcesses, writeRunOwner } from './leftovers.ts';
import { assertRunId, BRIDGE_INTERFACE, NODE_COMPILE_CACHE_DIR, nodeNamespace, runFolder, runNamespacePrefix } from './names.ts';
import { labNetwork, namespaceBatches, namespacesBatch, netnsExec, networkCommands, networkScript, teardownCommands, type LabNetwork } from './network.ts';
import { nginxCommand, nginxConfigFiles, nginxMainConfig, nginxPaths, readinessProbeCommand } from './nginx.ts';
import { healthStateFile, nodeFolder, syncCommands, syncFiles, syncNodes } from './proxy-sync.ts';
import { readLogTail, runCommand, startDaemon, stopProcess, waitUntil, type Daemon } from './processes.ts';
import { runTogether, settleAll } from './together.ts';
import { labVersions, preflightLab } from './tools.ts';

const HEALTH_SERVER_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'health-server.ts');
const NGINX_READY_TIMEOUT_MS = 10_000;
const HEALTH_READY_TIMEOUT_MS = 5_000;
const SETTLE_TIMEOUT_MS = 10_000;
/** Kubernetes' default terminationGracePeriodSeconds before SIGKILL. */
const POD_GRACE_MS = 30_000;
const DAEMON_STOP_MS = 5_000;
/** nginx listens on 80 unless told otherwise; used when a pod declares no containerPort. */
const NGINX_DEFAULT_PORT = 80;
/**
 * How often the readiness waits look: a readiness probe or a file check costs
 * a few milliseconds, and each of these waits sits on the capture's critical path.
 */
const NGINX_PROBE_INTERVAL_MS = 10;
const HEALTH_READY_INTERVAL_MS = 5;
const SETTLE_INTERVAL_MS = 10;

export interface LabDriverOptions {
  runId: string;
  /** The article folder; manifest paths in experiment.ts are relative to it. */
  articleDir: string;
  /** Leave the lab up after down() and say how to remove it. */
  keep: boolean;
}

interface Running {
  daemon: Daemon;
  /** nginx's image stops it with SIGQUIT (graceful); kube-proxy's server stops on SIGTERM. */
  stopSignal: NodeJS.Signals;
}

function deletePodArgv(pod: LabPod): string[] {
  return ['ip', 'netns', 'del', pod.netns];
}

function healthProbe(url: string): string[] {
  return ['curl', '--silent', '--max-time', '1', url];
}

function asDriverError(error: unknown): unknown {
  if (error instanceof ManifestError || error instanceof LabLayoutError) return new DriverError(error.message);
  return error;
}

export class LabDriver implements Driver {
  readonly name = 'lab' as const;
  private readonly options: LabDriverOptions;
  private readonly folder: string;
  private layout: LabLayout | null = null;
  /** The layout plan() worked out, for planDeletePod() in a dry run. */
  private planned: LabLayout | null = null;
  private services: LabService[] = [];
  private readyPods: LabPod[] = [];
  /** Namespaces this run created, in creation order. */
  private namespaces: string[] = [];
  private running = new Map<string, Running>();
  /** Whether up() made the run folder (an existing one belongs to another run and is never removed here). */
  private folderCreated = false;
  private syncs = 0;
  /** Syncs a dry run has shown so far (the first is part of the setup). */
  private plannedSyncs = 0;
  private finished = false;
  /** The host tools' versions, asked once: up() starts asking, versions() returns the answer. */
  private versionsAsked: Promise<Record<string, string>> | null = null;

  constructor(options: LabDriverOptions) {
    assertRunId(options.runId);
    this.options = options;
    this.folder = runFolder(options.runId);
  }

  environment(): DriverEnvironment {
    return {
      summary: {
        en: 'A lab on one Linux kernel: network namespaces for a bridge, each node and each pod, wired like kind and kindnet, with real nginx, curl, conntrack and iptables.',
        zh: '一个 Linux 内核上的实验环境：用网络命名空间搭出网桥、各个节点和各个 Pod，按 kind 和 kindnet 的方式连接，nginx、curl、conntrack 和 iptables 都是真实的。',
      },
      standsFor: {
        en: 'Stands in for a 3-node kind cluster with kube-proxy in iptables mode.',
        zh: '它代替一个 3 节点的 kind 集群，kube-proxy 为 iptables 模式。',
      },
      limits: [
        {
          en: "kube-proxy did not run: its iptables rules and health-check server were reproduced by shice from kube-proxy's source.",
          zh: 'kube-proxy 本身没有运行：它的 iptables 规则和健康检查服务由 shice 按 kube-proxy 的源码复现。',
        },
        {
          en: 'There is no API server, kubelet, container runtime or Docker.',
          zh: '没有 API server、kubelet 和容器运行时，也没有 Docker。',
        },
      ],
    };
  }

  async preflight(): Promise<void> {
    preflightLab();
  }

  versions(): Promise<Record<string, string>> {
    if (this.versionsAsked === null) {
      this.versionsAsked = labVersions();
      // Reported by whoever awaits versions(); until then a failure is not an unhandled rejection.
      this.versionsAsked.catch(() => {});
    }
    return this.versionsAsked;
  }

  execArgv(node: string, command: string[]): string[] {
    const layout = this.layout ?? this.planned;
    if (layout !== null && !layout.nodes.some((n) => n.name === node)) {
      throw new DriverError(`lab: no node ${JSON.stringify(node)} (nodes: ${layout.nodes.map((n) => n.name).join(', ')})`);
    }
    return netnsExec(nodeNamespace(this.options.runId, node), command);
  }

  async exec(node: string, command: string[], ctx: DriverContext): Promise<ExecOutcome> {
    this.requireLayout();
    const result = await runCommand(this.execArgv(node, command), { signal: ctx.signal });
    return { argv: result.argv, exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, startedAt: result.startedAt, durationMs: result.durationMs };
  }

  async up(experiment: Experiment, ctx: DriverContext): Promise<Topology> {
    if (this.layout !== null || this.finished) throw new DriverError(`lab run ${this.options.runId}: up() was already called`);
    const start = performance.now();
    // Everything that can be refused is checked before anything is created.
    let layout: LabLayout;
    let topology: Topology;
    let network: LabNetwork;
    let script: IpBatch;
    try {
      const manifests = loadManifests(this.options.articleDir, experiment.manifests);
      layout = buildLabLayout(experiment, manifests, this.options.runId);
      this.services = allocateServices(manifests.services, layout.serviceSubnet, (bound) => randomInt(bound));
      topology = labTopology(layout, this.services);
      network = labNetwork(layout, NODE_SUBNET);
      script = networkScript(network, (batch) => this.batchFile(batch));
      for (const batch of [namespacesBatch(network), script, ...namespaceBatches(network)]) batchInput(batch);
    } catch (error) {
      throw asDriverError(error);
    }
    const prefix = runNamespacePrefix(this.options.runId);
    const existing = (await listNamespaces()).filter((ns) => ns.startsWith(prefix));
    if (existing.length > 0) {
      throw new DriverError(`lab run ${this.options.runId} already has namespaces (${existing.join(', ')}): remove them with npm run capture -- --driver lab --clean`);
    }
    try {
      mkdirSync(this.folder, { mode: 0o700 });
      this.folderCreated = true;
    } catch (error) {
      throw new DriverError(`lab run folder ${this.folder}: ${error instanceof Error ? error.message : String(error)}: remove it with npm run capture -- --driver lab --clean`);
    }
    this.layout = layout;
    this.recordOwner();

    const nested = new Map<string, IpBatch>();
    mkdirSync(join(this.folder, 'net'));
    for (const batch of namespaceBatches(network)) {
      writeFileSync(this.batchFile(batch), batchInput(batch));
      nested.set(this.batchFile(batch), batch);
    }
    ctx.log(`lab: namespaces for the bridge, the nodes ${layout.nodes.map((n) => n.name).join(', ')} and the pods ${layout.pods.map((p) => `${p.namespace}/${p.name}`).join(', ')}`);
    // Recorded before they exist: an interrupted `ip netns add` may still have created one.
    this.namespaces.push(...network.namespaces);
    await runIpBatch(namespacesBatch(network), { signal: ctx.signal });

    // Side by side from here. This machine's two cores are the limit: kube-proxy's health-check
    // servers (a Node start each, the slowest part) begin first and boot while one ip process
    // builds the network; then the pods, and kube-proxy's first sync once they are ready.
    await runTogether(
      [
        (signal) => this.startHealthServers(ctx, signal),
        async (signal) => {
          ctx.log(`lab: bridge ${BRIDGE_INTERFACE} for ${NODE_SUBNET}, nodes on it: ${layout.nodes.map((n) => `${n.name} ${n.internalIP}`).join(', ')}`);
          ctx.log(`lab: routes to the pod CIDRs: ${layout.nodes.map((n) => `${n.podCIDR} via ${n.name}`).join(', ')}`);
          const built = runIpBatch(script, { signal, nested });
          // The host's tools do not depend on the lab: their versions are asked while ip works
          // (after the servers' starts: starting a process blocks this one for a while).
          void this.versions();
          await built;
          await runTogether(layout.pods.map((pod) => (podSignal) => this.startPod(pod, ctx, podSignal)), signal);
          this.logServices(ctx);
          ctx.log(`lab: kube-proxy rules via iptables-restore on ${layout.nodes.map((n) => n.name).join(', ')}`);
          await this.syncAllNodes(true, signal);
        },
      ],
      ctx.signal,
    );
    ctx.signal.throwIfAborted();
    ctx.log(`lab: up in ${Math.round(performance.now() - start)} ms`);
    return topology;
  }

  async deletePod(
    step: { pod: string; namespace: string; settleNode: string; settleService: string },
    ctx: DriverContext,
  ): Promise<ExecOutcome & { command: string[] }> {
    this.requireLayout();
    const pod = this.readyPods.find((p) => p.name === step.pod && p.namespace === step.namespace);
    if (pod === undefined) throw new DriverError(`lab: no running pod ${step.namespace}/${step.pod} to delete`);
    const settleNode = this.node(step.settleNode);
    const service = this.services.find((s) => s.name === step.settleService && s.namespace === step.namespace);
    if (service === undefined || service.healthCheckNodePort === null) {
      throw new DriverError(`lab: Service ${step.namespace}/${step.settleService} has no healthCheckNodePort to wait on`);
    }

    // kubelet stops the container with the image's STOPSIGNAL (SIGQUIT for nginx), then the
    // pod's network goes; the deletion's time covers both, as `kubectl delete --wait` would.
    const startedAt = new Date().toISOString();
    const start = performance.now();
    ctx.log(`lab: deleting pod ${pod.namespace}/${pod.name}: SIGQUIT to nginx, then ip netns del`);
    await this.stopRunning(this.podKey(pod), POD_GRACE_MS);
    const deletion = await runCommand(deletePodArgv(pod), { signal: ctx.signal });
    const durationMs = performance.now() - start;
    if (deletion.exitCode !== 0) throw new DriverError(`${deletion.argv.join(' ')} exited ${deletion.exitCode}: ${deletion.stderr.trim()}`);
    this.namespaces = this.namespaces.filter((ns) => ns !== pod.netns);
    this.readyPods = this.readyPods.filter((p) => p !== pod);

    ctx.log(`lab: kube-proxy re-sync on ${this.requireLayout().nodes.map((n) => n.name).join(', ')}`);
    await this.syncAllNodes(false, ctx.signal);

    const url = `http://${settleNode.internalIP}:${service.healthCheckNodePort}/`;
    ctx.log(`lab: waiting for ${url} on ${settleNode.name} to report 0 local endpoints`);
    const settled = await waitUntil(
      async () => (await this.healthCheckCount(settleNode, url, ctx.signal)) === 0,
      SETTLE_TIMEOUT_MS,
      SETTLE_INTERVAL_MS,
      ctx.signal,
    );
    if (!settled) {
      throw new DriverError(`lab: ${url} on ${settleNode.name} did not report 0 local endpoints within ${SETTLE_TIMEOUT_MS / 1000} s after the delete`);
    }
    return {
      argv: deletion.argv,
      exitCode: deletion.exitCode,
      stdout: deletion.stdout,
      stderr: deletion.stderr,
      startedAt,
      durationMs,
      // What the lab ran in place of kubectl delete pod; nothing here pretends to be kubectl.
      command: deletion.argv,
    };
  }

  planDeletePod(step: { pod: string; namespace: string; settleNode: string; settleService: string }): string[][] {
    const layout = this.layout ?? this.planned;
    if (layout === null) throw new DriverError('lab: planDeletePod() needs plan() or up() first');
    const pod = layout.pods.find((p) => p.name === step.pod && p.namespace === step.namespace);
    if (pod === undefined) throw new DriverError(`lab: no pod ${step.namespace}/${step.pod} in the manifests`);
    const settle = layout.nodes.find((n) => n.name === step.settleNode);
    if (settle === undefined) throw new DriverError(`lab: no node ${JSON.stringify(step.settleNode)}`);
    return [
      ['kill', '-QUIT', `<pid of ${this.podKey(pod)}>`],
      deletePodArgv(pod),
      ...this.syncPlan(layout, false),
      netnsExec(settle.netns, healthProbe(`http://${settle.internalIP}:<${step.settleService}.healthCheckNodePort>/`)),
    ];
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    if (this.finished) return;
    const madeSomething = this.folderCreated || this.namespaces.length > 0 || this.running.size > 0;
    if (!madeSomething) {
      this.finished = true;
      return;
    }
    if (this.options.keep) {
      this.finished = true;
      const pids = [...this.running.values()].map((r) => `${r.daemon.pid} (${r.daemon.label})`);
      ctx.log(`lab kept: namespaces ${this.namespaces.join(', ') || 'none'}; processes ${pids.join(', ') || 'none'}; files in ${this.folder}`);
      ctx.log('lab kept: remove it with npm run capture -- --driver lab --clean');
      return;
    }
    const start = performance.now();
    let processes = 0;
    // Every process and every namespace is independent of the others: all are removed side by side.
    await settleAll(
      [...this.running.keys()].map(async (key) => {
        await this.stopRunning(key, DAEMON_STOP_MS);
        processes += 1;
      }),
    );
    const namespaces = this.namespaces.length;
    try {
      // Whatever else still runs in there (nginx's workers, a process that ignored its signal).
      processes += (await stopNamespaceProcesses(this.namespaces)).length;
      await deleteNamespaces(this.namespaces);
    } finally {
      const left = new Set(await listNamespaces());
      this.namespaces = this.namespaces.filter((ns) => left.has(ns));
    }
    if (this.folderCreated) rmSync(this.folder, { recursive: true, force: true });
    this.finished = true;
    ctx.log(`lab down: ${namespaces} namespaces and ${processes} processes removed in ${Math.round(performance.now() - start)} ms`);
  }

  plan(experiment: Experiment): { setup: string[][]; teardown: string[][] } {
    let manifests: ManifestSet;
    let layout: LabLayout;
    try {
      manifests = loadManifests(this.options.articleDir, experiment.manifests);
      layout = buildLabLayout(experiment, manifests, this.options.runId);
    } catch (error) {
      throw asDriverError(error);
    }
    this.planned = layout;
    // One line per command, in an order that works when run one by one. The capture runs the
    // same commands grouped: `ip -batch` for the namespaces, another for the network inside them
    // (each namespace's ip commands from a file of the run folder, net/*.ip), one per sync step of
    // all nodes; and independent work side by side.
    const setup: string[][] = [['mkdir', '-m', '700', this.folder]];
    setup.push(...networkCommands(labNetwork(layout, NODE_SUBNET)));
    for (const pod of layout.pods) setup.push(netnsExec(pod.netns, nginxCommand(nginxPaths(this.folder, pod))));
    this.plannedSyncs = 0;
    setup.push(...this.syncPlan(layout, true));
    const checked = manifests.services.filter((s) => s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local');
    for (const service of checked) {
      for (const node of layout.nodes) {
        setup.push(this.healthServerArgv(node, { namespace: service.namespace, name: service.name }, `<healthCheckNodePort of ${service.namespace}/${service.name}>`));
      }
    }
    const teardown: string[][] = [
      ...layout.pods.map((pod) => ['kill', '-QUIT', `<pid of nginx of ${pod.namespace}/${pod.name}>`]),
      ...checked.flatMap((s) => layout.nodes.map((n) => ['kill', '-TERM', `<pid of the ${s.namespace}/${s.name} health check on ${n.name}>`])),
      ...teardownCommands([layout.bridgeNetns, ...layout.nodes.map((n) => n.netns), ...layout.pods.map((p) => p.netns)]),
      ['rm', '-rf', this.folder],
    ];
    return { setup, teardown };
  }

  private requireLayout(): LabLayout {
    if (this.layout === null || this.finished) throw new DriverError(`lab run ${this.options.runId}: not up`);
    return this.layout;
  }

  private node(name: string): LabNode {
    const layout = this.requireLayout();
    const node = layout.nodes.find((n) => n.name === name);
    if (node === undefined) throw new DriverError(`lab: no node ${JSON.stringify(name)} (nodes: ${layout.nodes.map((n) => n.name).join(', ')})`);
    return node;
  }

  private podKey(pod: LabPod): string {
    return `nginx of ${pod.namespace}/${pod.name}`;
  }

  private recordOwner(): void {
    writeRunOwner(this.folder, {
      runId: this.options.runId,
      pid: process.pid,
      startTime: processStartTime(process.pid) ?? '',
      processes: [...this.running.values()].map((r) => ({ pid: r.daemon.pid, label: r.daemon.label })),
    });
  }

  /** Where a namespace's batch is written for the network script (`net/bridge.ip`, `net/node.worker.ip`, ...). */
  private batchFile(batch: IpBatch): string {
    const role = (batch.netns as string).slice(runNamespacePrefix(this.options.runId).length);
    return join(this.folder, 'net', `${role}.ip`);
  }

  /** The commands of the next sync of every node, for a dry run. */
  private syncPlan(layout: LabLayout, first: boolean): string[][] {
    this.plannedSyncs += 1;
    return layout.nodes.flatMap((node) => syncCommands(node, syncFiles(this.folder, node.name, this.plannedSyncs), first));
  }

  private logServices(ctx: DriverContext): void {
    for (const service of this.services) {
      const nodePorts = service.ports.map((p) => p.allocatedNodePort).filter((p) => p !== null);
      const health = service.healthCheckNodePort === null ? '' : `, healthCheckNodePort ${service.healthCheckNodePort}`;
      ctx.log(`lab: Service ${service.namespace}/${service.name} ${service.clusterIP}, nodePort ${nodePorts.join(', ')}${health}`);
    }
  }

  /** nginx in the pod's namespace (its network is up), ready when it answers from the pod's node. */
  private async startPod(pod: LabPod, ctx: DriverContext, signal: AbortSignal): Promise<void> {
    ctx.log(`lab: pod ${pod.namespace}/${pod.name} on ${pod.node} (${pod.ip}), nginx from ${pod.configFiles.map((f) => f.containerPath).join(', ')}`);
    signal.throwIfAborted();
    await this.startNginx(pod, signal);
    // In the layout's order, whatever order they became ready in.
    const layout = this.requireLayout();
    this.readyPods = layout.pods.filter((p) => p === pod || this.readyPods.includes(p));
  }

  private track(key: string, daemon: Daemon, stopSignal: NodeJS.Signals): void {
    this.running.set(key, { daemon, stopSignal });
    this.recordOwner();
  }

  private async stopRunning(key: string, graceMs: number): Promise<void> {
    const running = this.running.get(key);
    if (running === undefined) return;
    await stopProcess(running.daemon.pid, running.stopSignal, graceMs, running.daemon.exited);
    this.running.delete(key);
    if (!this.finished) this.recordOwner();
  }

  private async startNginx(pod: LabPod, signal: AbortSignal): Promise<void> {
    const paths = nginxPaths(this.folder, pod);
    mkdirSync(paths.root, { recursive: true });
    for (const file of nginxConfigFiles(paths, pod)) {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.content);
    }
    writeFileSync(paths.config, nginxMainConfig(paths));
    const key = this.podKey(pod);
    const daemon = await startDaemon(key, netnsExec(pod.netns, nginxCommand(paths)), paths.errorLog);
    this.track(key, daemon, 'SIGQUIT');

    const node = this.node(pod.node);
    const port = pod.container.ports[0]?.containerPort ?? NGINX_DEFAULT_PORT;
    const probe = netnsExec(node.netns, readinessProbeCommand(pod, port));
    // nginx writes its pid file once it listens: no probe process is spent before that.
    const ready = await waitUntil(
      async () => daemon.hasExited() || (existsSync(paths.pidFile) && (await runCommand(probe, { signal })).exitCode === 0),
      NGINX_READY_TIMEOUT_MS,
      NGINX_PROBE_INTERVAL_MS,
      signal,
    );
    if (daemon.hasExited()) {
      throw new DriverError(`${key} exited at start with code ${await daemon.exited} (${pod.origin}): ${readLogTail(paths.errorLog) || 'no log'}`);
    }
    if (!ready) throw new DriverError(`${key} did not answer http://${pod.ip}:${port}/ from ${node.name} within ${NGINX_READY_TIMEOUT_MS / 1000} s`);
  }

  private async syncAllNodes(first: boolean, signal: AbortSignal): Promise<void> {
    const layout = this.requireLayout();
    this.syncs += 1;
    const sequence = this.syncs;
    signal.throwIfAborted();
    const nodes = layout.nodes.map((node) => ({ node, input: proxyInput(layout, node, this.services, this.readyPods) }));
    await syncNodes(nodes, { runFolder: this.folder, first, sequence, signal });
  }

  private healthServerArgv(node: LabNode, service: { namespace: string; name: string }, port: string): string[] {
    const key = `${service.namespace}/${service.name}`;
    return netnsExec(node.netns, [
      // Spelled out rather than inherited, so that ps and a dry run show how the server starts.
      'env', `NODE_COMPILE_CACHE=${NODE_COMPILE_CACHE_DIR}`,
      process.execPath, HEALTH_SERVER_SCRIPT,
      '--port', port,
      '--namespace', service.namespace,
      '--name', service.name,
      '--state', healthStateFile(this.folder, node.name, key),
      '--ready', join(nodeFolder(this.folder, node.name), `health.${service.namespace}.${service.name}.ready`),
      '--log', join(nodeFolder(this.folder, node.name), `health.${service.namespace}.${service.name}.log`),
    ]);
  }

  /** kube-proxy serves a health check for every LoadBalancer + Local Service on every node. */
  private async startHealthServers(ctx: DriverContext, signal: AbortSignal): Promise<void> {
    const layout = this.requireLayout();
    try {
      // A cache that cannot be made only costs start-up time: Node then runs without it.
      mkdirSync(NODE_COMPILE_CACHE_DIR, { recursive: true, mode: 0o700 });
    } catch {}
    const checked = this.services.filter((s) => s.healthCheckNodePort !== null);
    for (const service of checked) {
      ctx.log(`lab: health-check servers for ${service.namespace}/${service.name} on port ${service.healthCheckNodePort} of every node`);
    }
    await runTogether(
      checked.flatMap((service) => layout.nodes.map((node) => (s: AbortSignal) => this.startHealthServer(node, service, s))),
      signal,
    );
  }

  private async startHealthServer(node: LabNode, service: LabService, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    const argv = this.healthServerArgv(node, service, String(service.healthCheckNodePort));
    const readyFile = argv[argv.indexOf('--ready') + 1] as string;
    const logFile = argv[argv.indexOf('--log') + 1] as string;
    mkdirSync(nodeFolder(this.folder, node.name), { recursive: true });
    const key = `health check of ${service.namespace}/${service.name} on ${node.name}`;
    const daemon = await startDaemon(key, argv, logFile);
    this.track(key, daemon, 'SIGTERM');
    const ready = await waitUntil(async () => daemon.hasExited() || existsSync(readyFile), HEALTH_READY_TIMEOUT_MS, HEALTH_READY_INTERVAL_MS, signal);
    if (daemon.hasExited()) {
      throw new DriverError(`${key} exited at start with code ${await daemon.exited}: ${readLogTail(logFile) || `no log; run ${argv.join(' ')} to see why`}`);
    }
    if (!ready) throw new DriverError(`${key} did not listen on port ${service.healthCheckNodePort} within ${HEALTH_READY_TIMEOUT_MS / 1000} s`);
  }

  /** The localEndpoints a node's health check reports, asked from that node; null when it does not answer. */
  private async healthCheckCount(node: LabNode, url: string, signal: AbortSignal): Promise<number | null> {
    const result = await runCommand(netnsExec(node.netns, healthProbe(url)), { signal });
    if (result.exitCode !== 0) return null;
    try {
      const body = JSON.parse(result.stdout) as { localEndpoints?: unknown };
      return typeof body.localEndpoints === 'number' ? body.localEndpoints : null;
    } catch {
      return null;
    }
  }
}
