// The kind node provider: a real kind cluster of the capture's own, its nodes
// Docker containers, driven through kind, kubectl and docker with argv arrays.
// The user's kubeconfig and clusters are never read or touched: every call
// carries the capture's kubeconfig (and KUBECONFIG points at it), and only a
// cluster this capture created is ever reused or deleted. The work is its
// parts': the cluster's lifecycle, the node image and stand-in path, the
// nodes' health, and the run's provenance.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { StandInDecision } from '../../evidence/schema.ts';
import { readIpvsFacts } from '../machine/host.ts';
import { declaredObjects } from '../kubectl/manifest-objects.ts';
import { firstLine, text, type ProcessResult } from '../machine/process.ts';
import {
  DriverError,
  PrerequisiteError,
  VariantUnsupported,
  type ExecLimits,
  type NodeProvider,
  type ProvidedNode,
  type ProviderContext,
} from '../provider/node-provider.ts';
import * as cmd from './commands.ts';
import { KIND_AGENT_HEALTHZ, NodeHealth } from './health.ts';
import { NodeImagePath } from './image-path.ts';
import { KindClusterLifecycle } from './lifecycle.ts';
import { kindFacts } from './provenance.ts';
import { containerOf, type KindScope } from './settings.ts';
import { isDockerFailure } from './tool-output.ts';
import { crictlPodNetns, podNetnsPlaceholder, POD_LOOKUP_TIMEOUT_MS } from '../provider/pod-netns.ts';
import { dockerServerUp } from './tools.ts';

export class KindProvider implements NodeProvider {
  readonly name = 'kind' as const;
  readonly agentHealthz = KIND_AGENT_HEALTHZ;
  readonly reuses: boolean;
  /** The node image and stand-in path: the DriverRun's manifest copies and stand-in decisions come from it. */
  readonly image: NodeImagePath;
  private readonly lifecycle: KindClusterLifecycle;
  private readonly health: NodeHealth;

  private readonly scope: KindScope;

  constructor(scope: KindScope) {
    this.scope = scope;
    this.reuses = scope.options.reuse;
    this.lifecycle = new KindClusterLifecycle(scope);
    this.image = new NodeImagePath(scope);
    this.health = new NodeHealth(scope);
  }

  async preflight(): Promise<void> {
    const { tools, kubeconfig, options, experiment, engine } = this.scope;
    const [docker, kind, kubectl] = await Promise.all([
      tools.run(cmd.dockerVersion(), { what: 'ask the Docker daemon', check: 'none' }),
      tools.run(cmd.kindVersion(), { what: 'read the kind version', check: 'none' }),
      tools.run(cmd.kubectlClientVersion({ kubeconfig }), { what: 'read the kubectl version', check: 'none' }),
    ]);
    const problems: string[] = [];
    if (docker.missing) {
      problems.push('docker is not installed (no `docker` on PATH): install Docker Engine or Docker Desktop, https://docs.docker.com/get-docker/');
    } else if (docker.exitCode !== 0 || !dockerServerUp(docker.stdout)) {
      problems.push(`the Docker daemon is not reachable (${firstLine(docker.stderr) || 'docker version printed no server'}): start Docker`);
    }
    if (kind.missing) problems.push('kind is not installed (no `kind` on PATH): https://kind.sigs.k8s.io/docs/user/quick-start/#installation');
    else if (kind.exitCode !== 0) problems.push(`\`kind version\` failed: ${firstLine(kind.stderr)}`);
    if (kubectl.missing) problems.push('kubectl is not installed (no `kubectl` on PATH): https://kubernetes.io/docs/tasks/tools/');
    else if (kubectl.exitCode !== 0) problems.push(`\`kubectl version --client\` failed: ${firstLine(kubectl.stderr)}`);
    if (problems.length > 0) {
      const prepare = options.host && process.platform === 'linux' ? 'npm run kind:prepare sets up all of it on Linux; ' : '';
      throw new PrerequisiteError(`kind driver: ${problems.join('; ')}; ${prepare}on Linux, --driver lab runs the experiment without Docker`);
    }
    if (experiment.cluster.kubeProxyMode === 'ipvs' && engine !== null) {
      // shice's own engine runs on this machine: the nodes run on this kernel, so its IPVS decides.
      const ipvs = readIpvsFacts();
      if (!ipvs.procNetIpVs) {
        const why = ipvs.configLine === null ? '/proc/net/ip_vs is absent' : `/proc/config.gz: ${ipvs.configLine.replace(/^# /, '')}`;
        throw new VariantUnsupported(`the kind nodes run on this machine's kernel, which has no IPVS (${why}): kube-proxy cannot run in ipvs mode here`);
      }
    }
    if (options.host) await this.image.choose(options.host);
  }

  async up(ctx: ProviderContext): Promise<ProvidedNode[]> {
    const { options, state } = this.scope;
    if (options.host && !state.chosen) await this.image.choose(options.host);
    const images = this.declaredImages();
    await this.lifecycle.bringUp(ctx);
    await this.image.prepareNodes(images, ctx);
    return this.health.settle(ctx);
  }

  nodeArgv(node: string, command: string[]): string[] {
    const { experiment, target } = this.scope;
    if (!experiment.cluster.nodes.some((n) => n.name === node)) {
      const known = experiment.cluster.nodes.map((n) => n.name).join(', ');
      throw new DriverError(`no node "${node}" in cluster "${target.cluster}" (article.ts experiment.cluster.nodes has: ${known})`);
    }
    // kind names its node containers <cluster>-<node> (kindScope holds the experiment to it).
    return cmd.dockerExec(containerOf(this.scope, node), command);
  }

  async exec(node: string, command: string[], limits: ExecLimits, ctx: ProviderContext): Promise<ProcessResult> {
    const argv = this.nodeArgv(node, command);
    const run = await this.scope.tools.bytes(argv, limits, ctx.signal);
    if (run.missing) throw new DriverError(`could not run ${command[0]} on ${node}: \`docker\` is not on PATH`);
    if (run.canceled || run.exitCode === 0) return run;
    const stderr = text(run.stderr);
    // A command's own failure is a result; a node that went away under it is not (docker exec's
    // words for that vary while a container dies, so ask docker about the nodes themselves).
    const nodes = await this.health.changes(ctx);
    if (nodes.length > 0)
      throw new DriverError(`${nodes.join('; ')} during the step (${command[0]} on ${node} exited ${run.exitCode}: ${firstLine(stderr) || 'no message'})`);
    if (!run.timedOut && isDockerFailure(stderr)) {
      throw new DriverError(`docker exec on ${argv[2]} failed (exit ${run.exitCode}): ${firstLine(stderr)}`);
    }
    return run;
  }

  probeArgv(node: string, command: string[]): string[] {
    this.nodeArgv(node, command);
    return this.health.probeArgv(node, command);
  }

  async probe(node: string, command: string[], limits: ExecLimits, ctx: ProviderContext): Promise<ProcessResult> {
    const argv = this.probeArgv(node, command);
    const run = await this.scope.tools.bytes(argv, limits, ctx.signal);
    if (run.missing) throw new DriverError(`could not probe ${node}: \`${argv[0]}\` is not on PATH`);
    return run;
  }

  /** The pod's ready sandbox, as the node's containerd lists it through crictl, and its network namespace's path. */
  podNetns(node: string, pod: { namespace: string; name: string }, ctx: ProviderContext): Promise<string> {
    return crictlPodNetns(node, pod, (command) => this.exec(node, command, { timeoutMs: POD_LOOKUP_TIMEOUT_MS }, ctx));
  }

  podNetnsPlaceholder(_node: string, pod: { namespace: string; name: string }): string {
    return podNetnsPlaceholder(pod);
  }

  problems(ctx: ProviderContext): Promise<string[]> {
    return this.health.problems(ctx);
  }

  facts(ctx: ProviderContext): Promise<Record<string, string>> {
    return kindFacts(this.scope, ctx);
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    await this.lifecycle.down(ctx.log);
  }

  plan(): { setup: string[][]; teardown: string[][] } {
    const { options, target } = this.scope;
    const images = this.declaredImages();
    const setup = [cmd.kindGetClusters(), ...(options.reuse ? [] : [this.lifecycle.createArgv()]), ...this.image.planLoads(images)];
    return { setup, teardown: options.keep ? [] : [cmd.kindDeleteCluster(target)] };
  }

  /** What the kindnetd stand-in wrote and read on each node (none when kindnetd ran). */
  standIn(): StandInDecision[] {
    return this.image.standInDecisions();
  }

  /** The images the experiment's manifests name: what --load-images loads. */
  private declaredImages(): string[] {
    const { experiment, options } = this.scope;
    return declaredObjects(experiment.manifests.map((m) => ({ file: m, text: readFileSync(resolve(options.articleDir, m), 'utf8') }))).images;
  }
}
