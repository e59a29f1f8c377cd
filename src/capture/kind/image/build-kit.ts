// What every image build of kind:prepare shares: where it works, how it runs
// docker and the host's tools, whether an image of a stamp is there already and
// what went into it, a build container that installs Debian packages and
// commits the result, and the configuration-only `docker build` that finishes
// an image. The images themselves: base-images.ts, node-image.ts, backend-image.ts.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJudged, runOrThrow } from '../../machine/checked-run.ts';
import { builtKubeBinDir, buildCommand } from '../../machine/kube-bin.ts';
import type { KubeRelease } from '../../../experiment/kubernetes.ts';
import { MACHINE_CACHE } from '../../machine/machine-cache.ts';
import type { ToolRun } from '../../machine/process.ts';
import { DriverError, type ProviderContext } from '../../provider/node-provider.ts';
import type { RuntimeAdaptation } from '../engine/engine.ts';
import * as r from './recipe.ts';

/** Where the build keeps its work: the machine's cache, beside the engine whose data root holds the images. */
export const PREPARE_DIR = join(MACHINE_CACHE, 'kind', 'prepare');

export const MINUTE = 60_000;

const IMAGE_DIR = fileURLToPath(new URL('.', import.meta.url));
/** The tools kind:prepare builds (kind, crictl) carry stamps of their own: their code is no input of the images. */
const NOT_IMAGE_CODE = ['go-install.ts'];

/** The files whose code builds the images: every module of this folder but the tools' build, by name. */
export const RECIPE_FILES: readonly string[] = readdirSync(IMAGE_DIR)
  .filter((name) => name.endsWith('.ts') && !NOT_IMAGE_CODE.includes(name))
  .sort();

/**
 * How the images are built is an input of each of them: any change to these files gives
 * every image a new stamp, so no image outlives the code that made it.
 */
export const RECIPE = RECIPE_FILES.reduce(
  (hash, file) => hash.update(`${basename(file)}\0`).update(readFileSync(join(IMAGE_DIR, file))),
  createHash('sha256'),
).digest('hex');

export interface BuildContext extends ProviderContext {
  root: string;
  /** docker reaches the engine with this environment (DOCKER_HOST of shice's own daemon). */
  env: NodeJS.ProcessEnv;
  adaptation: RuntimeAdaptation | null;
  /** The Kubernetes release whose node image is built: its binaries come from lab:build's folder for it. */
  release: KubeRelease;
}

/** An image as the build container commits it: its tag, the packages to install, files to copy over it, steps to run. */
export interface ContainerBuild {
  from: string;
  tag: string;
  packages: string[];
  stage?: string;
  steps?: string[][];
  /** Last touches inside the container; returns versions for the inputs label. */
  finish?: (exec: (argv: string[]) => Promise<string>, container: string) => Promise<Record<string, string>>;
  config: Parameters<typeof r.configDockerfile>[1];
}

/** A hash of a folder's files (names and contents), for the stamps. */
export function folderHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(`${path.slice(dir.length)}\0`).update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

export class BuildKit {
  readonly ctx: BuildContext;
  readonly work: string = PREPARE_DIR;
  private readonly started = performance.now();

  constructor(ctx: BuildContext) {
    this.ctx = ctx;
  }

  log(line: string): void {
    this.ctx.log(`kind:prepare: ${line} (${Math.round((performance.now() - this.started) / 1000)} s)`);
  }

  run(argv: string[], what: string, timeoutMs = 5 * MINUTE): Promise<ToolRun> {
    return runOrThrow(argv, { env: this.ctx.env, cwd: this.ctx.root, timeoutMs }, what, this.ctx);
  }

  /** A run whose exit code is the caller's to judge; `interruptible: false` for clean-up that must run after Ctrl-C too. */
  judged(argv: string[], what: string, timeoutMs: number, interruptible = true): Promise<ToolRun> {
    return runJudged(argv, { env: this.ctx.env, timeoutMs }, what, interruptible ? this.ctx : undefined);
  }

  /** The image's id when it is there, else null. */
  async present(image: string): Promise<string | null> {
    const run = await runJudged(
      ['docker', 'image', 'inspect', '--format', '{{.Id}}', image],
      { env: this.ctx.env, cwd: this.ctx.root, timeoutMs: MINUTE },
      `inspect ${image}`,
      this.ctx,
    );
    return run.exitCode === 0 ? run.stdout.trim() : null;
  }

  async inputsOf(image: string): Promise<Record<string, string>> {
    const run = await this.run(
      ['docker', 'image', 'inspect', '--format', `{{index .Config.Labels "${r.INPUTS_LABEL}"}}`, image],
      `read what went into ${image}`,
    );
    try {
      return JSON.parse(run.stdout.trim()) as Record<string, string>;
    } catch {
      throw new DriverError(`${image}: its label ${r.INPUTS_LABEL} is not JSON; remove the image and run kind:prepare again`);
    }
  }

  /** A built image as the record names it. */
  async localImage(tag: string): Promise<{ name: string; id: string; inputs: Record<string, string> }> {
    return { name: tag, id: (await this.present(tag))!, inputs: await this.inputsOf(tag) };
  }

  /** A build container's name: one per tag and process. */
  containerName(tag: string): string {
    return `shice-build-${r.stamp({ tag, pid: String(process.pid) })}`;
  }

  /** A build container from `from` that sleeps, on `network`, for `docker exec` and `docker cp`. */
  async startContainer(container: string, from: string, network: 'host' | 'none'): Promise<void> {
    await this.judged(['docker', 'rm', '--force', container], 'remove an old build container', MINUTE, false);
    // With the host's network, apt reaches the host's mirror; nothing else runs in there.
    const argv = ['docker', 'run', '--detach', '--name', container, '--label', 'org.shice.build=kind-prepare', '--network', network];
    await this.run([...argv, '--security-opt', 'seccomp=unconfined', '--entrypoint', 'sleep', from, 'infinity'], `start a build container from ${from}`);
  }

  /**
   * Runs `from` as a build container, installs `packages`, copies `stage` (a folder laid
   * out like the image's root) over it, runs `steps`, and commits it with `config` as `tag`.
   * Returns the installed packages' versions.
   */
  async inContainer(spec: ContainerBuild): Promise<Record<string, string>> {
    const container = this.containerName(spec.tag);
    const exec = async (argv: string[], timeoutMs = 5 * MINUTE): Promise<string> =>
      (await this.run(['docker', 'exec', '--env', 'DEBIAN_FRONTEND=noninteractive', container, ...argv], `run ${argv[0]} in the build container`, timeoutMs))
        .stdout;
    await this.startContainer(container, spec.from, 'host');
    const versions: Record<string, string> = {};
    try {
      if (spec.packages.length > 0) {
        const options = await this.aptOptions();
        this.log(`${spec.tag}: installing ${spec.packages.length} Debian packages`);
        await exec(['apt-get', ...options, 'update', '-qq'], 10 * MINUTE);
        await exec(['apt-get', ...options, 'install', '-y', '-qq', '--no-install-recommends', ...spec.packages], 20 * MINUTE);
        await exec(['apt-get', 'clean']);
        await exec(['find', '/var/lib/apt/lists', '-mindepth', '1', '-delete']);
        for (const p of spec.packages) versions[p] = (await exec(['dpkg-query', '--show', '--showformat', '${Version}', p])).trim();
      }
      if (spec.stage) await this.run(['docker', 'cp', `${spec.stage}/.`, `${container}:/`], `copy files into ${spec.tag}`);
      for (const step of spec.steps ?? []) await exec(step);
      Object.assign(versions, await spec.finish?.(exec, container));
      const stage1 = `${spec.tag}-stage1`;
      await this.run(['docker', 'commit', container, stage1], `commit ${spec.tag}`, 10 * MINUTE);
      // The build container's `sleep infinity` must not stay the image's command: an image without one gets an empty entrypoint.
      const config = { entrypoint: [], ...spec.config, labels: { ...spec.config.labels, [r.INPUTS_LABEL]: JSON.stringify(versions) } };
      await this.configure(stage1, spec.tag, config);
      await this.run(['docker', 'rmi', stage1], `untag ${stage1}`);
    } finally {
      await this.judged(['docker', 'rm', '--force', container], 'remove the build container', 2 * MINUTE, false);
    }
    return versions;
  }

  /** `docker build` of a Dockerfile that only sets configuration (no RUN: no network needed). */
  async configure(from: string, tag: string, config: Parameters<typeof r.configDockerfile>[1]): Promise<void> {
    const dir = join(this.work, 'config');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'Dockerfile'), r.configDockerfile(from, config));
    try {
      await runOrThrow(
        ['docker', 'build', '--quiet', '--tag', tag, dir],
        { env: { ...this.ctx.env, DOCKER_BUILDKIT: '0' }, timeoutMs: 5 * MINUTE },
        `configure ${tag}`,
        this.ctx,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** An empty folder of the work area, for what an image is laid out from. */
  freshStage(name: string): string {
    const dir = join(this.work, `stage-${name}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** The folder of the release's kube/ build (kubelet, kubeadm, kubectl and the control plane). */
  get kubeBin(): string {
    return builtKubeBinDir(this.ctx.release);
  }

  /** The stamp of the release's kube/ build. */
  kubeStamp(): string {
    const file = join(this.kubeBin, '.stamp');
    if (!existsSync(file))
      throw new DriverError(`${file} is missing: run ${buildCommand(this.ctx.release)} first (it builds kubelet, kubeadm and the control plane)`);
    return readFileSync(file, 'utf8').trim();
  }

  private async aptOptions(): Promise<string[]> {
    const dump = await this.judged(['apt-config', 'dump'], "read apt's configuration", MINUTE);
    return dump.exitCode === 0 ? r.aptOptions(dump.stdout) : [];
  }
}
