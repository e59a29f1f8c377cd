// The `lab` driver: an experiment's cluster on this Linux kernel, with real
// Kubernetes. Network namespaces play the nodes (one bridge, kind's
// addressing); the control-plane node runs real etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler; every node runs real kube-proxy
// and the lab kubelet, the one stand-in (for kubelet, the container runtime and
// kindnetd). It is a node provider: above "a node exists and runs a command",
// everything is the cluster's (src/capture/cluster/cluster.ts), shared with kind.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Experiment } from '../../experiment/types.ts';
import {
  DriverError,
  PrerequisiteError,
  VariantUnsupported,
  type ApiAccess,
  type DriverContext,
  type DriverEnvironment,
  type ExecLimits,
  type NodeProvider,
  type RunIdentity,
  type StandInDecision,
} from '../driver.ts';
import { runOrThrow } from '../checked-run.ts';
import * as k from '../kubectl/commands.ts';
import type { KubeNode } from '../kubectl/topology.ts';
import { runProcess, type ProcessResult } from '../process.ts';
import {
  ADMIN_KUBECONFIG,
  apiserverArgv,
  apiserverURL,
  bin,
  controllerManagerArgv,
  etcdArgv,
  kubeconfigPath,
  kubeProxyArgv,
  kubeProxyConfig,
  KUBE_PROXY_CONFIGMAP,
  kubernetesServiceIP,
  pkiDir,
  schedulerArgv,
  type ControlPlaneInput,
  type ProxyMode,
} from './components.ts';
import { batchInput, runIpBatch, type IpBatch } from './ip-batch.ts';
import { chooseKubeBinDir, kubeBinProblem, missingComponents, type KubeBinChoice } from '../kube-bin.ts';
import { buildLabLayout, controlPlaneOf, LabLayoutError, type LabLayout, type LabNode } from './layout.ts';
import { deleteNamespaces, listNamespaces, processStartTime, stopNamespaceProcesses } from './leftovers.ts';
import { forgetRun, recordRun } from '../run-registry.ts';
import { assertRunId, BRIDGE_INTERFACE, NODE_COMPILE_CACHE_DIR, nodeNamespace, runFolder, runNamespacePrefix } from './names.ts';
import { labNetwork, namespaceBatches, namespacesBatch, netnsExec, networkCommands, networkScript, nsenterNet, teardownCommands } from './network.ts';
import { phaseLine, type LabPhase } from './phases.ts';
import { CONTROL_PLANE_LABELS } from './kubelet/objects.ts';
import { readNodeDecisions } from './kubelet/decisions.ts';
import { mergeNodeDecisions } from '../provider/stand-in.ts';
import { KINDNET_USER, kindnetRbac, kubeconfig, pkiPlan, PKI_FILES } from './pki.ts';
import { runChecked, runCommand } from './processes.ts';
import { DaemonError, isAlive, readLogTail, startDaemon, stopProcess, waitUntil, type Daemon } from '../process.ts';
import { runTogether, settleAll } from './together.ts';
import { CNI_BIN_DIR, findProgram, labVersions, preflightLab, proxyModeProblem } from './tools.ts';
import { readIpvsFacts } from '../host.ts';

const KUBELET_SCRIPT = fileURLToPath(new URL('./kubelet/main.ts', import.meta.url));
/** The API server needs several seconds on two cores; the rest follows it. */
const APISERVER_READY_TIMEOUT_MS = 90_000;
const NODES_READY_TIMEOUT_MS = 60_000;
const READY_POLL_MS = 100;
const DAEMON_STOP_MS = 5_000;
/** One kubectl call of the lab's own set-up (RBAC, a label, a ConfigMap). */
const KUBECTL_MS = 30_000;

/** A component that cannot start fails the run as the lab's other failures do. */
async function labDaemon(label: string, argv: string[], logFile: string): Promise<Daemon> {
  try {
    return await startDaemon(label, argv, logFile);
  } catch (error) {
    throw error instanceof DaemonError ? new DriverError(error.message) : error;
  }
}

export interface LabDriverOptions {
  runId: string;
  /** The article folder; manifest paths in the experiment are relative to it. */
  articleDir: string;
  /** Leave the lab up after down() and say how to remove it. */
  keep: boolean;
  /** The folder of Kubernetes binaries (--kube-bin), or null for $SHICE_KUBE_BIN or the project's build. */
  kubeBin?: string | null;
  /** The nodes' network; 172.18.0.0/16 (docker's usual pick for kind) unless a test wants other addresses. */
  nodeSubnet?: string;
}

interface Running {
  daemon: Daemon;
  /** Stopped in the reverse order of starting: kube-proxy and the kubelets first, etcd last. */
  order: number;
}

function asDriverError(error: unknown): unknown {
  if (error instanceof LabLayoutError) return new DriverError(error.message);
  return error;
}

export class LabDriver implements NodeProvider {
  readonly name = 'lab' as const;
  private readonly options: LabDriverOptions;
  private readonly folder: string;
  private readonly kubeBin: KubeBinChoice;
  private layout: LabLayout | null = null;
  /** How kubectl reaches the lab's API server (api() makes it, with the layout). */
  private access: ApiAccess | null = null;
  /** Namespaces this run created, in creation order (the pods' are found by the run's prefix). */
  private namespaces: string[] = [];
  private running = new Map<string, Running>();
  private started = 0;
  private folderCreated = false;
  private upStarted = false;
  private finished = false;
  private versionsAsked: Promise<Record<string, string>> | null = null;
  /** The first of the lab's processes that exited while the lab was up: every wait checks it. */
  private died: { label: string; code: number | null; log: string } | null = null;

  constructor(options: LabDriverOptions) {
    assertRunId(options.runId);
    this.options = options;
    this.folder = runFolder(options.runId);
    this.kubeBin = chooseKubeBinDir(options.kubeBin ?? null, process.env);
  }

  environment(run: RunIdentity): DriverEnvironment {
    // Built here from the official Go modules, or whatever binaries the author named (--kube-bin, SHICE_KUBE_BIN).
    const built =
      this.kubeBin.from === 'built'
        ? { en: 'built from the official Go modules', zh: '都由官方 Go 模块构建' }
        : { en: 'from the binaries the capture was pointed at (--kube-bin)', zh: '来自采集时指定的二进制文件（--kube-bin）' };
    const version = run.kubernetesVersion ? ` ${run.kubernetesVersion}` : '';
    return {
      summary: {
        en: `Real Kubernetes${version} on one Linux kernel: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kube-proxy in ${run.kubeProxyMode} mode, ${built.en}, with network namespaces as the nodes and pods, wired like kind and kindnet.`,
        zh: `在一个 Linux 内核上运行真实的 Kubernetes${version}：etcd、kube-apiserver、kube-controller-manager、kube-scheduler 和 ${run.kubeProxyMode} 模式的 kube-proxy ${built.zh}，节点和 Pod 是网络命名空间，按 kind 和 kindnet 的方式连接。`,
      },
      standsFor: {
        en: "It stands in for a 3-node kind cluster. Only kubelet, the container runtime and kindnetd are replaced, by shice's lab kubelet: it registers the nodes, sets up each pod's network with the real CNI plugins (ptp, host-local, portmap) and runs the pod's process.",
        zh: '它代替一个 3 节点的 kind 集群。只有 kubelet、容器运行时和 kindnetd 被替换成 shice 自己的 lab kubelet：它注册节点，用真实的 CNI 插件（ptp、host-local、portmap）配置每个 Pod 的网络，并运行 Pod 的进程。',
      },
      limits: [
        {
          en: 'The nodes are network namespaces on one kernel, not containers; there is no Docker, and no real kubelet or container runtime.',
          zh: '节点是同一个内核上的网络命名空间，不是容器；没有 Docker，也没有真实的 kubelet 和容器运行时。',
        },
        {
          en: "The backend ran Debian's nginx-light in place of the nginx:1.27-alpine image.",
          zh: '后端运行的是 Debian 的 nginx-light，代替 nginx:1.27-alpine 镜像。',
        },
        {
          en: 'kindnetd did not run: the lab kubelet programmed its routes between the nodes’ pod CIDRs, and no masquerade rules for pod traffic leaving the cluster.',
          zh: 'kindnetd 没有运行：节点之间到 Pod 网段的路由由 lab kubelet 配置，也没有为离开集群的 Pod 流量设置伪装（masquerade）规则。',
        },
      ],
    };
  }

  async preflight(experiment?: Experiment): Promise<void> {
    preflightLab();
    if (experiment) {
      const mode = proxyModeProblem(experiment.cluster.kubeProxyMode, readIpvsFacts, (program) => findProgram(program, process.env.PATH));
      if (mode !== null) throw mode.unsupported ? new VariantUnsupported(mode.problem) : new PrerequisiteError(mode.problem);
    }
    const problem = kubeBinProblem(this.kubeBin, missingComponents(this.kubeBin.dir));
    if (problem !== null) throw new PrerequisiteError(problem);
  }

  /** The binaries' and host tools' versions, asked once: up() starts asking while the network is built. */
  private hostVersions(): Promise<Record<string, string>> {
    if (this.versionsAsked === null) {
      this.versionsAsked = labVersions(this.kubeBin.dir);
      // Reported by whoever awaits versions(); until then a failure is not an unhandled rejection.
      this.versionsAsked.catch(() => {});
    }
    return this.versionsAsked;
  }

  /** The Kubernetes binaries' and host tools' versions (the nodes share this machine's tools). */
  async facts(_nodes: KubeNode[], _ctx: DriverContext): Promise<Record<string, string>> {
    return this.hostVersions();
  }

  nodeArgv(node: string, command: string[]): string[] {
    const layout = this.layout;
    if (layout !== null && !layout.nodes.some((n) => n.name === node)) {
      throw new DriverError(`lab: no node ${JSON.stringify(node)} (nodes: ${layout.nodes.map((n) => n.name).join(', ')})`);
    }
    return netnsExec(nodeNamespace(this.options.runId, node), command);
  }

  async exec(node: string, command: string[], limits: ExecLimits, ctx: DriverContext): Promise<ProcessResult> {
    this.requireLayout();
    // A command's answer means nothing if a component of the cluster died under it: say which one instead.
    this.checkAlive();
    const run = await runProcess(this.nodeArgv(node, command), {
      timeoutMs: limits.timeoutMs,
      signal: ctx.signal,
      ...(limits.keepBytes ? { keepBytes: limits.keepBytes } : {}),
    });
    if (run.missing) throw new DriverError(`lab: could not run ${command[0]} on ${node}: ip is not on PATH`);
    // What died during the command, the cluster's health check says next, in its words.
    return run;
  }

  /**
   * What died since up(): each of the lab's processes is asked of the kernel itself (its exit
   * event may not have arrived yet), and named with the end of its log.
   */
  async problems(_ctx: DriverContext): Promise<string[]> {
    const gone = [...this.running.values()].filter((r) => !isAlive(r.daemon.pid));
    if (this.died === null && gone.length === 0) return [];
    // The kernel knows first; the exit event, which says how it ended, follows within moments.
    if (this.died === null) await waitUntil(() => this.died !== null, 1_000, 20);
    try {
      this.checkAlive();
    } catch (error) {
      return [(error as Error).message];
    }
    return gone.map((r) => `lab: ${r.daemon.label} is gone: ${readLogTail(r.daemon.logFile, 3) || 'no log'}`);
  }

  /** kubectl by name, the binaries' folder first on PATH, inside the control-plane node where the API server listens. */
  api(experiment: Experiment): ApiAccess {
    if (this.access !== null) return this.access;
    const layout = this.bindLayout(experiment);
    const cp = controlPlaneOf(layout);
    this.access = {
      // A step's argv names no folder of this machine.
      target: { kubeconfig: ADMIN_KUBECONFIG, runner: netnsExec(cp.netns, ['kubectl']) },
      cwd: this.folder,
      env: { ...process.env, PATH: `${this.kubeBin.dir}${delimiter}${process.env.PATH ?? ''}` },
    };
    return this.access;
  }

  private bindLayout(experiment: Experiment): LabLayout {
    if (this.layout !== null) return this.layout;
    try {
      this.layout = buildLabLayout(experiment, this.options.runId, this.options.nodeSubnet);
    } catch (error) {
      throw asDriverError(error);
    }
    return this.layout;
  }

  /** A kubectl call of the lab's own set-up, which must succeed. */
  private kubectl(argv: string[], what: string, ctx: DriverContext): Promise<unknown> {
    const access = this.access!;
    return runOrThrow(argv, { env: access.env, cwd: access.cwd, timeoutMs: KUBECTL_MS }, what, ctx);
  }

  async up(experiment: Experiment, ctx: DriverContext): Promise<void> {
    if (this.upStarted || this.finished) throw new DriverError(`lab run ${this.options.runId}: up() was already called`);
    this.upStarted = true;
    const start = performance.now();
    this.api(experiment);
    const layout = this.bindLayout(experiment);
    const network = labNetwork(layout, layout.nodeSubnet);
    const script = networkScript(network, (batch) => this.batchFile(batch));

    const prefix = runNamespacePrefix(this.options.runId);
    const existing = (await listNamespaces()).filter((ns) => ns.startsWith(prefix));
    if (existing.length > 0) {
      throw new DriverError(
        `lab run ${this.options.runId} already has namespaces (${existing.join(', ')}): remove them with npm run capture -- --driver lab --clean`,
      );
    }
    this.recordOwner(); // before anything exists: a kill -9 from here on is recoverable
    try {
      mkdirSync(this.folder, { mode: 0o700 });
      this.folderCreated = true;
    } catch (error) {
      throw new DriverError(
        `lab run folder ${this.folder}: ${error instanceof Error ? error.message : String(error)}: remove it with npm run capture -- --driver lab --clean`,
      );
    }
    this.recordOwner();
    const phase = (what: LabPhase, since: number) => ctx.log(phaseLine(what, performance.now() - since));

    mkdirSync(join(this.folder, 'net'));
    const nested = new Map<string, IpBatch>();
    for (const batch of namespaceBatches(network)) {
      writeFileSync(this.batchFile(batch), batchInput(batch));
      nested.set(this.batchFile(batch), batch);
    }
    ctx.log(
      `lab: namespaces for the bridge and the nodes ${layout.nodes.map((n) => `${n.name} ${n.internalIP}`).join(', ')} on ${BRIDGE_INTERFACE} (${layout.nodeSubnet})`,
    );
    // Recorded before they exist: an interrupted `ip netns add` may still have created one.
    this.namespaces.push(...network.namespaces);
    this.recordOwner();
    const t0 = performance.now();
    await runTogether(
      [
        async (signal) => {
          await runIpBatch(namespacesBatch(network), { signal });
          await runIpBatch(script, { signal, nested });
        },
        (signal) => this.makePki(layout, signal),
      ],
      ctx.signal,
    );
    void this.hostVersions();
    phase('network', t0);

    const cp = controlPlaneOf(layout);
    const input = this.controlPlaneInput(layout);
    const t1 = performance.now();
    ctx.log(`lab: etcd and kube-apiserver on ${cp.name} (${apiserverURL(cp.internalIP)})`);
    await this.startComponent('etcd', cp, etcdArgv(input));
    await this.startComponent('kube-apiserver', cp, apiserverArgv(input));
    await this.waitApiserver(cp, ctx.signal);
    phase('controlPlane', t1);

    const t2 = performance.now();
    ctx.log(
      `lab: kube-controller-manager and kube-scheduler on ${cp.name}; the lab kubelet and kube-proxy (${experiment.cluster.kubeProxyMode}) on ${layout.nodes.map((n) => n.name).join(', ')}`,
    );
    // kindnetd's permissions, as kind's manifest grants them, before the lab kubelets watch the nodes.
    const rbac = join(this.folder, 'kindnet-rbac.yaml');
    writeFileSync(rbac, kindnetRbac());
    const t = this.access!.target;
    // Calls that run beside the start-up below: each is awaited before up() returns, and one that
    // fails while another step fails (or an interrupt ends them all) is never an unhandled rejection.
    const beside: Promise<unknown>[] = [];
    const alongside = (call: Promise<unknown>) => {
      call.catch(() => {});
      beside.push(call);
    };
    try {
      alongside(this.kubectl(k.kubectlApply(t, rbac), 'apply the kindnet ClusterRole', ctx));
      await this.startComponent('kube-controller-manager', cp, controllerManagerArgv(input));
      await this.startComponent('kube-scheduler', cp, schedulerArgv(input));
      // As kubeadm: `init` on the control-plane first (its node registers first and gets the first
      // podCIDR), its role labels set by kubeadm; the workers `join` once it is Ready.
      for (const node of layout.nodes) await this.startKubelet(node, layout);
      await this.waitFile(join(this.folder, 'nodes', cp.name, 'registered'), `${cp.name}'s lab kubelet to register the node`, ctx.signal);
      alongside(
        this.kubectl(
          k.kubectl(t, 'label', 'node', cp.k8sName, ...CONTROL_PLANE_LABELS.map((key) => `${key}=`)),
          `label ${cp.k8sName} as kubeadm marks a control-plane`,
          ctx,
        ),
      );
      const mode = experiment.cluster.kubeProxyMode;
      if (mode === 'ipvs') throw new DriverError('the lab cannot run kube-proxy in ipvs mode (see preflight)');
      const proxyConfig = this.writeKubeProxyConfig(layout, mode);
      const map = KUBE_PROXY_CONFIGMAP;
      alongside(
        this.kubectl(
          k.kubectl(t, 'create', 'configmap', map.name, '--namespace', map.namespace, `--from-file=${map.key}=${proxyConfig}`),
          "store kube-proxy's configuration as kubeadm does",
          ctx,
        ),
      );
      for (const node of layout.nodes)
        await this.startComponent('kube-proxy', node, kubeProxyArgv(this.kubeBin.dir, proxyConfig, node.k8sName), 100 + this.started);
    } finally {
      // Whatever happened above, nothing is left running unawaited.
      await Promise.allSettled(beside);
    }
    await Promise.all(beside);
    await this.waitNodesReady(layout, ctx.signal);
    phase('nodes', t2);
    phase('up', start);
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    if (this.finished) return;
    const madeSomething = this.folderCreated || this.namespaces.length > 0 || this.running.size > 0;
    if (!madeSomething) {
      this.finished = true;
      forgetRun(this.options.runId);
      return;
    }
    if (this.options.keep) {
      this.recordOwner(true);
      this.finished = true;
      const pids = [...this.running.values()].map((r) => `${r.daemon.pid} (${r.daemon.label})`);
      ctx.log(`lab kept: namespaces ${this.namespaces.join(', ') || 'none'}; processes ${pids.join(', ') || 'none'}; files in ${this.folder}`);
      ctx.log(
        `lab kept: kubectl: ip netns exec ${this.layout ? controlPlaneOf(this.layout).netns : '<control-plane>'} ${bin(this.kubeBin.dir, 'kubectl')} --kubeconfig ${join(this.folder, ADMIN_KUBECONFIG)} get pods -A`,
      );
      ctx.log('lab kept: remove it with npm run capture -- --driver lab --clean');
      return;
    }
    const start = performance.now();
    let processes = 0;
    // Node agents first (so nothing re-creates what goes), then the control plane, etcd last.
    const byOrder = [...this.running.entries()].sort((a, b) => b[1].order - a[1].order);
    const agents = byOrder.filter(([, r]) => r.order >= 100);
    const controlPlane = byOrder.filter(([, r]) => r.order < 100);
    await settleAll(
      agents.map(async ([key]) => {
        await this.stopRunning(key);
        processes += 1;
      }),
    );
    for (const [key] of controlPlane) {
      await this.stopRunning(key);
      processes += 1;
    }
    // Pods' namespaces were made by the lab kubelets: they carry the run's prefix.
    const prefix = runNamespacePrefix(this.options.runId);
    const all = [
      ...new Set([...(await listNamespaces()).filter((ns) => ns.startsWith(prefix) && !this.namespaces.includes(ns)), ...[...this.namespaces].reverse()]),
    ];
    const namespaces = all.length;
    try {
      // Whatever else still runs in there (the pods' nginx, a process that ignored its signal).
      processes += (await stopNamespaceProcesses(all)).length;
      await deleteNamespaces(all);
    } finally {
      const left = new Set(await listNamespaces());
      this.namespaces = this.namespaces.filter((ns) => left.has(ns));
    }
    if (this.folderCreated) rmSync(this.folder, { recursive: true, force: true });
    this.finished = true;
    forgetRun(this.options.runId); // all it recorded is gone
    ctx.log(`lab down: ${namespaces} namespaces and ${processes} processes removed in ${Math.round(performance.now() - start)} ms`);
  }

  plan(experiment: Experiment): { setup: string[][]; teardown: string[][] } {
    const layout = this.bindLayout(experiment);
    const t = this.api(experiment).target;
    const input = this.controlPlaneInput(layout);
    const cp = controlPlaneOf(layout);
    const pki = this.pki(layout);
    const setup: string[][] = [['mkdir', '-m', '700', this.folder]];
    setup.push(...networkCommands(labNetwork(layout, layout.nodeSubnet)));
    setup.push(...pki.first, ...pki.then);
    setup.push(netnsExec(cp.netns, etcdArgv(input)), netnsExec(cp.netns, apiserverArgv(input)));
    setup.push(k.kubectlApply(t, join(this.folder, 'kindnet-rbac.yaml')));
    setup.push(netnsExec(cp.netns, controllerManagerArgv(input)), netnsExec(cp.netns, schedulerArgv(input)));
    for (const node of layout.nodes) setup.push(this.kubeletArgv(node, layout));
    setup.push(k.kubectl(t, 'label', 'node', cp.k8sName, ...CONTROL_PLANE_LABELS.map((key) => `${key}=`)));
    const map = KUBE_PROXY_CONFIGMAP;
    setup.push(k.kubectl(t, 'create', 'configmap', map.name, '--namespace', map.namespace, `--from-file=${map.key}=${this.kubeProxyConfigFile()}`));
    for (const node of layout.nodes) setup.push(netnsExec(node.netns, kubeProxyArgv(this.kubeBin.dir, this.kubeProxyConfigFile(), node.k8sName)));
    const teardown: string[][] = [
      ...layout.nodes.flatMap((n) => [
        ['kill', '-TERM', `<pid of kube-proxy on ${n.name}>`],
        ['kill', '-TERM', `<pid of the lab kubelet on ${n.name}>`],
      ]),
      ...['kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd'].map((c) => ['kill', '-TERM', `<pid of ${c}>`]),
      ['kill', '-TERM', "<pid of every process left in the run's namespaces (the pods' nginx)>"],
      ['ip', 'netns', 'del', `<each pod namespace ${layout.podNetnsPrefix}pod.*>`],
      ...teardownCommands([layout.bridgeNetns, ...layout.nodes.map((n) => n.netns)]),
      ['rm', '-rf', this.folder],
    ];
    return { setup, teardown };
  }

  // --- helpers ---------------------------------------------------------------

  private requireLayout(): LabLayout {
    if (this.layout === null || !this.upStarted || this.finished) throw new DriverError(`lab run ${this.options.runId}: not up`);
    return this.layout;
  }

  private controlPlaneInput(layout: LabLayout): ControlPlaneInput {
    const cp = controlPlaneOf(layout);
    return {
      binDir: this.kubeBin.dir,
      folder: this.folder,
      clusterName: layout.clusterName,
      nodeName: cp.k8sName,
      nodeIP: cp.internalIP,
      podSubnet: layout.podSubnet,
      serviceSubnet: layout.serviceSubnet,
    };
  }

  private pki(layout: LabLayout) {
    const cp = controlPlaneOf(layout);
    return pkiPlan(pkiDir(this.folder), {
      apiserverIPs: [cp.internalIP, kubernetesServiceIP(layout.serviceSubnet), '127.0.0.1'],
      apiserverNames: [cp.k8sName, 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'localhost'],
      nodeNames: layout.nodes.map((n) => n.k8sName),
    });
  }

  /** The run's CA and certificates, then a kubeconfig per client of the API. */
  private async makePki(layout: LabLayout, signal: AbortSignal): Promise<void> {
    const plan = this.pki(layout);
    mkdirSync(plan.dir, { mode: 0o700 });
    writeFileSync(plan.config.path, plan.config.content);
    await runTogether(
      plan.first.map((argv) => () => runChecked(argv, { signal })),
      signal,
    );
    await runTogether(
      plan.then.map((argv) => () => runChecked(argv, { signal })),
      signal,
    );
    const server = apiserverURL(controlPlaneOf(layout).internalIP);
    mkdirSync(join(this.folder, 'kubeconfig'));
    const clients: [string, string][] = [
      ['admin', 'kubernetes-admin'],
      ['controller-manager', 'system:kube-controller-manager'],
      ['scheduler', 'system:kube-scheduler'],
      ['kube-proxy', 'system:kube-proxy'],
      ['kindnet', KINDNET_USER],
      ...layout.nodes.map((n): [string, string] => [`kubelet-${n.k8sName}`, `system:node:${n.k8sName}`]),
    ];
    for (const [client, user] of clients) {
      writeFileSync(kubeconfigPath(this.folder, client), kubeconfig({ cluster: layout.clusterName, server, user, pkiRelative: '../pki', client }), {
        mode: 0o600,
      });
    }
  }

  /** The run's record (run-registry.ts): what a later capture or --clean removes if this one is killed. */
  private recordOwner(kept = false): void {
    recordRun({
      runId: this.options.runId,
      ...(kept ? { kept } : {}),
      namespaces: this.namespaces,
      // The pods' namespaces are the lab kubelets' to make: they carry the run's prefix.
      namespacePrefix: runNamespacePrefix(this.options.runId),
      processes: [...this.running.values()].map((r) => ({ pid: r.daemon.pid, startTime: processStartTime(r.daemon.pid), label: r.daemon.label })),
      folders: [this.folder],
    });
  }

  private batchFile(batch: IpBatch): string {
    const role = (batch.netns as string).slice(runNamespacePrefix(this.options.runId).length);
    return join(this.folder, 'net', `${role}.ip`);
  }

  private logFile(label: string): string {
    mkdirSync(join(this.folder, 'logs'), { recursive: true });
    return join(this.folder, 'logs', `${label.replaceAll(' ', '.')}.log`);
  }

  /** Starts a component inside a node's namespace, its output into the run's logs/. */
  private async startComponent(component: string, node: LabNode, argv: string[], order = this.started): Promise<Daemon> {
    const label = node.role === 'control-plane' && !['kube-proxy', 'lab-kubelet'].includes(component) ? component : `${component} on ${node.name}`;
    const daemon = await labDaemon(label, netnsExec(node.netns, argv), this.logFile(label));
    this.started += 1;
    this.running.set(label, { daemon, order });
    this.recordOwner();
    // A component that dies at start says why in its log; the waits notice it through this.
    void daemon.exited.then((code) => {
      if (!this.finished && this.running.has(label)) this.died = this.died ?? { label, code, log: daemon.logFile };
    });
    return daemon;
  }

  /** What each node's lab kubelet decided or read (its decisions.json), merged: run.yaml's environment.standIn. */
  async standIn(_ctx: DriverContext): Promise<StandInDecision[]> {
    const layout = this.layout;
    if (layout === null) throw new DriverError("lab: asked for the lab kubelets' decisions before the nodes were up");
    try {
      return mergeNodeDecisions(layout.nodes.map((node) => readNodeDecisions(join(this.folder, 'nodes', node.name, 'decisions.json'))));
    } catch (error) {
      throw new DriverError(`lab: the lab kubelets' decisions: ${(error as Error).message}`);
    }
  }

  /** Throws, naming the component and the end of its log, when one of the lab's processes has exited. */
  private checkAlive(): void {
    if (this.died === null) return;
    const { label, code, log } = this.died;
    throw new DriverError(`lab: ${label} exited (${code === null ? 'killed by a signal' : `code ${code}`}): ${readLogTail(log, 3) || 'no log'}`);
  }

  private kubeletArgv(node: LabNode, layout: LabLayout): string[] {
    const state = join(this.folder, 'nodes', node.name);
    // nsenter, not `ip netns exec`: only the network namespace changes, so the pods' namespaces the
    // lab kubelet adds are mounted where every other process (and the teardown) sees them.
    return nsenterNet(node.netns, [
      'env',
      `NODE_COMPILE_CACHE=${NODE_COMPILE_CACHE_DIR}`,
      process.execPath,
      KUBELET_SCRIPT,
      '--node',
      node.k8sName,
      '--ip',
      node.internalIP,
      '--role',
      node.role,
      '--kubeconfig',
      kubeconfigPath(this.folder, `kubelet-${node.k8sName}`),
      '--kindnet-kubeconfig',
      kubeconfigPath(this.folder, 'kindnet'),
      '--state',
      state,
      '--run-folder',
      this.folder,
      '--netns-prefix',
      layout.podNetnsPrefix,
      '--cni-bin',
      CNI_BIN_DIR,
      '--ready',
      join(state, 'ready'),
      ...(node.role === 'control-plane' ? [] : ['--join-after', join(this.folder, 'nodes', controlPlaneOf(layout).name, 'ready')]),
    ]);
  }

  private async startKubelet(node: LabNode, layout: LabLayout): Promise<void> {
    try {
      mkdirSync(NODE_COMPILE_CACHE_DIR, { recursive: true, mode: 0o700 });
    } catch {}
    const argv = this.kubeletArgv(node, layout);
    const label = `lab-kubelet on ${node.name}`;
    const daemon = await labDaemon(label, argv, this.logFile(label));
    this.running.set(label, { daemon, order: 100 + this.started++ });
    this.recordOwner();
    void daemon.exited.then((code) => {
      if (!this.finished && this.running.has(label)) this.died = this.died ?? { label, code, log: daemon.logFile };
    });
  }

  private kubeProxyConfigFile(): string {
    return join(this.folder, 'kube-proxy', KUBE_PROXY_CONFIGMAP.key);
  }

  private writeKubeProxyConfig(layout: LabLayout, mode: ProxyMode): string {
    const file = this.kubeProxyConfigFile();
    mkdirSync(join(this.folder, 'kube-proxy'), { recursive: true });
    writeFileSync(file, kubeProxyConfig({ mode, podSubnet: layout.podSubnet, kubeconfig: kubeconfigPath(this.folder, 'kube-proxy') }));
    return file;
  }

  private async waitApiserver(cp: LabNode, signal: AbortSignal): Promise<void> {
    const probe = netnsExec(cp.netns, [
      'curl',
      '--silent',
      '--max-time',
      '2',
      '--cacert',
      join(pkiDir(this.folder), PKI_FILES.caCert),
      `${apiserverURL(cp.internalIP)}/readyz`,
    ]);
    const ready = await waitUntil(
      async () => {
        this.checkAlive();
        return (await runCommand(probe, { signal })).stdout.trim() === 'ok';
      },
      APISERVER_READY_TIMEOUT_MS,
      READY_POLL_MS,
      signal,
    );
    if (!ready)
      throw new DriverError(
        `lab: kube-apiserver did not answer ${apiserverURL(cp.internalIP)}/readyz with ok within ${APISERVER_READY_TIMEOUT_MS / 1000} s: ${readLogTail(this.logFile('kube-apiserver'), 3)}`,
      );
  }

  private async waitFile(file: string, what: string, signal: AbortSignal): Promise<void> {
    const there = await waitUntil(
      () => {
        this.checkAlive();
        return existsSync(file);
      },
      NODES_READY_TIMEOUT_MS,
      READY_POLL_MS,
      signal,
    );
    if (!there) throw new DriverError(`lab: waited ${NODES_READY_TIMEOUT_MS / 1000} s for ${what} (see its log in the run folder)`);
  }

  /** Each lab kubelet writes its ready file once the API gave its node a podCIDR and the node reported Ready. */
  private async waitNodesReady(layout: LabLayout, signal: AbortSignal): Promise<void> {
    const files = layout.nodes.map((n) => join(this.folder, 'nodes', n.name, 'ready'));
    const ready = await waitUntil(
      () => {
        this.checkAlive();
        return files.every((f) => existsSync(f));
      },
      NODES_READY_TIMEOUT_MS,
      READY_POLL_MS,
      signal,
    );
    if (!ready) {
      const late = layout.nodes.filter((_, i) => !existsSync(files[i]!)).map((n) => n.name);
      throw new DriverError(
        `lab: nodes ${late.join(', ')} got no podCIDR or did not become Ready within ${NODES_READY_TIMEOUT_MS / 1000} s (see the lab kubelet's log)`,
      );
    }
  }

  private async stopRunning(key: string): Promise<void> {
    const running = this.running.get(key);
    if (running === undefined) return;
    await stopProcess(running.daemon.pid, 'SIGTERM', DAEMON_STOP_MS, running.daemon.exited);
    this.running.delete(key);
    if (!this.finished && this.folderCreated) this.recordOwner();
  }
}
