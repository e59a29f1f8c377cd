// The kind driver: a real three-node kind cluster of the capture's own, driven
// through kind, kubectl and docker with argv arrays. The user's kubeconfig and
// clusters are never read or touched: every call carries the capture's kubeconfig
// (and KUBECONFIG points at it), and only a cluster this capture created is ever
// reused or deleted.
import { existsSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import { arch, release, type as osType } from 'node:os';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import type { Experiment } from '../../experiment/types.ts';
import {
  DriverError,
  PrerequisiteError,
  VariantUnsupported,
  type ApiAccess,
  type DriverContext,
  type DriverEnvironment,
  type ExecLimits,
  type Localized,
  type NodeProvider,
  type ProviderLeftovers,
  type RunIdentity,
  type StandInDecision,
} from '../driver.ts';
import { declaredObjects } from '../kubectl/manifest-objects.ts';
import { runJudged, runOrThrow } from '../checked-run.ts';
import { firstLine, runProcess, runTool, seconds, sleep, stopProcessesWithEnv, text, type ProcessResult, type ToolRun } from '../process.ts';
import { nodesWithoutLabel, type KubeNode } from '../kubectl/topology.ts';
import { agreedValue } from '../kubectl/api-output.ts';
import { readIpvsFacts } from '../host.ts';
import * as cmd from './commands.ts';
import { checkNodeNaming, KIND_DEFAULT_SETUP, OWNER_LABEL, OWNER_VALUE, renderKindConfig, type NodeSetup } from './config.ts';
import { ownEngineRecord, type EngineRecord } from './engine/engine.ts';
import { readImagesRecord, type LocalImage } from './image/build.ts';
import { standInForKindnetd } from './kindnet-stand-in.ts';
import { mergeNodeDecisions, type NodeDecisions } from '../provider/stand-in.ts';
import { KIND_MARKS } from './phases.ts';
import { KIND_PATH_DIRS } from './prepare.ts';
import { substituteImages, type Substitution } from './substitutes.ts';
import { parseNodeList as parseNodes } from '../kubectl/topology.ts';
import { decideClusterAction, isOwned, markerPath, readMarker, removeMarker, writeMarker } from './ownership.ts';
import { forgetRecord, recordKindRun, type KindRunRecord } from '../run-registry.ts';
import { changeText, readSysctls, restoreSysctls, type Sysctls } from './engine/host-state.ts';
import {
  isDockerFailure,
  nodeProblems,
  parseContainerdVersion,
  parseContainerList,
  parseContainerStates,
  type ContainerState,
  parseDockerVersion,
  parseIptablesVersion,
  parseKindClusters,
  parseKindVersion,
  parseKubeletVersion,
  parseRuncVersion,
} from './tool-output.ts';

/** Upper bounds of the provider's own calls, in milliseconds (the cluster's are in cluster/cluster.ts). */
export interface KindTimeouts {
  /** version checks, `kind get clusters`, `docker ps`, `docker inspect`, one `kubectl get` */
  quickMs: number;
  /** `kind create cluster`, including a first pull of the node image */
  createMs: number;
  deleteMs: number;
  /** `docker pull` and `kind load docker-image` */
  loadMs: number;
  /** one command the stand-in runs on a node */
  execMs: number;
  /** how long the nodes may take to be given their podCIDRs (the stand-in waits for them) */
  podCidrsMs: number;
  pollMs: number;
}

export const DEFAULT_KIND_TIMEOUTS: KindTimeouts = {
  quickMs: 30_000,
  createMs: 15 * 60_000,
  deleteMs: 3 * 60_000,
  loadMs: 10 * 60_000,
  execMs: 60_000,
  podCidrsMs: 150_000,
  pollMs: 250,
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
  /**
   * This machine as kind:prepare left it: shice's own Docker engine, the tools and the
   * local images it built. Without it the driver uses kind's defaults only (the contract
   * tests, with fake tools).
   */
  host?: {
    /** The project root, where .shice/ lives. */
    root: string;
    /** Whether a registry answers: then kind's official node image and the manifests' own images. */
    registryReachable: () => Promise<boolean>;
  };
}

/** Which node image a run uses, and why. */
export interface NodeImageChoice {
  /** null: kind's own default (kindest/node). */
  name: string | null;
  source: 'option' | 'official' | 'local';
  /** What kind:prepare recorded of a local image. */
  local: LocalImage | null;
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

/** The environment variable naming the run in every process the driver starts (and their children). */
export const RUN_MARK = 'SHICE_KIND_RUN';

/** kind bind-mounts it into every node; docker creates it on the host when it is missing. */
const LIB_MODULES = '/lib/modules';
/** kubelet's own health server, on every node's loopback. */
const KUBELET_HEALTHZ = 'http://127.0.0.1:10248/healthz';

/** What went into a local node image, in one line for run.yaml. */
export function localImageInputs(inputs: Record<string, string>): string {
  const keys = ['debian', 'kind', 'kubernetes', 'containerd', 'runc', 'containernetworking-plugins', 'crictl', 'etcd', 'pause', 'coredns'];
  return keys
    .filter((k) => inputs[k])
    .map((k) => `${k} ${inputs[k]}`)
    .join('; ');
}

export class KindDriver implements NodeProvider {
  readonly name = 'kind' as const;
  private readonly options: KindDriverOptions;
  private readonly timeouts: KindTimeouts;
  private readonly stateDir: string;
  private readonly kubeconfig: string;
  private readonly cwd: string;
  private childEnv: NodeJS.ProcessEnv;
  /** shice's own Docker engine, when the run uses it. */
  private engine: EngineRecord | null = null;
  private nodeImage: NodeImageChoice = { name: null, source: 'official', local: null };
  private setup: NodeSetup = KIND_DEFAULT_SETUP;
  private substitutions: Substitution[] = [];
  /** What the kindnetd stand-in wrote on each node (none when kindnetd ran). */
  private standInWritten: NodeDecisions[] = [];
  /** Manifest -> the copy with substituted images that kubectl applies. */
  private manifestCopies = new Map<string, string>();
  /** The node containers as the steps began: verifyIntact compares against it. */
  private nodeStates: ContainerState[] = [];
  /** Whether /lib/modules was there before kind's node mounts (which docker creates when missing); null: not ours to know. */
  private libModulesExisted: boolean | null = null;
  /** The host's kernel settings before the cluster was created, written back after it is deleted; null: not this machine's kernel, or not ours to know. */
  private hostSysctls: Sysctls | null = null;
  /** Whether docker's network `kind` was there before this capture created a cluster (null: it created none). */
  private kindNetworkExisted: boolean | null = null;

  private experiment: Experiment | null = null;
  private target: cmd.KindTarget | null = null;
  /** This driver may delete the cluster: it created it, or proved an earlier capture did. */
  private owns = false;
  /** `kind create cluster` was started by this driver (containers may exist even if it failed). */
  private createStarted = false;
  private downDone = false;
  /** This run wrote a record of its cluster in the run registry (real runs, with host). */
  private recorded = false;

  constructor(options: KindDriverOptions) {
    this.options = options;
    this.timeouts = { ...DEFAULT_KIND_TIMEOUTS, ...options.timeouts };
    this.stateDir = resolve(options.stateDir);
    this.cwd = resolve(options.cwd ?? process.cwd());
    const kubeconfig = join(this.stateDir, 'kubeconfig');
    const inside = relative(this.cwd, kubeconfig);
    this.kubeconfig = inside.startsWith('..') || isAbsolute(inside) ? kubeconfig : inside;
    // Belt and braces: even a call that forgot --kubeconfig could not reach the user's file.
    // The run's mark is inherited by every tool and each of its children: after a kill -9, --clean finds them by it.
    this.childEnv = { ...(options.env ?? process.env), KUBECONFIG: this.kubeconfig, [RUN_MARK]: options.runId };
    if (options.host) this.useHost();
  }

  environment(run: RunIdentity): DriverEnvironment {
    const version = run.kubernetesVersion ? `Kubernetes ${run.kubernetesVersion}` : 'Kubernetes';
    const standIn = this.setup.cniStandIn;
    const limits: Localized[] = [];
    if (standIn) {
      limits.push({
        en: "kindnetd did not run: its part, the CNI config on each node and the routes between the nodes' pod CIDRs, was written by shice's stand-in; its masquerade rules for pod traffic leaving the cluster were not (no step sends any).",
        zh: 'kindnetd 没有运行：它负责的部分，即每个节点上的 CNI 配置和节点之间到 Pod 网段的路由，由 shice 的替身写入；它为离开集群的 Pod 流量设置的伪装规则没有写（没有哪一步发出这样的流量）。',
      });
    }
    if (this.nodeImage.source === 'local') {
      limits.push({
        en: "No registry could be reached: the node image was built on this machine from Debian's packages (containerd, runc, the CNI plugins), kind's own base files and the Kubernetes binaries built from the official modules, not kind's published kindest/node; CoreDNS was left out.",
        zh: '这里连不上任何镜像仓库：节点镜像是在本机构建的，用的是 Debian 的软件包（containerd、runc、CNI 插件）、kind 自己的基础文件和从官方模块构建的 Kubernetes 程序，而不是 kind 发布的 kindest/node；CoreDNS 没有安装。',
      });
    }
    for (const sub of this.substitutions)
      limits.push({ en: `${sub.note.en} (${sub.image} -> ${sub.ranInstead})`, zh: `${sub.note.zh}（${sub.image} -> ${sub.ranInstead}）` });
    limits.push(
      {
        en: 'It has no cloud load balancer: a LoadBalancer Service stays pending; only its NodePorts and health-check port are served.',
        zh: '没有云负载均衡器：LoadBalancer 类型的 Service 一直处于 pending 状态，只有它的 NodePort 和健康检查端口在工作。',
      },
      {
        en: 'All nodes share one host kernel and one Docker network.',
        zh: '所有节点共用主机的同一个内核和同一个 Docker 网络。',
      },
    );
    return {
      summary: standIn
        ? {
            en: `A real three-node kind cluster (${version}, nodes as Docker containers on one host), kube-proxy in ${run.kubeProxyMode} mode; kindnetd's part written by shice's stand-in.`,
            zh: `一个真实的三节点 kind 集群（${version}，节点是同一台主机上的 Docker 容器），kube-proxy 为 ${run.kubeProxyMode} 模式；kindnetd 的部分由 shice 的替身写入。`,
          }
        : {
            en: `A real three-node kind cluster (${version}, nodes as Docker containers on one host), kube-proxy in ${run.kubeProxyMode} mode, kindnet as the CNI.`,
            zh: `一个真实的三节点 kind 集群（${version}，节点是同一台主机上的 Docker 容器），kube-proxy 为 ${run.kubeProxyMode} 模式，CNI 是 kindnet。`,
          },
      standsFor: {
        en: 'A multi-node Kubernetes cluster.',
        zh: '它代表一个多节点的 Kubernetes 集群。',
      },
      limits,
    };
  }

  /** What the kindnetd stand-in wrote and read on each node, merged: run.yaml's environment.standIn (none when kindnetd ran). */
  async standIn(_ctx: DriverContext): Promise<StandInDecision[]> {
    return mergeNodeDecisions(this.standInWritten);
  }

  async preflight(experiment?: Experiment): Promise<void> {
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
      const prepare = this.options.host && process.platform === 'linux' ? 'npm run kind:prepare sets up all of it on Linux; ' : '';
      throw new PrerequisiteError(`kind driver: ${problems.join('; ')}; ${prepare}on Linux, --driver lab runs the experiment without Docker`);
    }
    if (experiment?.cluster.kubeProxyMode === 'ipvs' && this.engine !== null) {
      // shice's own engine runs on this machine: the nodes run on this kernel, so its IPVS decides.
      const ipvs = readIpvsFacts();
      if (!ipvs.procNetIpVs) {
        const why = ipvs.configLine === null ? '/proc/net/ip_vs is absent' : `/proc/config.gz: ${ipvs.configLine.replace(/^# /, '')}`;
        throw new VariantUnsupported(`the kind nodes run on this machine's kernel, which has no IPVS (${why}): kube-proxy cannot run in ipvs mode here`);
      }
    }
    if (this.options.host) await this.chooseNodeImage(this.options.host, experiment);
  }

  /** Set by chooseNodeImage: preflight() and up() may run on different instances of the driver. */
  private chosen = false;

  /** shice's own engine (when kind:prepare started one) and kind:prepare's tools, ahead of the user's. */
  private useHost(): void {
    this.engine = ownEngineRecord();
    const path = [...KIND_PATH_DIRS, this.childEnv.PATH ?? ''].filter(Boolean).join(':');
    this.childEnv = { ...this.childEnv, PATH: path, ...(this.engine ? { DOCKER_HOST: `unix://${this.engine.socket}` } : {}) };
  }

  /**
   * --image when given; kind's official image where a registry answers; else the node image
   * kind:prepare built, whose lack of kindnetd and CoreDNS the cluster config then accounts for.
   */
  private async chooseNodeImage(host: NonNullable<KindDriverOptions['host']>, experiment?: Experiment): Promise<void> {
    this.chosen = true;
    const record = readImagesRecord();
    const quick = { env: this.childEnv, cwd: this.cwd, timeoutMs: this.timeouts.quickMs };
    const present = async (image: string) => (await runTool(cmd.dockerImageInspect(image), quick)).exitCode === 0;
    if (this.options.image) {
      const local = record?.node.name === this.options.image ? record.node : null;
      this.nodeImage = { name: this.options.image, source: 'option', local };
    } else if (await host.registryReachable()) {
      this.nodeImage = { name: null, source: 'official', local: null };
    } else if (record && (await present(record.node.name))) {
      this.nodeImage = { name: record.node.name, source: 'local', local: record.node };
    } else {
      throw new PrerequisiteError(
        'kind driver: no container registry answers and there is no local node image: run npm run kind:prepare (it builds one), or pass --image',
      );
    }
    const cgroup = await runTool(cmd.dockerCgroupVersion(), quick);
    const local = this.nodeImage.local !== null;
    this.setup = { cniStandIn: local, withoutCoreDNS: local, cgroupV1: cgroup.exitCode === 0 && cgroup.stdout.trim() === '1' };
    this.substitutions = [];
    if (local && experiment?.imageSubstitutes) {
      for (const sub of experiment.imageSubstitutes) {
        const built = record?.backends[sub.recipe];
        if (!built || !(await present(built.name))) {
          throw new PrerequisiteError(
            `kind driver: article.ts experiment.imageSubstitutes: ${sub.image} is to run as kind:prepare's ${sub.recipe}, which is not built: run npm run kind:prepare`,
          );
        }
        const what = Object.entries(built.inputs)
          .filter(([k]) => k !== 'debian')
          .map(([k, v]) => `${k} ${v}`)
          .join(', ');
        this.substitutions.push({
          image: sub.image,
          ranInstead: built.name,
          what: `Debian ${built.inputs.debian ?? ''} ${what}`.replace(/\s+/g, ' ').trim(),
          note: sub.note,
        });
      }
    }
  }

  private dockerServerUp(stdout: string): boolean {
    try {
      return parseDockerVersion(stdout).server !== null;
    } catch {
      return false;
    }
  }

  /** kind's, docker's and the host's versions, and what the nodes themselves report (their image, kubelet, runtime, iptables). */
  async facts(nodes: KubeNode[], ctx: DriverContext): Promise<Record<string, string>> {
    const versions: Record<string, string> = {};
    versions.kind = parseKindVersion((await this.quick(cmd.kindVersion(), 'read the kind version', ctx)).stdout);
    const docker = parseDockerVersion((await this.quick(cmd.dockerVersion(), 'read the docker version', ctx)).stdout);
    if (!docker.server) throw new DriverError('docker version: the Docker daemon is not reachable (no "Server" in its answer)');
    versions.docker = docker.server.version;
    versions['docker-host'] = `${docker.server.os}/${docker.server.arch}`;
    // The kernel every kind node runs on (the Docker host's, e.g. Docker Desktop's VM).
    versions['docker-kernel'] = docker.server.kernel;
    versions['host-os'] = `${osType()} ${release()}`;
    versions['host-arch'] = arch();
    Object.assign(versions, await this.nodeFacts(nodes, ctx));
    return versions;
  }

  private async nodeFacts(nodes: KubeNode[], ctx: DriverContext): Promise<Record<string, string>> {
    const t = this.requireTarget();
    const experiment = this.experiment!;
    const out: Record<string, string> = {};
    const controlPlane = cmd.nodeContainer(t.cluster, experiment.cluster.nodes.find((n) => n.role === 'control-plane')!.name);
    out['node-image'] = (await this.quick(cmd.dockerNodeImage(controlPlane), 'read the node image', ctx)).stdout.trim();
    if (this.options.host) {
      out['node-image-id'] = (await this.quick(cmd.dockerContainerImageId(controlPlane), "read the node image's id", ctx)).stdout.trim();
      out['node-image-source'] = {
        option: 'chosen with --image',
        official: "kind's official node image (a registry answered)",
        local: 'built on this machine by npm run kind:prepare (no registry answered)',
      }[this.nodeImage.source];
      if (this.nodeImage.local) out['node-image-inputs'] = localImageInputs(this.nodeImage.local.inputs);
    }
    const runtime = nodes.find((n) => n.k8sName === controlPlane)?.containerRuntime;
    if (runtime) out['container-runtime'] = runtime;

    // Read on the nodes themselves: each tool's own word, once when all nodes agree.
    const perNode = async (argv: string[], what: string, parse: (stdout: string) => string): Promise<[string, string][]> => {
      const found: [string, string][] = [];
      for (const node of experiment.cluster.nodes) {
        found.push([
          node.name,
          parse((await this.quick(cmd.dockerExec(cmd.nodeContainer(t.cluster, node.name), argv), `read ${what} on ${node.name}`, ctx)).stdout),
        ]);
      }
      return found;
    };
    if (this.options.host) {
      out.kubelet = agreedValue(await perNode(['kubelet', '--version'], "kubelet's version", parseKubeletVersion));
      out.containerd = agreedValue(await perNode(['containerd', '--version'], "containerd's version", parseContainerdVersion));
      out.runc = agreedValue(await perNode(['runc', '--version'], "runc's version", parseRuncVersion));
    }
    const iptables = await perNode(cmd.iptablesVersionCommand(), "iptables' version", (s) => {
      const v = parseIptablesVersion(s);
      return `${v.version} ${v.backend}`;
    });
    if (new Set(iptables.map(([, v]) => v)).size === 1) {
      const [version, backend] = iptables[0]![1].split(' ');
      out.iptables = version!;
      out['iptables-backend'] = backend!;
    } else {
      for (const [node, v] of iptables) {
        const [version, backend] = v.split(' ');
        out[`iptables@${node}`] = version!;
        out[`iptables-backend@${node}`] = backend!;
      }
    }
    if (this.options.host) {
      out.cni = this.setup.cniStandIn
        ? "shice's kindnetd stand-in (src/capture/kind/kindnet-stand-in.ts): 10-kindnet.conflist (ptp, host-local, portmap) and routes to the other nodes' pod CIDRs; no masquerade agent"
        : "kindnetd (kind's default CNI)";
      if (this.setup.withoutCoreDNS) out.coredns = "left out: kubeadm's CoreDNS addon skipped (no CoreDNS image without a registry)";
      if (this.setup.cgroupV1)
        out['kubelet-cgroups'] = 'cgroup v1 host: kubelet with cgroupDriver cgroupfs and failCgroupV1: false, containerd with SystemdCgroup = false';
      out['docker-engine'] = this.engine
        ? "shice's own dockerd (npm run kind:prepare): its own data root, no iptables rules in the host's root namespace"
        : "the host's Docker daemon";
      out['runtime-adaptation'] = this.engine?.adaptation?.summary ?? 'none';
      if (this.substitutions.length > 0)
        out['image-substitutes'] = this.substitutions.map((sub) => `${sub.image} -> ${sub.ranInstead} (${sub.what})`).join('; ');
    }
    return out;
  }

  api(experiment: Experiment): ApiAccess {
    const target = this.bind(experiment);
    return {
      target,
      cwd: this.cwd,
      env: this.childEnv,
      manifestFile: (manifest) => this.manifestCopies.get(manifest) ?? resolve(this.options.articleDir, manifest),
    };
  }

  async up(experiment: Experiment, ctx: DriverContext): Promise<void> {
    const t = this.bind(experiment);
    if (this.options.host && !this.chosen) await this.chooseNodeImage(this.options.host, experiment);
    const paths = kindStatePaths(this.stateDir, t.cluster);
    await mkdir(this.stateDir, { recursive: true });
    const objects = declaredObjects(experiment.manifests.map((m) => ({ file: m, text: readFileSync(resolve(this.options.articleDir, m), 'utf8') })));

    ctx.log(`looking for an existing kind cluster "${t.cluster}"`);
    const clusters = parseKindClusters((await this.run(cmd.kindGetClusters(), this.timeouts.quickMs, 'list kind clusters', ctx)).stdout);
    const exists = clusters.includes(t.cluster);
    let owned = false;
    if (exists) {
      const live = await this.liveContainers(t.cluster, ctx);
      owned = isOwned(await this.marker(t.cluster), t.cluster, live);
    }
    const decision = decideClusterAction({ cluster: t.cluster, exists, owned, reuse: this.options.reuse, markerFile: paths.marker });
    // Refused like a target that is not the capture's: exit 2, nothing touched.
    if (decision.action === 'refuse') throw new PrerequisiteError(decision.reason);
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
    if (this.setup.cniStandIn) await this.standInForKindnetd(experiment, ctx);
    if (this.substitutions.length > 0) await this.substitute(experiment, ctx);

    if (this.options.loadImages) await this.loadImages(objects.images, ctx);
    this.nodeStates = await this.readNodeStates(ctx);
  }

  private async readNodeStates(ctx?: DriverContext): Promise<ContainerState[]> {
    const t = this.requireTarget();
    const containers = (this.experiment?.cluster.nodes ?? []).map((n) => cmd.nodeContainer(t.cluster, n.name));
    if (containers.length === 0) return [];
    const run = await this.runRaw(cmd.dockerContainerStates(containers), this.timeouts.quickMs, "read the node containers' state", ctx);
    // A container docker no longer knows makes inspect fail for all: read it as gone.
    if (run.exitCode !== 0) return parseContainerStates(run.stdout).filter((c) => containers.includes(c.name));
    return parseContainerStates(run.stdout);
  }

  /** The node containers as up() left them (not stopped, not restarted), and kubelet answering on each. */
  async problems(ctx: DriverContext): Promise<string[]> {
    const t = this.requireTarget();
    const changes = nodeProblems(t.cluster, this.nodeStates, await this.readNodeStates(ctx));
    if (changes.length > 0) return changes;
    const kubelets = await Promise.all(
      this.experiment!.cluster.nodes.map(async (node) => {
        const run = await runTool(cmd.dockerExec(cmd.nodeContainer(t.cluster, node.name), ['curl', '--silent', '--max-time', '2', KUBELET_HEALTHZ]), {
          env: this.childEnv,
          cwd: this.cwd,
          timeoutMs: this.timeouts.quickMs,
          signal: ctx.signal,
        });
        const container = cmd.nodeContainer(t.cluster, node.name);
        return run.exitCode === 0 && run.stdout.trim() === 'ok'
          ? null
          : `kubelet on ${node.name} (node container ${container}) did not answer ${KUBELET_HEALTHZ} with ok (${run.timedOut ? 'no answer' : `exit ${run.exitCode}`})`;
      }),
    );
    const silent = kubelets.filter((p): p is string => p !== null);
    if (silent.length === 0) return [];
    // A node container dying as it is probed: docker's own word on it says more than the probe.
    const after = nodeProblems(t.cluster, this.nodeStates, await this.readNodeStates(ctx));
    return after.length > 0 ? after : silent;
  }

  /** Nodes without the capture's label belong to a cluster this capture did not create. */
  checkNodes(nodes: KubeNode[]): void {
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
    if (this.options.host) {
      // kind leaves its network behind; the capture removes it afterwards only if it was not there before.
      this.kindNetworkExisted =
        (await runTool(cmd.dockerNetworkInspect(cmd.KIND_NETWORK), { env: this.childEnv, cwd: this.cwd, timeoutMs: this.timeouts.quickMs })).exitCode === 0;
      // kind mounts the host's /lib/modules into every node; with shice's own engine that host is this machine.
      if (this.engine !== null) this.libModulesExisted = existsSync(LIB_MODULES);
      // Privileged nodes write kernel settings that are not namespaced (kubelet's kernel.panic, systemd's fs.file-max): the host's own.
      if (this.engine !== null) this.hostSysctls = readSysctls();
    }
    await writeFile(paths.config, renderKindConfig(experiment.cluster, this.options.runId, this.setup));
    // The record and the marker exist before kind starts: after a kill -9, the next capture or
    // --clean finds the cluster by them (kindLeftovers) and the marker proves it is this run's.
    if (this.options.host)
      recordKindRun({
        runId: this.options.runId,
        cluster: t.cluster,
        stateDir: this.stateDir,
        root: this.options.host.root,
        ...(this.hostSysctls ? { hostSysctls: this.hostSysctls } : {}),
        ...(this.kindNetworkExisted === null ? {} : { kindNetworkExisted: this.kindNetworkExisted }),
        ...(this.libModulesExisted === null ? {} : { libModulesExisted: this.libModulesExisted }),
      });
    this.recorded = this.options.host !== undefined;
    await writeMarker(this.stateDir, {
      createdBy: 'shice',
      cluster: t.cluster,
      runId: this.options.runId,
      createdAt: new Date().toISOString(),
      containers: [],
    });
    this.createStarted = true;
    this.owns = true;
    ctx.log(`${KIND_MARKS.create} "${t.cluster}" (3 nodes, ${this.nodeImage.name ?? "kind's default node image"}; this takes a minute or two)`);
    await this.run(
      cmd.kindCreateCluster(t, paths.config, this.nodeImage.name ?? this.options.image, !this.setup.cniStandIn),
      this.timeouts.createMs,
      `create kind cluster "${t.cluster}"`,
      ctx,
    );
    const live = await this.liveContainers(t.cluster, ctx);
    if (live.length === 0)
      throw new DriverError(`kind create cluster reported success, but docker lists no containers labelled ${cmd.KIND_CLUSTER_LABEL}=${t.cluster}`);
    await writeMarker(this.stateDir, {
      createdBy: 'shice',
      cluster: t.cluster,
      runId: this.options.runId,
      createdAt: new Date().toISOString(),
      containers: live,
    });
  }

  /** Once every node has its podCIDR, what kindnetd would write and program on each (kindnet-stand-in.ts). */
  private async standInForKindnetd(experiment: Experiment, ctx: DriverContext): Promise<void> {
    const t = this.requireTarget();
    ctx.log(`${KIND_MARKS.standIn}, then writing kindnetd's part on each (the stand-in)`);
    const deadline = performance.now() + this.timeouts.podCidrsMs;
    let nodes: KubeNode[] = [];
    for (;;) {
      const listed = await this.runRaw(cmd.kubectlGetNodes(t), this.timeouts.quickMs, 'read the nodes', ctx);
      try {
        if (listed.exitCode === 0) nodes = parseNodes(listed.stdout);
      } catch {
        nodes = []; // a node without its podCIDR yet
      }
      if (nodes.length === experiment.cluster.nodes.length) break;
      if (performance.now() > deadline)
        throw new DriverError(`the nodes of "${t.cluster}" were not all given a podCIDR within ${seconds(this.timeouts.podCidrsMs)}`);
      try {
        await sleep(this.timeouts.pollMs, ctx.signal);
      } catch {
        throw new DriverError("interrupted while waiting for the nodes' podCIDRs");
      }
    }
    this.standInWritten = await standInForKindnetd(
      nodes.map((n) => ({ container: n.k8sName, internalIP: n.internalIP, podCIDR: n.podCIDR })),
      async (container, argv, what, input) => {
        const run =
          input === undefined
            ? await this.run(cmd.dockerExec(container, argv), this.timeouts.execMs, what, ctx)
            : await runOrThrow(
                cmd.dockerExecWithInput(container, argv),
                { env: this.childEnv, cwd: this.cwd, timeoutMs: this.timeouts.execMs, input },
                what,
                ctx,
              );
        return run.stdout;
      },
    );
  }

  /** Loads each declared substitute into the nodes and writes the manifests' copies that name it. */
  private async substitute(experiment: Experiment, ctx: DriverContext): Promise<void> {
    const t = this.requireTarget();
    const map = new Map(this.substitutions.map((s) => [s.image, s.ranInstead]));
    for (const sub of this.substitutions) {
      ctx.log(`loading ${sub.ranInstead} into the nodes of "${t.cluster}", to run in place of ${sub.image} (no registry answers)`);
      await this.run(cmd.kindLoadImage(t, sub.ranInstead), this.timeouts.loadMs, `load ${sub.ranInstead} into the nodes`, ctx);
    }
    const dir = join(this.stateDir, `${t.cluster}.manifests`);
    await mkdir(dir, { recursive: true });
    for (const manifest of experiment.manifests) {
      const text = await readFile(resolve(this.options.articleDir, manifest), 'utf8');
      const copy = substituteImages(text, map, manifest);
      if (copy.replaced === 0) continue;
      const file = join(dir, manifest.replace(/[\\/]/g, '_'));
      await writeFile(file, copy.text);
      this.manifestCopies.set(manifest, file);
    }
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

  nodeArgv(node: string, command: string[]): string[] {
    const t = this.requireTarget();
    if (this.experiment && !this.experiment.cluster.nodes.some((n) => n.name === node)) {
      const known = this.experiment.cluster.nodes.map((n) => n.name).join(', ');
      throw new DriverError(`no node "${node}" in cluster "${t.cluster}" (article.ts experiment.cluster.nodes has: ${known})`);
    }
    // kind names its node containers <cluster>-<node> (checkNodeNaming holds the experiment to it).
    return cmd.dockerExec(cmd.nodeContainer(t.cluster, node), command);
  }

  async exec(node: string, command: string[], limits: ExecLimits, ctx: DriverContext): Promise<ProcessResult> {
    const argv = this.nodeArgv(node, command);
    const run = await runProcess(argv, {
      env: this.childEnv,
      cwd: this.cwd,
      timeoutMs: limits.timeoutMs,
      signal: ctx.signal,
      ...(limits.keepBytes ? { keepBytes: limits.keepBytes } : {}),
    });
    if (run.missing) throw new DriverError(`could not run ${command[0]} on ${node}: \`docker\` is not on PATH`);
    if (run.canceled || run.exitCode === 0) return run;
    const stderr = text(run.stderr);
    // A command's own failure is a result; a node that went away under it is not (docker exec's
    // words for that vary while a container dies, so ask docker about the nodes themselves).
    const t = this.requireTarget();
    const nodes = nodeProblems(t.cluster, this.nodeStates, await this.readNodeStates(ctx));
    if (nodes.length > 0)
      throw new DriverError(`${nodes.join('; ')} during the step (${command[0]} on ${node} exited ${run.exitCode}: ${firstLine(stderr) || 'no message'})`);
    if (!run.timedOut && isDockerFailure(stderr)) {
      throw new DriverError(`docker exec on ${argv[2]} failed (exit ${run.exitCode}): ${firstLine(stderr)}`);
    }
    return run;
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    await this.teardown(ctx.log);
  }

  /** down(), returning what it removed, one phrase each. */
  private async teardown(log: (line: string) => void): Promise<string[]> {
    if (this.downDone) return [];
    const t = this.target;
    if (!t || !this.owns) {
      // Nothing of ours exists (up() never ran, or refused a cluster it did not create).
      this.downDone = true;
      return [];
    }
    if (this.options.keep) {
      await this.recordContainersIfMissing(t.cluster);
      log(`keeping kind cluster "${t.cluster}" (kubeconfig ${this.kubeconfig}); --reuse runs on it`);
      // Kept on purpose: no longer a leftover for the next capture or --clean to remove.
      if (this.recorded) forgetRecord('kind', this.options.runId);
      this.downDone = true;
      return [];
    }
    const removed: string[] = [];
    const marker = await this.marker(t.cluster);
    // No abort signal here: cleanup must run even after Ctrl-C.
    let live = await this.liveContainers(t.cluster);
    if (live.length > 0 && marker && marker.containers.length > 0 && !isOwned(marker, t.cluster, live)) {
      throw new DriverError(
        `kind cluster "${t.cluster}" now has containers this capture did not create (marker ${markerPath(this.stateDir, t.cluster)}); not deleting it`,
      );
    }
    if (live.length > 0 || this.createStarted) {
      log(`deleting kind cluster "${t.cluster}"`);
      const gone = new Set(live.map((c) => c.name));
      const deleted = await this.runRaw(cmd.kindDeleteCluster(t), this.timeouts.deleteMs, `delete kind cluster "${t.cluster}"`);
      // kind fails when a node it listed is deleted under it (a `kind delete` from another shell): what is left is removed below.
      const kindSaid = deleted.exitCode === 0 ? '' : `: ${firstLine(deleted.stderr) || `exit ${deleted.exitCode}`}`;
      // A `docker run` killed mid-request (an interrupted kind create) leaves docker creating its node: listed,
      // yet "No such container" to a delete until docker has copied the image's /var into the node's volume
      // (seconds). kind's delete says it deleted such a node all the same; it is removed once docker lets it.
      const deadline = performance.now() + this.timeouts.deleteMs;
      for (live = await this.liveContainers(t.cluster); live.length > 0; live = await this.liveContainers(t.cluster)) {
        for (const c of live) gone.add(c.name);
        if (performance.now() > deadline)
          throw new DriverError(
            `could not delete kind cluster "${t.cluster}": docker still lists ${live.map((c) => c.name).join(', ')} ${seconds(this.timeouts.deleteMs)} after kind's delete${kindSaid}`,
          );
        await this.runRaw(cmd.dockerRemoveContainers(live.map((c) => c.id)), this.timeouts.quickMs, `remove the node containers of "${t.cluster}"`);
        await sleep(this.timeouts.pollMs);
      }
      if (gone.size > 0) removed.push(`kind cluster "${t.cluster}" (${[...gone].sort().join(', ')})`);
    }
    await removeMarker(this.stateDir, t.cluster);
    await this.removeStateFiles(t.cluster);
    if (this.kindNetworkExisted === false) {
      const network = await this.removeKindNetwork(log);
      if (network) removed.push(network);
    }
    if (this.libModulesExisted === false && existsSync(LIB_MODULES) && readdirSync(LIB_MODULES).length === 0) {
      rmdirSync(LIB_MODULES);
      log(`removed the empty ${LIB_MODULES} that docker made for kind's node mounts`);
      removed.push(`the empty ${LIB_MODULES} docker made for kind's node mounts`);
    }
    if (this.hostSysctls !== null) {
      const { restored, failed } = restoreSysctls(this.hostSysctls);
      if (restored.length > 0) {
        log(`wrote back what the cluster changed of this host's kernel settings: ${restored.map(changeText).join(', ')}`);
        removed.push(`the cluster's changes to this host's kernel settings (written back: ${restored.map(changeText).join(', ')})`);
      }
      if (failed.length > 0) throw new DriverError(`could not write back ${failed.map(({ change, error }) => `${changeText(change)} (${error})`).join(', ')}`);
    }
    if (this.recorded) forgetRecord('kind', this.options.runId);
    this.downDone = true;
    return removed;
  }

  /**
   * What a killed run of this id left, removed as its own down() would have (kindLeftovers):
   * first every process it had running (a `kind create` and its `docker run`s go on otherwise),
   * then its cluster, only while the marker still names this run and the containers are the
   * ones it recorded, then kind's network and /lib/modules where the run's create made them.
   * Returns what it removed.
   */
  async removeLeftovers(record: KindRunRecord): Promise<string[]> {
    const { cluster } = record;
    const removed: string[] = [];
    const stopped = await stopProcessesWithEnv(`${RUN_MARK}=${this.options.runId}`);
    if (stopped.length > 0) removed.push(`the ${stopped.length} process(es) it still had running (${processSummary(stopped)})`);
    const docker = await runTool(cmd.dockerVersion(), { env: this.childEnv, cwd: this.cwd, timeoutMs: this.timeouts.quickMs });
    if (docker.exitCode !== 0 || !this.dockerServerUp(docker.stdout)) {
      const stopped = removed.length > 0 ? `stopped ${removed[0]}, but ` : '';
      throw new DriverError(
        `${stopped}the Docker daemon does not answer (${firstLine(docker.stderr) || 'docker version printed no server'}), so its kind cluster "${cluster}" could not be looked for: start it (npm run kind:prepare) and run --clean again`,
      );
    }
    this.target = { cluster, kubeconfig: this.kubeconfig };
    this.hostSysctls = record.hostSysctls ?? null;
    this.kindNetworkExisted = record.kindNetworkExisted ?? null;
    this.libModulesExisted = record.libModulesExisted ?? null;
    const marker = await this.marker(cluster);
    // A later capture recreated it, or it is gone: not this run's to delete.
    if (!marker || marker.runId !== this.options.runId) return removed;
    const live = await this.liveContainers(cluster);
    if (live.length > 0 && marker.containers.length > 0 && !isOwned(marker, cluster, live)) {
      throw new DriverError(
        `kind cluster "${cluster}" has containers run ${this.options.runId} did not create (marker ${markerPath(this.stateDir, cluster)}); not deleting it`,
      );
    }
    this.owns = true;
    this.createStarted = true;
    this.recorded = false;
    removed.push(...(await this.teardown(() => {})));
    return removed;
  }

  /**
   * The kind config and manifest copies of a deleted cluster, and the capture's kubeconfig
   * once kind's delete has pruned the last cluster from it: a capture leaves no kubeconfig behind.
   */
  private async removeStateFiles(cluster: string): Promise<void> {
    const paths = kindStatePaths(this.stateDir, cluster);
    await rm(paths.config, { force: true });
    await rm(join(this.stateDir, `${cluster}.manifests`), { recursive: true, force: true });
    let text: string;
    try {
      text = await readFile(paths.kubeconfig, 'utf8');
    } catch {
      return;
    }
    const parsed = load(text) as { clusters?: unknown[] | null } | null;
    if (!parsed || !Array.isArray(parsed.clusters) || parsed.clusters.length === 0) await rm(paths.kubeconfig, { force: true });
  }

  /** kind's network, which this capture's create made: removed once no container is on it. Returns what it removed, or null. */
  private async removeKindNetwork(log: (line: string) => void): Promise<string | null> {
    const place = { env: this.childEnv, cwd: this.cwd, timeoutMs: this.timeouts.quickMs };
    const inspect = await runTool(cmd.dockerNetworkInspect(cmd.KIND_NETWORK), place);
    if (inspect.exitCode !== 0) return null;
    const [id, count] = inspect.stdout.trim().split(' ');
    const attached = Number(count);
    if (attached > 0) {
      log(`leaving docker network "${cmd.KIND_NETWORK}": ${attached} container(s) still use it`);
      return null;
    }
    log(`removing docker network "${cmd.KIND_NETWORK}", which this capture's cluster created`);
    await this.run(cmd.dockerNetworkRemove(cmd.KIND_NETWORK), this.timeouts.quickMs, `remove docker network "${cmd.KIND_NETWORK}"`);
    // Docker names a network's bridge br-<the first 12 characters of its id>.
    return `docker network "${cmd.KIND_NETWORK}" and its bridge br-${(id ?? '').slice(0, 12)}`;
  }

  plan(experiment: Experiment): { setup: string[][]; teardown: string[][] } {
    const t = this.bind(experiment);
    const paths = kindStatePaths(this.stateDir, t.cluster);
    const objects = declaredObjects(experiment.manifests.map((m) => ({ file: m, text: readFileSync(resolve(this.options.articleDir, m), 'utf8') })));
    const setup: string[][] = [cmd.kindGetClusters()];
    if (!this.options.reuse) setup.push(cmd.kindCreateCluster(t, paths.config, this.nodeImage.name ?? this.options.image, !this.setup.cniStandIn));
    for (const sub of this.substitutions) setup.push(cmd.kindLoadImage(t, sub.ranInstead));
    if (this.options.loadImages) {
      for (const image of objects.images) setup.push(cmd.dockerImageInspect(image), cmd.kindLoadImage(t, image));
    }
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
    return this.target;
  }

  private requireTarget(): cmd.KindTarget {
    if (!this.target) throw new DriverError('kind driver: call plan() or up() first (the cluster name comes from the experiment)');
    return this.target;
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

  private quick(argv: string[], what: string, ctx?: DriverContext): Promise<ToolRun> {
    return this.run(argv, this.timeouts.quickMs, what, ctx);
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

/** "kind create cluster …, 3× docker run": the processes a killed run had running, each kind once. */
export function processSummary(commands: string[]): string {
  const counts = new Map<string, number>();
  for (const c of commands) {
    const words = c.split(' ');
    words[0] = basename(words[0] ?? '');
    const what = words.slice(0, words[0] === 'kind' ? 3 : 2).join(' ');
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts].map(([what, n]) => (n === 1 ? what : `${n}× ${what}`)).join(', ');
}

/** The kind provider's answer to the capture's recovery: the clusters its killed runs recorded, nothing else. */
export const kindLeftovers: ProviderLeftovers = {
  kind: 'kind',
  async remove(record) {
    if (record.kind !== 'kind') return [];
    const driver = new KindDriver({
      runId: record.runId,
      articleDir: record.root,
      keep: false,
      reuse: false,
      loadImages: false,
      stateDir: record.stateDir,
      cwd: record.root,
      // Deleting needs no registry: only shice's own engine and tools, if kind:prepare set them up.
      host: { root: record.root, registryReachable: async () => false },
    });
    return driver.removeLeftovers(record);
  },
  // A kind cluster without a record is not this checkout's to name: kind get clusters lists it.
  unrecorded: async () => [],
};
