// The kind driver: a real three-node kind cluster of the capture's own, driven
// through kind, kubectl and docker with argv arrays. The user's kubeconfig and
// clusters are never read or touched: every call carries the capture's kubeconfig
// (and KUBECONFIG points at it), and only a cluster this capture created is ever
// reused or deleted.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { arch, release, type as osType } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Experiment, Topology } from '../../experiment/types.ts';
import {
  DriverError,
  PrerequisiteError,
  type Driver,
  type DriverContext,
  type DriverEnvironment,
  type ExecOutcome,
  type RunIdentity,
} from '../driver.ts';
import { declaredObjects } from '../cluster/manifest-objects.ts';
import { ClusterSession, outcome, runJudged, runOrThrow } from '../cluster/session.ts';
import { runTool, type ToolRun } from '../cluster/run-tool.ts';
import { nodesWithoutLabel, type KubeNode } from '../cluster/topology.ts';
import * as cmd from './commands.ts';
import { checkNodeNaming, OWNER_LABEL, OWNER_VALUE, renderKindConfig } from './config.ts';
import { decideClusterAction, isOwned, markerPath, readMarker, removeMarker, writeMarker } from './ownership.ts';
import {
  firstLine,
  isDockerFailure,
  parseContainerList,
  parseDockerVersion,
  parseIptablesVersion,
  parseKindClusters,
  parseKindVersion,
  parseKubectlVersion,
  parseKubeProxyMode,
} from './tool-output.ts';

/** Upper bounds for each kind of call, in milliseconds. */
export interface KindTimeouts {
  /** version checks, `kind get clusters`, `docker ps`, `docker inspect` */
  quickMs: number;
  /** `kind create cluster`, including a first pull of the node image */
  createMs: number;
  deleteMs: number;
  /** `docker pull` and `kind load docker-image` */
  loadMs: number;
  /** `kubectl apply` and `kubectl get` */
  kubectlMs: number;
  /** `kubectl wait` (which has its own --timeout) */
  waitMs: number;
  /** `kubectl delete pod --wait=true` */
  deletePodMs: number;
  /** one step's `docker exec` */
  execMs: number;
  /** interval and bound of the health-check polls that tell kube-proxy has caught up */
  settlePollMs: number;
  settleTimeoutMs: number;
}

export const DEFAULT_KIND_TIMEOUTS: KindTimeouts = {
  quickMs: 30_000,
  createMs: 15 * 60_000,
  deleteMs: 3 * 60_000,
  loadMs: 10 * 60_000,
  kubectlMs: 60_000,
  waitMs: 150_000,
  deletePodMs: 90_000,
  execMs: 60_000,
  settlePollMs: 250,
  settleTimeoutMs: 30_000,
};

export interface KindDriverOptions {
  runId: string;
  articleDir: string;
  keep: boolean;
  reuse: boolean;
  image?: string;
  loadImages: boolean;
  /** A folder the capture owns (e.g. <repo>/.shice/kind): kubeconfig, kind config, ownership marker. */
  stateDir: string;
  /**
   * The folder tools run in (the project root). The capture's kubeconfig is passed
   * relative to it when it lies inside, so no path of this machine reaches a snapshot.
   */
  cwd?: string;
  /** The environment children start from (tests put fake tools first on PATH); KUBECONFIG is always overridden. */
  env?: NodeJS.ProcessEnv;
  timeouts?: Partial<KindTimeouts>;
}

/** What the kind driver writes into its state folder. */
export function kindStatePaths(stateDir: string, cluster: string): { kubeconfig: string; config: string; marker: string } {
  const dir = resolve(stateDir);
  return {
    kubeconfig: join(dir, 'kubeconfig'),
    config: join(dir, `${cluster}.kind-config.yaml`),
    marker: markerPath(dir, cluster),
  };
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export class KindDriver implements Driver {
  readonly name = 'kind' as const;
  private readonly options: KindDriverOptions;
  private readonly timeouts: KindTimeouts;
  private readonly stateDir: string;
  private readonly kubeconfig: string;
  private readonly cwd: string;
  private readonly childEnv: NodeJS.ProcessEnv;

  private experiment: Experiment | null = null;
  /** The path to the API both drivers share. */
  private session: ClusterSession | null = null;
  private target: cmd.KindTarget | null = null;
  private topology: Topology | null = null;
  private kubeNodes: KubeNode[] = [];
  /** This driver may delete the cluster: it created it, or proved an earlier capture did. */
  private owns = false;
  /** `kind create cluster` was started by this driver (containers may exist even if it failed). */
  private createStarted = false;
  private downDone = false;

  constructor(options: KindDriverOptions) {
    this.options = options;
    this.timeouts = { ...DEFAULT_KIND_TIMEOUTS, ...options.timeouts };
    this.stateDir = resolve(options.stateDir);
    this.cwd = resolve(options.cwd ?? process.cwd());
    const kubeconfig = join(this.stateDir, 'kubeconfig');
    const inside = relative(this.cwd, kubeconfig);
    this.kubeconfig = inside.startsWith('..') || isAbsolute(inside) ? kubeconfig : inside;
    // Belt and braces: even a call that forgot --kubeconfig could not reach the user's file.
    this.childEnv = { ...(options.env ?? process.env), KUBECONFIG: this.kubeconfig };
  }

  environment(run: RunIdentity): DriverEnvironment {
    const version = run.kubernetesVersion ? `Kubernetes ${run.kubernetesVersion}` : 'Kubernetes';
    return {
      summary: {
        en: `A real three-node kind cluster (${version}, nodes as Docker containers on one host), kube-proxy in ${run.kubeProxyMode} mode, kindnet as the CNI.`,
        zh: `一个真实的三节点 kind 集群（${version}，节点是同一台主机上的 Docker 容器），kube-proxy 为 ${run.kubeProxyMode} 模式，CNI 是 kindnet。`,
      },
      standsFor: {
        en: 'A multi-node Kubernetes cluster.',
        zh: '它代表一个多节点的 Kubernetes 集群。',
      },
      limits: [
        {
          en: 'It has no cloud load balancer: a LoadBalancer Service stays pending; only its NodePorts and health-check port are served.',
          zh: '没有云负载均衡器：LoadBalancer 类型的 Service 一直处于 pending 状态，只有它的 NodePort 和健康检查端口在工作。',
        },
        {
          en: 'All nodes share one host kernel and one Docker network.',
          zh: '所有节点共用主机的同一个内核和同一个 Docker 网络。',
        },
      ],
    };
  }

  async preflight(): Promise<void> {
    const quick = { env: this.childEnv, cwd: this.cwd, timeoutMs: this.timeouts.quickMs };
    const [docker, kind, kubectl] = await Promise.all([
      runTool(cmd.dockerVersion(), quick),
      runTool(cmd.kindVersion(), quick),
      runTool(cmd.kubectlClientVersion({ kubeconfig: this.kubeconfig }), quick),
    ]);
    const problems: string[] = [];
    if (docker.missing) {
      problems.push('docker is not installed (no `docker` on PATH): install Docker Engine or Docker Desktop, https://docs.docker.com/get-docker/');
    } else if (docker.exitCode !== 0 || !this.dockerServerUp(docker.stdout)) {
      problems.push(`the Docker daemon is not reachable (${firstLine(docker.stderr) || 'docker version printed no server'}): start Docker`);
    }
    if (kind.missing) problems.push('kind is not installed (no `kind` on PATH): https://kind.sigs.k8s.io/docs/user/quick-start/#installation');
    else if (kind.exitCode !== 0) problems.push(`\`kind version\` failed: ${firstLine(kind.stderr)}`);
    if (kubectl.missing) problems.push('kubectl is not installed (no `kubectl` on PATH): https://kubernetes.io/docs/tasks/tools/');
    else if (kubectl.exitCode !== 0) problems.push(`\`kubectl version --client\` failed: ${firstLine(kubectl.stderr)}`);
    if (problems.length > 0) {
      throw new PrerequisiteError(`kind driver: ${problems.join('; ')}; on Linux, --driver lab runs the experiment without Docker`);
    }
  }

  private dockerServerUp(stdout: string): boolean {
    try {
      return parseDockerVersion(stdout).server !== null;
    } catch {
      return false;
    }
  }

  async versions(): Promise<Record<string, string>> {
    const versions: Record<string, string> = {};
    versions.kind = parseKindVersion((await this.quick(cmd.kindVersion(), 'read the kind version')).stdout);

    // With a cluster up, kubectl also reports the server; before, only the client.
    const clusterUp = this.topology !== null;
    const kubectl = clusterUp
      ? await this.quick(cmd.kubectlVersion({ kubeconfig: this.kubeconfig }), 'read the kubectl and Kubernetes versions')
      : await this.quick(cmd.kubectlClientVersion({ kubeconfig: this.kubeconfig }), 'read the kubectl version');
    const kube = parseKubectlVersion(kubectl.stdout);
    versions.kubectl = kube.client;
    if (kube.server) versions.kubernetes = kube.server;

    const docker = parseDockerVersion((await this.quick(cmd.dockerVersion(), 'read the docker version')).stdout);
    if (!docker.server) throw new DriverError('docker version: the Docker daemon is not reachable (no "Server" in its answer)');
    versions.docker = docker.server.version;
    versions['docker-host'] = `${docker.server.os}/${docker.server.arch}`;
    // The kernel every kind node runs on (the Docker host's, e.g. Docker Desktop's VM).
    versions['docker-kernel'] = docker.server.kernel;
    versions['host-os'] = `${osType()} ${release()}`;
    versions['host-arch'] = arch();

    if (clusterUp) Object.assign(versions, await this.clusterVersions());
    return versions;
  }

  private async clusterVersions(): Promise<Record<string, string>> {
    const t = this.requireTarget();
    const experiment = this.experiment!;
    const out: Record<string, string> = {};
    const controlPlane = cmd.nodeContainer(t.cluster, experiment.cluster.nodes.find((n) => n.role === 'control-plane')!.name);
    out['node-image'] = (await this.quick(cmd.dockerNodeImage(controlPlane), 'read the node image')).stdout.trim();
    const proxy = await this.run(cmd.kubectlGetKubeProxyConfig(t), this.timeouts.kubectlMs, 'read kube-proxy\'s configuration');
    out['kube-proxy-mode'] = parseKubeProxyMode(proxy.stdout);
    const runtime = this.kubeNodes.find((n) => n.k8sName === controlPlane)?.containerRuntime;
    if (runtime) out['container-runtime'] = runtime;

    // The iptables backend is chosen per node at boot: record it for every node, once if they agree.
    const perNode: [string, { version: string; backend: string }][] = [];
    for (const node of experiment.cluster.nodes) {
      const argv = cmd.dockerExec(cmd.nodeContainer(t.cluster, node.name), cmd.iptablesVersionCommand());
      perNode.push([node.name, parseIptablesVersion((await this.quick(argv, `read iptables' version on ${node.name}`)).stdout)]);
    }
    const distinct = new Set(perNode.map(([, v]) => `${v.version} ${v.backend}`));
    if (distinct.size === 1) {
      out.iptables = perNode[0]![1].version;
      out['iptables-backend'] = perNode[0]![1].backend;
    } else {
      for (const [node, v] of perNode) {
        out[`iptables@${node}`] = v.version;
        out[`iptables-backend@${node}`] = v.backend;
      }
    }
    return out;
  }

  async up(experiment: Experiment, ctx: DriverContext): Promise<Topology> {
    const t = this.bind(experiment);
    const paths = kindStatePaths(this.stateDir, t.cluster);
    await mkdir(this.stateDir, { recursive: true });
    const objects = await this.requireSession().declared(experiment);

    ctx.log(`looking for an existing kind cluster "${t.cluster}"`);
    const clusters = parseKindClusters((await this.run(cmd.kindGetClusters(), this.timeouts.quickMs, 'list kind clusters', ctx)).stdout);
    const exists = clusters.includes(t.cluster);
    let owned = false;
    if (exists) {
      const live = await this.liveContainers(t.cluster, ctx);
      owned = isOwned(await this.marker(t.cluster), t.cluster, live);
    }
    const decision = decideClusterAction({ cluster: t.cluster, exists, owned, reuse: this.options.reuse, markerFile: paths.marker });
    if (decision.action === 'refuse') throw new DriverError(decision.reason);
    if (decision.action === 'reuse') {
      this.owns = true;
      ctx.log(`reusing kind cluster "${t.cluster}", created by an earlier capture`);
    }
    if (decision.action === 'recreate') {
      this.owns = true;
      ctx.log(`deleting kind cluster "${t.cluster}" left by an earlier capture, to start fresh`);
      await this.run(cmd.kindDeleteCluster(t), this.timeouts.deleteMs, `delete kind cluster "${t.cluster}"`, ctx);
      await removeMarker(this.stateDir, t.cluster);
    }
    if (decision.action === 'create' && this.options.reuse) {
      ctx.log(`no kind cluster "${t.cluster}" to reuse: creating one`);
    }
    if (decision.action === 'create' || decision.action === 'recreate') await this.createCluster(experiment, ctx);

    if (this.options.loadImages) await this.loadImages(objects.images, ctx);

    const session = this.requireSession();
    await session.apply(experiment, ctx);
    const reading = await session.readWhenReady(experiment, objects, ctx, (nodes) => this.checkOwnerLabels(nodes));
    this.kubeNodes = reading.nodes;
    this.topology = reading.topology;
    return reading.topology;
  }

  /** Nodes without the capture's label belong to a cluster this capture did not create. */
  private checkOwnerLabels(nodes: KubeNode[]): void {
    const unlabelled = nodesWithoutLabel(nodes, OWNER_LABEL, OWNER_VALUE);
    if (unlabelled.length > 0) {
      throw new DriverError(
        `nodes ${unlabelled.join(', ')} lack the label ${OWNER_LABEL}=${OWNER_VALUE} that the capture's kind config sets: ` +
          `cluster "${this.requireTarget().cluster}" was not created by this capture`,
      );
    }
  }

  private async createCluster(experiment: Experiment, ctx: DriverContext): Promise<void> {
    const t = this.requireTarget();
    const paths = kindStatePaths(this.stateDir, t.cluster);
    await writeFile(paths.config, renderKindConfig(experiment.cluster, this.options.runId));
    // The marker exists before kind starts, so an interrupted create is still ours to clean up.
    await writeMarker(this.stateDir, {
      createdBy: 'shice', cluster: t.cluster, runId: this.options.runId, createdAt: new Date().toISOString(), containers: [],
    });
    this.createStarted = true;
    this.owns = true;
    ctx.log(`creating kind cluster "${t.cluster}" (3 nodes; this takes a minute or two)`);
    await this.run(cmd.kindCreateCluster(t, paths.config, this.options.image), this.timeouts.createMs, `create kind cluster "${t.cluster}"`, ctx);
    const live = await this.liveContainers(t.cluster, ctx);
    if (live.length === 0) throw new DriverError(`kind create cluster reported success, but docker lists no containers labelled ${cmd.KIND_CLUSTER_LABEL}=${t.cluster}`);
    await writeMarker(this.stateDir, {
      createdBy: 'shice', cluster: t.cluster, runId: this.options.runId, createdAt: new Date().toISOString(), containers: live,
    });
  }

  private async loadImages(images: string[], ctx: DriverContext): Promise<void> {
    const t = this.requireTarget();
    for (const image of images) {
      const present = await this.runRaw(cmd.dockerImageInspect(image), this.timeouts.quickMs, `inspect image ${image}`, ctx);
      if (present.exitCode !== 0) {
        ctx.log(`pulling ${image} into the local docker`);
        await this.run(cmd.dockerPull(image), this.timeouts.loadMs, `pull ${image}`, ctx);
      }
      ctx.log(`loading ${image} into the nodes of "${t.cluster}"`);
      await this.run(cmd.kindLoadImage(t, image), this.timeouts.loadMs, `load ${image} into the nodes`, ctx);
    }
  }

  execArgv(node: string, command: string[]): string[] {
    const t = this.requireTarget();
    if (this.experiment && !this.experiment.cluster.nodes.some((n) => n.name === node)) {
      const known = this.experiment.cluster.nodes.map((n) => n.name).join(', ');
      throw new DriverError(`no node "${node}" in cluster "${t.cluster}" (experiment.ts cluster.nodes has: ${known})`);
    }
    const container = this.topology?.nodes.find((n) => n.name === node)?.k8sName ?? cmd.nodeContainer(t.cluster, node);
    return cmd.dockerExec(container, command);
  }

  async exec(node: string, command: string[], ctx: DriverContext): Promise<ExecOutcome> {
    const argv = this.execArgv(node, command);
    const run = await this.runRaw(argv, this.timeouts.execMs, `run ${command[0]} on ${node}`, ctx);
    if (run.exitCode !== 0 && isDockerFailure(run.stderr)) {
      throw new DriverError(`docker exec on ${argv[2]} failed (exit ${run.exitCode}): ${firstLine(run.stderr)}`);
    }
    return outcome(run);
  }

  async deletePod(
    step: { pod: string; namespace: string; settleNode: string; settleService: string },
    ctx: DriverContext,
  ): Promise<ExecOutcome & { command: string[] }> {
    return this.requireSession().deletePod(step, ctx);
  }

  planDeletePod(step: { pod: string; namespace: string; settleNode: string; settleService: string }): string[][] {
    return this.requireSession().planDeletePod(step);
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    if (this.downDone) return;
    const t = this.target;
    if (!t || !this.owns) {
      // Nothing of ours exists (up() never ran, or refused a cluster it did not create).
      this.downDone = true;
      return;
    }
    if (this.options.keep) {
      await this.recordContainersIfMissing(t.cluster);
      ctx.log(`keeping kind cluster "${t.cluster}" (kubeconfig ${this.kubeconfig}); --reuse runs on it`);
      this.downDone = true;
      return;
    }
    const marker = await this.marker(t.cluster);
    // No abort signal here: cleanup must run even after Ctrl-C.
    const live = parseContainerList((await this.run(cmd.dockerListClusterContainers(t.cluster), this.timeouts.quickMs, 'list the cluster\'s containers')).stdout);
    if (live.length > 0 && marker && marker.containers.length > 0 && !isOwned(marker, t.cluster, live)) {
      throw new DriverError(
        `kind cluster "${t.cluster}" now has containers this capture did not create (marker ${markerPath(this.stateDir, t.cluster)}); not deleting it`,
      );
    }
    if (live.length > 0 || this.createStarted) {
      ctx.log(`deleting kind cluster "${t.cluster}"`);
      await this.run(cmd.kindDeleteCluster(t), this.timeouts.deleteMs, `delete kind cluster "${t.cluster}"`);
    }
    await removeMarker(this.stateDir, t.cluster);
    this.downDone = true;
  }

  plan(experiment: Experiment): { setup: string[][]; teardown: string[][] } {
    const t = this.bind(experiment);
    const paths = kindStatePaths(this.stateDir, t.cluster);
    const objects = declaredObjects(
      experiment.manifests.map((m) => ({ file: m, text: readFileSync(resolve(this.options.articleDir, m), 'utf8') })),
    );
    const setup: string[][] = [cmd.kindGetClusters()];
    if (!this.options.reuse) setup.push(cmd.kindCreateCluster(t, paths.config, this.options.image));
    if (this.options.loadImages) {
      for (const image of objects.images) setup.push(cmd.dockerImageInspect(image), cmd.kindLoadImage(t, image));
    }
    setup.push(...this.requireSession().planApply(experiment, objects));
    return { setup, teardown: this.options.keep ? [] : [cmd.kindDeleteCluster(t)] };
  }

  // --- helpers ---------------------------------------------------------------

  /** Remembers the experiment's cluster; up() and plan() both start here. */
  private bind(experiment: Experiment): cmd.KindTarget {
    try {
      checkNodeNaming(experiment.cluster);
    } catch (error) {
      throw new DriverError((error as Error).message);
    }
    this.experiment = experiment;
    this.target = { cluster: experiment.cluster.name, kubeconfig: this.kubeconfig };
    this.session = new ClusterSession({
      target: this.target,
      cluster: experiment.cluster.name,
      articleDir: this.options.articleDir,
      cwd: this.cwd,
      env: this.childEnv,
      timeouts: this.timeouts,
      execArgv: (node, command) => this.execArgv(node, command),
      clientNode: experiment.client,
      isRunnerFailure: isDockerFailure,
    });
    return this.target;
  }

  private requireSession(): ClusterSession {
    if (!this.session) throw new DriverError('kind driver: call plan() or up() first (the cluster name comes from the experiment)');
    return this.session;
  }

  private requireTarget(): cmd.KindTarget {
    if (!this.target) throw new DriverError('kind driver: call plan() or up() first (the cluster name comes from the experiment)');
    return this.target;
  }

  private requireTopology(): Topology {
    if (!this.topology) throw new DriverError('kind driver: up() has not finished, so the cluster\'s topology is unknown');
    return this.topology;
  }

  private clientNode(): string {
    return this.experiment?.client ?? 'control-plane';
  }

  private async marker(cluster: string) {
    try {
      return await readMarker(this.stateDir, cluster);
    } catch (error) {
      throw new DriverError((error as Error).message);
    }
  }

  private async liveContainers(cluster: string, ctx?: DriverContext) {
    const run = await this.run(cmd.dockerListClusterContainers(cluster), this.timeouts.quickMs, `list the containers of kind cluster "${cluster}"`, ctx);
    try {
      return parseContainerList(run.stdout);
    } catch (error) {
      throw new DriverError((error as Error).message);
    }
  }

  /** With --keep after an interrupted create, record what exists so a later --reuse or delete can prove ownership. */
  private async recordContainersIfMissing(cluster: string): Promise<void> {
    const marker = await this.marker(cluster);
    if (!marker || marker.containers.length > 0 || !this.createStarted) return;
    const live = await this.liveContainers(cluster);
    if (live.length > 0) await writeMarker(this.stateDir, { ...marker, containers: live });
  }

  private quick(argv: string[], what: string): Promise<ToolRun> {
    return this.run(argv, this.timeouts.quickMs, what);
  }

  /** Runs a command that must succeed; any failure is a DriverError naming what and why. */
  private run(argv: string[], timeoutMs: number, what: string, ctx?: DriverContext): Promise<ToolRun> {
    return runOrThrow(argv, { env: this.childEnv, cwd: this.cwd, timeoutMs }, what, ctx);
  }

  /** Runs a command whose exit code is the caller's to judge. */
  private runRaw(argv: string[], timeoutMs: number, what: string, ctx?: DriverContext): Promise<ToolRun> {
    return runJudged(argv, { env: this.childEnv, cwd: this.cwd, timeoutMs }, what, ctx);
  }
}
