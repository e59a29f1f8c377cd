// The node image a run uses, and what follows from it where no registry answers:
// --image when given; kind's official image where a registry answers; else the
// one kind:prepare built, whose lack of kindnetd and CoreDNS the cluster config
// accounts for. With the local image, the kindnetd stand-in writes kindnetd's
// part once the nodes have their podCIDRs, and the experiment's declared image
// substitutes are loaded and named in copies of the manifests. --load-images
// loads the manifests' images from the local docker.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { StandInDecision } from '../../evidence/schema.ts';
import { parseNodeList, type KubeNode } from '../kubectl/topology.ts';
import { firstLine, seconds, sleep } from '../machine/process.ts';
import { DriverError, PrerequisiteError, type ProviderContext } from '../provider/node-provider.ts';
import { mergeNodeDecisions, type NodeDecisions } from '../provider/stand-in.ts';
import * as cmd from './commands.ts';
import { readImagesRecord } from './image/build.ts';
import { prepareCommand } from './prepare.ts';
import { HEADLINE_RELEASE } from '../../experiment/kubernetes.ts';
import { standInForKindnetd } from './kindnet-stand-in.ts';
import { entersNodes, nodePids } from './health.ts';
import { KIND_MARKS } from './phases.ts';
import type { KindOptions, KindScope } from './settings.ts';
import { parseCrictlImageId } from './tool-output.ts';
import { substituteImages, type Substitution } from './substitutes.ts';

export class NodeImagePath {
  /** What the kindnetd stand-in wrote on each node (none when kindnetd ran). */
  private standInWritten: NodeDecisions[] = [];
  /** Manifest -> the copy with substituted images that kubectl applies. */
  private readonly manifestCopies = new Map<string, string>();

  private readonly scope: KindScope;

  constructor(scope: KindScope) {
    this.scope = scope;
  }

  /** Chooses the node image (and what follows from it) into the run's state. */
  async choose(host: NonNullable<KindOptions['host']>): Promise<void> {
    const { state, tools, options, experiment } = this.scope;
    state.chosen = true;
    const record = readImagesRecord();
    const release = options.kubernetes;
    const built = record?.nodes[release.release] ?? null;
    const present = async (image: string) => (await tools.run(cmd.dockerImageInspect(image), { what: `inspect image ${image}`, check: 'none' })).exitCode === 0;
    const builtHere = async () => (built && (await present(built.name)) ? built : null);
    // kind's default node image is the headline release's; another release's is first the one kind:prepare built for it.
    const headline = release === HEADLINE_RELEASE;
    const ownBuild = headline || options.image ? null : await builtHere();
    if (options.image) {
      const local = Object.values(record?.nodes ?? {}).find((n) => n.name === options.image) ?? null;
      state.nodeImage = { name: options.image, source: 'option', local };
    } else if (ownBuild) {
      state.nodeImage = { name: ownBuild.name, source: 'local', local: ownBuild };
    } else if (await host.registryReachable()) {
      // A cluster that reports another minor than the run's is refused by the runner, never recorded as it.
      state.nodeImage = { name: headline ? null : `kindest/node:${release.release}`, source: 'official', local: null };
    } else {
      const local = headline ? await builtHere() : null;
      if (!local)
        throw new PrerequisiteError(
          `kind driver: no container registry answers and there is no local node image of Kubernetes ${release.release}: run ${prepareCommand(release)} (it builds one), or pass --image`,
        );
      state.nodeImage = { name: local.name, source: 'local', local };
    }
    const cgroup = await tools.run(cmd.dockerCgroupVersion(), { what: "read docker's cgroup version", check: 'none' });
    const local = state.nodeImage.local !== null;
    state.setup = { cniStandIn: local, withoutCoreDNS: local, cgroupV1: cgroup.exitCode === 0 && cgroup.stdout.trim() === '1' };
    state.substitutions = [];
    if (!local || !experiment.imageSubstitutes) return;
    for (const sub of experiment.imageSubstitutes) {
      const built = record?.backends[sub.recipe];
      if (!built || !(await present(built.name))) {
        throw new PrerequisiteError(
          `kind driver: article.ts experiment.imageSubstitutes: ${sub.image} is to run as kind:prepare's ${sub.recipe}, which is not built: run ${prepareCommand(options.kubernetes)}`,
        );
      }
      const what = Object.entries(built.inputs)
        .filter(([k]) => k !== 'debian')
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      state.substitutions.push({
        image: sub.image,
        ranInstead: built.name,
        id: built.id,
        what: `Debian ${built.inputs.debian ?? ''} ${what}`.replace(/\s+/g, ' ').trim(),
        note: sub.note,
      });
    }
  }

  /**
   * The argvs of what up() runs after the create for the images, for the plan: a substitute
   * the node image was built with is looked for in every node's containerd (a `kind load`
   * follows only where one lacks it), any other is loaded.
   */
  planLoads(images: string[]): string[][] {
    const { target, state, options } = this.scope;
    const loads = state.substitutions.flatMap((sub) =>
      this.preloaded(sub) ? this.nodeContainers().map((node) => cmd.crictlInspectImage(node, sub.ranInstead)) : [cmd.kindLoadImage(target, sub.ranInstead)],
    );
    if (options.loadImages) for (const image of images) loads.push(cmd.dockerImageInspect(image), cmd.kindLoadImage(target, image));
    return loads;
  }

  /** Once the cluster exists: the stand-in and the substitutes (each on its own nodes' files and images, so side by side), then --load-images. */
  async prepareNodes(images: string[], ctx: ProviderContext): Promise<void> {
    const { state, options } = this.scope;
    const [standIn, substitutes] = await Promise.allSettled([
      state.setup.cniStandIn ? this.standInForKindnetd(ctx) : Promise.resolve(),
      state.substitutions.length > 0 ? this.substitute(state.substitutions, ctx) : Promise.resolve(),
    ]);
    if (standIn.status === 'rejected') throw standIn.reason;
    if (substitutes.status === 'rejected') throw substitutes.reason;
    if (options.loadImages) await this.loadImages(images, ctx);
  }

  /** The file `kubectl apply` reads for a manifest: its copy with substituted images, else the article's own. */
  manifestFile(manifest: string): string {
    return this.manifestCopies.get(manifest) ?? resolve(this.scope.options.articleDir, manifest);
  }

  /** What the kindnetd stand-in wrote and read on each node, merged: run.yaml's environment.standIn (none when kindnetd ran). */
  standInDecisions(): StandInDecision[] {
    return mergeNodeDecisions(this.standInWritten);
  }

  /** Once every node has its podCIDR, what kindnetd would write and program on each (kindnet-stand-in.ts). */
  private async standInForKindnetd(ctx: ProviderContext): Promise<void> {
    const { target, tools, timeouts, experiment } = this.scope;
    ctx.log(`${KIND_MARKS.standIn}, then writing kindnetd's part on each (the stand-in)`);
    const deadline = performance.now() + timeouts.podCidrsMs;
    let nodes: KubeNode[] = [];
    for (;;) {
      const listed = await tools.run(cmd.kubectlGetNodes(target), { what: 'read the nodes', check: 'exit', ctx });
      try {
        if (listed.exitCode === 0) nodes = parseNodeList(listed.stdout);
      } catch {
        nodes = []; // a node without its podCIDR yet
      }
      if (nodes.length === experiment.cluster.nodes.length) break;
      if (performance.now() > deadline)
        throw new DriverError(`the nodes of "${target.cluster}" were not all given a podCIDR within ${seconds(timeouts.podCidrsMs)}`);
      try {
        await sleep(timeouts.pollMs, ctx.signal);
      } catch {
        throw new DriverError("interrupted while waiting for the nodes' podCIDRs");
      }
    }
    ctx.log(`${KIND_MARKS.podCidrs}: ${nodes.map((n) => `${n.k8sName} ${n.podCIDR}`).join(', ')}`);
    // Where this process may enter the nodes, the writes run there by nsenter (a few ms each, against docker exec's 0.1 s).
    const pids = entersNodes(this.scope)
      ? await nodePids(
          this.scope,
          nodes.map((n) => n.k8sName),
          ctx,
        )
      : new Map<string, string>();
    this.standInWritten = await standInForKindnetd(
      nodes.map((n) => ({ container: n.k8sName, internalIP: n.internalIP, podCIDR: n.podCIDR })),
      async (container, argv, what, input) => {
        const pid = pids.get(container);
        const exec =
          pid !== undefined ? cmd.nsenterNode(pid, argv) : input === undefined ? cmd.dockerExec(container, argv) : cmd.dockerExecWithInput(container, argv);
        return (await tools.run(exec, { what, timeoutMs: timeouts.execMs, ctx, ...(input === undefined ? {} : { input }) })).stdout;
      },
    );
  }

  /** The node containers of the experiment's nodes. */
  private nodeContainers(): string[] {
    const { target, experiment } = this.scope;
    return experiment.cluster.nodes.map((n) => cmd.nodeContainer(target.cluster, n.name));
  }

  /** Whether kind:prepare built the chosen node image with the substitute preloaded (its inputs say so); up() checks the nodes all the same. */
  private preloaded(sub: Substitution): boolean {
    const preloaded = this.scope.state.nodeImage.local?.inputs.preloaded;
    return preloaded !== undefined && preloaded.split(' ').includes(sub.ranInstead);
  }

  /** The nodes whose containerd does not hold `sub` by its name with its id, each with what it holds instead. */
  private async nodesLacking(sub: Substitution, ctx: ProviderContext): Promise<string[]> {
    const { tools, timeouts } = this.scope;
    const lacking = await Promise.all(
      this.nodeContainers().map(async (node) => {
        const run = await tools.run(cmd.crictlInspectImage(node, sub.ranInstead), {
          what: `look for ${sub.ranInstead} in ${node}'s containerd`,
          check: 'none',
          timeoutMs: timeouts.execMs,
          ctx,
        });
        if (run.exitCode !== 0) return `${node} (${firstLine(run.stderr) || `crictl inspecti exit ${run.exitCode}`})`;
        const id = parseCrictlImageId(run.stdout);
        return id === sub.id ? null : `${node} (holds ${id}, not ${sub.id})`;
      }),
    );
    return lacking.filter((n): n is string => n !== null);
  }

  /**
   * Each declared substitute in every node's containerd, checked by its id there: found where
   * kind:prepare preloaded it in the node image, else loaded (`kind load`) and checked again;
   * then the manifests' copies that name it.
   */
  private async substitute(substitutions: Substitution[], ctx: ProviderContext): Promise<void> {
    const { target, tools, timeouts, stateDir, experiment, options } = this.scope;
    const map = new Map(substitutions.map((s) => [s.image, s.ranInstead]));
    for (const sub of substitutions) {
      if (this.preloaded(sub)) {
        ctx.log(`looking for ${sub.ranInstead} (${sub.id}), to run in place of ${sub.image}, in the containerd of every node of "${target.cluster}"`);
        const lacking = await this.nodesLacking(sub, ctx);
        if (lacking.length === 0) {
          sub.delivered = `preloaded in the node image (found in every node's containerd as ${sub.id})`;
          continue;
        }
        ctx.log(`${sub.ranInstead} is not in the containerd of ${lacking.join(', ')}`);
      }
      ctx.log(`loading ${sub.ranInstead} into the nodes of "${target.cluster}", to run in place of ${sub.image} (no registry answers)`);
      await tools.run(cmd.kindLoadImage(target, sub.ranInstead), { what: `load ${sub.ranInstead} into the nodes`, timeoutMs: timeouts.loadMs, ctx });
      const lacking = await this.nodesLacking(sub, ctx);
      if (lacking.length > 0)
        throw new DriverError(`kind load docker-image ${sub.ranInstead} finished, but it is not in the containerd of ${lacking.join(', ')}`);
      sub.delivered = `loaded into every node with kind load docker-image (found in every node's containerd as ${sub.id})`;
    }
    const dir = join(stateDir, `${target.cluster}.manifests`);
    await mkdir(dir, { recursive: true });
    for (const manifest of experiment.manifests) {
      const text = await readFile(resolve(options.articleDir, manifest), 'utf8');
      const copy = substituteImages(text, map, manifest);
      if (copy.replaced === 0) continue;
      const file = join(dir, manifest.replace(/[\\/]/g, '_'));
      await writeFile(file, copy.text);
      this.manifestCopies.set(manifest, file);
    }
  }

  private async loadImages(images: string[], ctx: ProviderContext): Promise<void> {
    const { target, tools, timeouts } = this.scope;
    for (const image of images) {
      const present = await tools.run(cmd.dockerImageInspect(image), { what: `inspect image ${image}`, check: 'exit', ctx });
      if (present.exitCode !== 0) {
        ctx.log(`pulling ${image} into the local docker`);
        await tools.run(cmd.dockerPull(image), { what: `pull ${image}`, timeoutMs: timeouts.loadMs, ctx });
      }
      ctx.log(`loading ${image} into the nodes of "${target.cluster}"`);
      await tools.run(cmd.kindLoadImage(target, image), { what: `load ${image} into the nodes`, timeoutMs: timeouts.loadMs, ctx });
    }
  }
}
