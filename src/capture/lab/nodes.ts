// The lab's node provider: network namespaces play the nodes, on one bridge
// with kind's addressing (a veth per node, its address, forwarding on). Its
// up() brings the nodes up, then has the bootstrap start Kubernetes on them,
// as `kind create cluster` provisions its nodes and runs kubeadm on them. A
// command on a node is `ip netns exec <its namespace>`.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeProxyMode } from '../../experiment/types.ts';
import { readIpvsFacts } from '../machine/host.ts';
import { kubeBinProblem, missingComponents, type KubeBinChoice } from '../machine/kube-bin.ts';
import { runProcess, type ProcessResult } from '../machine/process.ts';
import {
  DriverError,
  PrerequisiteError,
  VariantUnsupported,
  type ExecLimits,
  type NodeProvider,
  type ProviderContext,
  type ProvidedNode,
} from '../provider/node-provider.ts';
import type { LabBootstrap } from './bootstrap.ts';
import { batchInput, runIpBatch, type IpBatch } from './ip-batch.ts';
import type { LabLayout } from './layout.ts';
import { BRIDGE_INTERFACE, nodeNamespace, runNamespacePrefix } from './names.ts';
import {
  labNetwork,
  NETNS_RUN_DIR,
  namespaceBatches,
  namespacesBatch,
  netnsExec,
  networkCommands,
  networkScript,
  teardownCommands,
  type LabNetwork,
} from './network.ts';
import { phaseLine } from './phases.ts';
import type { LabRunBook } from './run-book.ts';
import { runTogether } from './together.ts';
import { labVersions, preflightLab, proxyModeProblem } from './tools.ts';
import { findProgram } from '../machine/kube-bin.ts';

export interface LabNodesSettings {
  layout: LabLayout;
  /** kube-proxy's mode the experiment (its variant) declares: preflight checks this machine can run it. */
  proxyMode: KubeProxyMode;
  kubeBin: KubeBinChoice;
  /** Leave the nodes up after down() and say how to reach them. */
  keep: boolean;
  book: LabRunBook;
  bootstrap: LabBootstrap;
}

export class LabNodes implements NodeProvider {
  readonly name = 'lab' as const;
  /** The lab kubelet (a stand-in) serves no health endpoint: its process is watched instead (problems()). */
  readonly agentHealthz = [];
  /** Every lab run makes its namespaces afresh: nothing of an earlier run is ever handed over. */
  readonly reuses = false;
  private readonly layout: LabLayout;
  private readonly network: LabNetwork;
  private readonly proxyMode: KubeProxyMode;
  private readonly kubeBin: KubeBinChoice;
  private readonly keep: boolean;
  private readonly book: LabRunBook;
  private readonly bootstrap: LabBootstrap;
  private upStarted = false;
  private versionsAsked: Promise<Record<string, string>> | null = null;

  constructor(settings: LabNodesSettings) {
    this.layout = settings.layout;
    this.network = labNetwork(settings.layout, settings.layout.nodeSubnet);
    this.proxyMode = settings.proxyMode;
    this.kubeBin = settings.kubeBin;
    this.keep = settings.keep;
    this.book = settings.book;
    this.bootstrap = settings.bootstrap;
  }

  async preflight(): Promise<void> {
    preflightLab();
    const mode = proxyModeProblem(this.proxyMode, readIpvsFacts, (program) => findProgram(program, process.env.PATH));
    if (mode !== null) throw mode.unsupported ? new VariantUnsupported(mode.problem) : new PrerequisiteError(mode.problem);
    const problem = kubeBinProblem(this.kubeBin, missingComponents(this.kubeBin.dir));
    if (problem !== null) throw new PrerequisiteError(problem);
  }

  /** The nodes' namespaces and network (beside the bootstrap's credentials), then Kubernetes on them; the nodes in the experiment's order. */
  async up(ctx: ProviderContext): Promise<ProvidedNode[]> {
    if (this.upStarted || this.book.done) throw new DriverError(`lab run ${this.book.runId}: up() was already called`);
    this.upStarted = true;
    const start = performance.now();
    await this.book.claim();
    const nested = this.writeNetworkBatches();
    ctx.log(
      `lab: namespaces for the bridge and the nodes ${this.layout.nodes.map((n) => `${n.name} ${n.internalIP}`).join(', ')} on ${BRIDGE_INTERFACE} (${this.layout.nodeSubnet})`,
    );
    await this.book.addNamespaces(this.network.namespaces);
    const network = performance.now();
    await runTogether([(signal) => this.buildNetwork(nested, signal), (signal) => this.bootstrap.prepare(signal)], ctx.signal);
    void this.hostVersions();
    ctx.log(phaseLine('network', performance.now() - network));
    await this.bootstrap.start(ctx);
    ctx.log(phaseLine('up', performance.now() - start));
    return this.layout.nodes.map((node) => ({ name: node.name, k8sName: node.k8sName, role: node.role, address: node.internalIP, labels: {} }));
  }

  /** Each namespace's ip batch as a file of the run folder: the root-level batch runs each inside its namespace. */
  private writeNetworkBatches(): Map<string, IpBatch> {
    mkdirSync(join(this.book.folder, 'net'));
    const nested = new Map<string, IpBatch>();
    for (const batch of namespaceBatches(this.network)) {
      writeFileSync(this.batchFile(batch), batchInput(batch));
      nested.set(this.batchFile(batch), batch);
    }
    return nested;
  }

  private batchFile(batch: IpBatch): string {
    const role = (batch.netns as string).slice(runNamespacePrefix(this.book.runId).length);
    return join(this.book.folder, 'net', `${role}.ip`);
  }

  /** Two ip processes: one creates the namespaces, one builds the bridge, the veths and the addresses inside them. */
  private async buildNetwork(nested: Map<string, IpBatch>, signal: AbortSignal): Promise<void> {
    await runIpBatch(namespacesBatch(this.network), { signal });
    await runIpBatch(
      networkScript(this.network, (batch) => this.batchFile(batch)),
      { signal, nested },
    );
  }

  /** The binaries' and host tools' versions, asked once: up() starts asking once the network is built. */
  private hostVersions(): Promise<Record<string, string>> {
    if (this.versionsAsked === null) {
      this.versionsAsked = labVersions(this.kubeBin.dir);
      // Reported by whoever awaits facts(); until then a failure is not an unhandled rejection.
      this.versionsAsked.catch(() => {});
    }
    return this.versionsAsked;
  }

  /** The Kubernetes binaries' and host tools' versions (the nodes share this machine's tools). */
  async facts(_ctx: ProviderContext): Promise<Record<string, string>> {
    return this.hostVersions();
  }

  nodeArgv(node: string, command: string[]): string[] {
    if (!this.layout.nodes.some((n) => n.name === node)) {
      throw new DriverError(`lab: no node ${JSON.stringify(node)} (nodes: ${this.layout.nodes.map((n) => n.name).join(', ')})`);
    }
    return netnsExec(nodeNamespace(this.book.runId, node), command);
  }

  async exec(node: string, command: string[], limits: ExecLimits, ctx: ProviderContext): Promise<ProcessResult> {
    if (!this.upStarted || this.book.done) throw new DriverError(`lab run ${this.book.runId}: not up`);
    // A command's answer means nothing if a component of the cluster died under it: say which one instead.
    this.book.daemons.checkAlive();
    const run = await runProcess(this.nodeArgv(node, command), {
      timeoutMs: limits.timeoutMs,
      signal: ctx.signal,
      ...(limits.keepBytes ? { keepBytes: limits.keepBytes } : {}),
    });
    if (run.missing) throw new DriverError(`lab: could not run ${command[0]} on ${node}: ip is not on PATH`);
    // What died during the command, the cluster's health check says next, in its words.
    return run;
  }

  /** The lab's nodes are network namespaces of this machine: exec already runs the host's tools in them. */
  probeArgv(node: string, command: string[]): string[] {
    return this.nodeArgv(node, command);
  }

  probe(node: string, command: string[], limits: ExecLimits, ctx: ProviderContext): Promise<ProcessResult> {
    return this.exec(node, command, limits, ctx);
  }

  /** The lab kubelet names each pod's namespace after the pod (`<prefix>pod.<namespace>.<name>`) and makes it when the pod starts. */
  async podNetns(node: string, pod: { namespace: string; name: string }, _ctx: ProviderContext): Promise<string> {
    const path = this.podNetnsPlaceholder(node, pod);
    if (!existsSync(path)) throw new DriverError(`lab: pod ${pod.namespace}/${pod.name} has no network namespace (${path}): its sandbox is not running`);
    return path;
  }

  podNetnsPlaceholder(_node: string, pod: { namespace: string; name: string }): string {
    return `${NETNS_RUN_DIR}/${this.layout.podNetnsPrefix}pod.${pod.namespace}.${pod.name}`;
  }

  /** What died since up(): a process of the lab gone, named with the end of its log. */
  problems(_ctx: ProviderContext): Promise<string[]> {
    return this.book.daemons.problems();
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    await this.book.down(ctx, this.keep ? { reach: this.bootstrap.reachKept() } : null);
  }

  plan(): { setup: string[][]; teardown: string[][] } {
    const setup = [['mkdir', '-m', '700', this.book.folder], ...networkCommands(this.network), ...this.bootstrap.plan()];
    const teardown = [
      ...this.bootstrap.planStop(),
      ['kill', '-TERM', "<pid of every process left in the run's namespaces (the pods' nginx)>"],
      ['ip', 'netns', 'del', `<each pod namespace ${this.layout.podNetnsPrefix}pod.*>`],
      ...teardownCommands(this.network.namespaces),
      ['rm', '-rf', this.book.folder],
    ];
    return { setup, teardown };
  }
}
