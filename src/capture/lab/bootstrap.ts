// The lab's Kubernetes bootstrap, what kubeadm does on kind's nodes: on the
// nodes the provider brought up, the run's credentials, etcd and the API
// server on the control-plane node (then a wait for /readyz), the
// controller-manager and the scheduler, a lab kubelet per node (the
// control-plane's first, as `kubeadm init` before `join`), the control-plane's
// role labels, kube-proxy's configuration in its ConfigMap and kube-proxy on
// every node; it returns once every node is Ready.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeProxyMode } from '../../experiment/types.ts';
import { runOrThrow } from '../machine/checked-run.ts';
import type { ClusterAccess } from '../kubectl/access.ts';
import * as k from '../kubectl/commands.ts';
import { readLogTail } from '../machine/process.ts';
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
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
  schedulerArgv,
  type ControlPlaneInput,
} from './components.ts';
import { labPki, makeCredentials } from './credentials.ts';
import type { DaemonRole, LabDaemons } from './daemons.ts';
import { CONTROL_PLANE_LABELS } from './kubelet/objects.ts';
import { controlPlaneOf, type LabLayout, type LabNode } from './layout.ts';
import { NODE_COMPILE_CACHE_DIR, nodeStateFile } from './names.ts';
import { netnsExec, nsenterNet } from './network.ts';
import { phaseLine } from './phases.ts';
import { kindnetRbac } from './pki.ts';
import { CNI_BIN_DIR } from './tools.ts';
import { waitApiserverReady, waitForFile, waitNodesReady, type WaitContext } from './waits.ts';

const KUBELET_SCRIPT = fileURLToPath(new URL('./kubelet/main.ts', import.meta.url));
/** One kubectl call of the lab's own set-up (RBAC, a label, a ConfigMap). */
const KUBECTL_MS = 30_000;
const CONTROL_PLANE_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

export interface BootstrapSettings {
  layout: LabLayout;
  /** The run folder: credentials, configuration, logs, the nodes' state. */
  folder: string;
  /** The folder of the Kubernetes binaries. */
  binDir: string;
  /** How kubectl reaches the API server this bootstrap starts. */
  access: ClusterAccess;
  daemons: LabDaemons;
  /** kube-proxy's mode, as the experiment (its variant) declares it. */
  proxyMode: KubeProxyMode;
}

export class LabBootstrap {
  private readonly layout: LabLayout;
  private readonly folder: string;
  private readonly binDir: string;
  private readonly access: ClusterAccess;
  private readonly daemons: LabDaemons;
  private readonly proxyMode: KubeProxyMode;
  private readonly controlPlane: LabNode;

  constructor(settings: BootstrapSettings) {
    this.layout = settings.layout;
    this.folder = settings.folder;
    this.binDir = settings.binDir;
    this.access = settings.access;
    this.daemons = settings.daemons;
    this.proxyMode = settings.proxyMode;
    this.controlPlane = controlPlaneOf(settings.layout);
  }

  /** What needs no node: the run's credentials (it runs beside the nodes' network). */
  prepare(signal: AbortSignal): Promise<void> {
    return makeCredentials(this.layout, this.folder, signal);
  }

  /** The control plane, then the node agents; returns once every node is Ready. */
  async start(ctx: ProviderContext): Promise<void> {
    const started = performance.now();
    await this.startControlPlane(ctx);
    ctx.log(phaseLine('controlPlane', performance.now() - started));
    const agents = performance.now();
    await this.startNodeAgents(ctx);
    await waitNodesReady(this.layout, this.waitContext(ctx.signal));
    ctx.log(phaseLine('nodes', performance.now() - agents));
  }

  private async startControlPlane(ctx: ProviderContext): Promise<void> {
    const cp = this.controlPlane;
    ctx.log(`lab: etcd and kube-apiserver on ${cp.name} (${apiserverURL(cp.internalIP)})`);
    await this.startOn(cp, 'etcd', etcdArgv(this.controlPlaneInput()));
    await this.startOn(cp, 'kube-apiserver', apiserverArgv(this.controlPlaneInput()));
    await waitApiserverReady(cp, this.waitContext(ctx.signal));
  }

  /**
   * The controllers, the lab kubelets and kube-proxy, with the lab's own API calls beside them:
   * each call is awaited before this returns, and one that fails while another step fails (or an
   * interrupt ends them all) is never an unhandled rejection.
   */
  private async startNodeAgents(ctx: ProviderContext): Promise<void> {
    const cp = this.controlPlane;
    const names = this.layout.nodes.map((n) => n.name).join(', ');
    ctx.log(`lab: kube-controller-manager and kube-scheduler on ${cp.name}; the lab kubelet and kube-proxy (${this.proxyMode}) on ${names}`);
    // kindnetd's permissions, as kind's manifest grants them, before the lab kubelets watch the nodes.
    writeFileSync(this.rbacFile(), kindnetRbac());
    const beside: Promise<unknown>[] = [];
    const alongside = (argv: string[], what: string) => {
      const call = runOrThrow(argv, { env: this.access.env, cwd: this.access.cwd, timeoutMs: KUBECTL_MS }, what, ctx);
      call.catch(() => {});
      beside.push(call);
    };
    try {
      alongside(this.applyRbacArgv(), 'apply the kindnet ClusterRole');
      await this.startOn(cp, 'kube-controller-manager', controllerManagerArgv(this.controlPlaneInput()));
      await this.startOn(cp, 'kube-scheduler', schedulerArgv(this.controlPlaneInput()));
      // As kubeadm: `init` on the control-plane first (its node registers first and gets the first
      // podCIDR), its role labels set by kubeadm; the workers `join` once it is Ready.
      for (const node of this.layout.nodes) await this.startKubelet(node);
      const registered = nodeStateFile(this.folder, cp.name, 'registered');
      await waitForFile(registered, `${cp.name}'s lab kubelet to register the node`, this.waitContext(ctx.signal));
      alongside(this.labelControlPlaneArgv(), `label ${cp.k8sName} as kubeadm marks a control-plane`);
      this.writeKubeProxyConfig();
      alongside(this.kubeProxyConfigMapArgv(), "store kube-proxy's configuration as kubeadm does");
      for (const node of this.layout.nodes) await this.startOn(node, 'kube-proxy', this.kubeProxyArgv(node));
    } finally {
      // Whatever happened above, nothing is left running unawaited.
      await Promise.allSettled(beside);
    }
    await Promise.all(beside);
  }

  /** Starts a component inside a node's namespace; the control plane's are named alone, the node agents with their node. */
  private startOn(node: LabNode, component: string, argv: string[]): Promise<unknown> {
    const role: DaemonRole = CONTROL_PLANE_COMPONENTS.includes(component) ? 'control-plane' : 'node-agent';
    const label = role === 'control-plane' ? component : `${component} on ${node.name}`;
    return this.daemons.start(label, netnsExec(node.netns, argv), role);
  }

  private async startKubelet(node: LabNode): Promise<void> {
    try {
      mkdirSync(NODE_COMPILE_CACHE_DIR, { recursive: true, mode: 0o700 });
    } catch {}
    await this.daemons.start(`lab-kubelet on ${node.name}`, this.kubeletArgv(node), 'node-agent');
  }

  private waitContext(signal: AbortSignal): WaitContext {
    return {
      folder: this.folder,
      checkAlive: () => this.daemons.checkAlive(),
      logTail: (label) => readLogTail(this.daemons.logFile(label), 3),
      signal,
    };
  }

  private controlPlaneInput(): ControlPlaneInput {
    const cp = this.controlPlane;
    return {
      binDir: this.binDir,
      folder: this.folder,
      clusterName: this.layout.clusterName,
      nodeName: cp.k8sName,
      nodeIP: cp.internalIP,
      podSubnet: this.layout.podSubnet,
      serviceSubnet: this.layout.serviceSubnet,
    };
  }

  private kubeletArgv(node: LabNode): string[] {
    const state = join(this.folder, 'nodes', node.name);
    const joinAfter = node.role === 'control-plane' ? [] : ['--join-after', nodeStateFile(this.folder, this.controlPlane.name, 'ready')];
    // nsenter, not `ip netns exec`: only the network namespace changes, so the pods' namespaces the
    // lab kubelet adds are mounted where every other process (and the teardown) sees them.
    return nsenterNet(node.netns, [
      'env',
      `NODE_COMPILE_CACHE=${NODE_COMPILE_CACHE_DIR}`,
      process.execPath,
      KUBELET_SCRIPT,
      ...['--node', node.k8sName, '--ip', node.internalIP, '--role', node.role],
      ...['--kubeconfig', kubeconfigPath(this.folder, `kubelet-${node.k8sName}`), '--kindnet-kubeconfig', kubeconfigPath(this.folder, 'kindnet')],
      ...['--state', state, '--run-folder', this.folder, '--netns-prefix', this.layout.podNetnsPrefix],
      ...['--cni-bin', CNI_BIN_DIR, '--ready', nodeStateFile(this.folder, node.name, 'ready'), ...joinAfter],
    ]);
  }

  private rbacFile(): string {
    return join(this.folder, 'kindnet-rbac.yaml');
  }

  private applyRbacArgv(): string[] {
    return k.kubectlApply(this.access.target, this.rbacFile());
  }

  private labelControlPlaneArgv(): string[] {
    return k.kubectl(this.access.target, 'label', 'node', this.controlPlane.k8sName, ...CONTROL_PLANE_LABELS.map((key) => `${key}=`));
  }

  private kubeProxyConfigFile(): string {
    return join(this.folder, 'kube-proxy', KUBE_PROXY_CONFIGMAP.key);
  }

  private writeKubeProxyConfig(): void {
    if (this.proxyMode === 'ipvs') throw new DriverError('the lab cannot run kube-proxy in ipvs mode (see preflight)');
    const config = kubeProxyConfig({ mode: this.proxyMode, podSubnet: this.layout.podSubnet, kubeconfig: kubeconfigPath(this.folder, 'kube-proxy') });
    mkdirSync(join(this.folder, 'kube-proxy'), { recursive: true });
    writeFileSync(this.kubeProxyConfigFile(), config);
  }

  private kubeProxyConfigMapArgv(): string[] {
    const { name, namespace, key } = KUBE_PROXY_CONFIGMAP;
    return k.kubectl(this.access.target, 'create', 'configmap', name, '--namespace', namespace, `--from-file=${key}=${this.kubeProxyConfigFile()}`);
  }

  private kubeProxyArgv(node: LabNode): string[] {
    return kubeProxyArgv(this.binDir, this.kubeProxyConfigFile(), node.k8sName);
  }

  /** Every argv of the bootstrap, in the order start() runs them: what a dry run prints. */
  plan(): string[][] {
    const cp = this.controlPlane;
    const pki = labPki(this.layout, this.folder);
    const input = this.controlPlaneInput();
    return [
      ...pki.first,
      ...pki.then,
      netnsExec(cp.netns, etcdArgv(input)),
      netnsExec(cp.netns, apiserverArgv(input)),
      this.applyRbacArgv(),
      netnsExec(cp.netns, controllerManagerArgv(input)),
      netnsExec(cp.netns, schedulerArgv(input)),
      ...this.layout.nodes.map((node) => this.kubeletArgv(node)),
      this.labelControlPlaneArgv(),
      this.kubeProxyConfigMapArgv(),
      ...this.layout.nodes.map((node) => netnsExec(node.netns, this.kubeProxyArgv(node))),
    ];
  }

  /** How its processes are stopped, in the order down() stops them: what a dry run prints. */
  planStop(): string[][] {
    return [
      ...this.layout.nodes.flatMap((n) => [
        ['kill', '-TERM', `<pid of kube-proxy on ${n.name}>`],
        ['kill', '-TERM', `<pid of the lab kubelet on ${n.name}>`],
      ]),
      ...[...CONTROL_PLANE_COMPONENTS].reverse().map((c) => ['kill', '-TERM', `<pid of ${c}>`]),
    ];
  }

  /** The kubectl line that reaches a kept lab's API server from a shell. */
  reachKept(): string {
    return `ip netns exec ${this.controlPlane.netns} ${bin(this.binDir, 'kubectl')} --kubeconfig ${join(this.folder, ADMIN_KUBECONFIG)} get pods -A`;
  }
}
