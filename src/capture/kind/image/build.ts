// Builds, without any registry, the images a kind cluster needs on this machine:
// kind's node image for Kubernetes v1.37.2 (kind's own base files and units,
// Debian's packages, kubelet and kubeadm from kube/, containerd, runc, the CNI
// plugins, and the control-plane images preloaded), and the backend images that
// experiments run in place of images they cannot pull. Every image is tagged
// with a stamp of its inputs: an unchanged input skips the work.
//
// The way it works follows kind's own `kind build node-image`
// (pkg/build/nodeimage): a build container that sleeps, `docker exec` and
// `docker cp` into it, `docker commit`; preloading imports image archives into
// the node's containerd with ctr, then commits again.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { arch } from 'node:os';
import { dirname, join } from 'node:path';
import { DriverError, type DriverContext } from '../../driver.ts';
import { runJudged, runOrThrow } from '../../checked-run.ts';
import type { ToolRun } from '../../process.ts';
import { BUILT_KUBE_BIN_DIR, KUBERNETES_VERSION } from '../../kube-bin.ts';
import { writeJsonAtomically, type RuntimeAdaptation } from '../engine/engine.ts';
import * as r from './recipe.ts';
import { MACHINE_CACHE } from '../../machine-cache.ts';

/** Where the build keeps its work: the machine's cache, beside the engine whose data root holds the images. */
export const PREPARE_DIR = join(MACHINE_CACHE, 'kind', 'prepare');
/** kind and crictl, built from their modules. */
export const KIND_TOOLS_DIR = join(MACHINE_CACHE, 'kind', 'bin');
/** What the last successful prepare built: the driver picks its local images from here. */
export const IMAGES_RECORD = join(MACHINE_CACHE, 'kind', 'images.json');

/** The backends an experiment may declare as a substitute for an image it cannot pull. */
export const BACKEND_RECIPES = ['debian-nginx-light'] as const;
export type BackendRecipe = (typeof BACKEND_RECIPES)[number];

export interface LocalImage {
  /** The tag to run it by. */
  name: string;
  id: string;
  /** What went into it: versions as the packages and tools reported them. */
  inputs: Record<string, string>;
}

export interface ImagesRecord {
  builtAt: string;
  kind: string;
  node: LocalImage;
  backends: Partial<Record<BackendRecipe, LocalImage>>;
}

export interface BuildContext extends DriverContext {
  root: string;
  /** docker reaches the engine with this environment (DOCKER_HOST of shice's own daemon). */
  env: NodeJS.ProcessEnv;
  adaptation: RuntimeAdaptation | null;
}

const MINUTE = 60_000;

/**
 * How the images are built is an input of each of them: any change to this file or
 * to recipe.ts gives every image a new stamp, so no image outlives the code that made it.
 */
const RECIPE = createHash('sha256')
  .update(readFileSync(new URL('./build.ts', import.meta.url)))
  .update(readFileSync(new URL('./recipe.ts', import.meta.url)))
  .digest('hex');

export function readImagesRecord(): ImagesRecord | null {
  const file = IMAGES_RECORD;
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ImagesRecord;
  } catch (error) {
    throw new DriverError(`${file}: not a record of kind:prepare's images (${(error as Error).message}); run npm run kind:prepare again`);
  }
}

/** A hash of a folder's files (names and contents), for the stamps. */
function folderHash(dir: string): string {
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

export class ImageBuilder {
  private readonly ctx: BuildContext;
  private readonly work: string;
  private readonly started = performance.now();

  constructor(ctx: BuildContext) {
    this.ctx = ctx;
    this.work = PREPARE_DIR;
  }

  private log(line: string): void {
    this.ctx.log(`kind:prepare: ${line} (${Math.round((performance.now() - this.started) / 1000)} s)`);
  }

  private run(argv: string[], what: string, timeoutMs = 5 * MINUTE): Promise<ToolRun> {
    return runOrThrow(argv, { env: this.ctx.env, cwd: this.ctx.root, timeoutMs }, what, this.ctx);
  }

  private async present(image: string): Promise<string | null> {
    const run = await runJudged(
      ['docker', 'image', 'inspect', '--format', '{{.Id}}', image],
      { env: this.ctx.env, cwd: this.ctx.root, timeoutMs: MINUTE },
      `inspect ${image}`,
      this.ctx,
    );
    return run.exitCode === 0 ? run.stdout.trim() : null;
  }

  private async inputsOf(image: string): Promise<Record<string, string>> {
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

  /** Builds everything; returns the record it wrote. */
  async buildAll(kindModuleDir: string, kubernetesModuleDir: string): Promise<ImagesRecord> {
    const host = this.hostApt();
    const minbase = await this.minbase(host);
    const kubeadm = await this.run(
      [join(BUILT_KUBE_BIN_DIR, 'kubeadm'), 'config', 'images', 'list', '--kubernetes-version', KUBERNETES_VERSION],
      'ask kubeadm which images it expects',
      MINUTE,
    );
    const expected = r.parseKubeadmImages(kubeadm.stdout);
    const etcd = r.parseEtcdVersion((await this.run([join(BUILT_KUBE_BIN_DIR, 'etcd'), '--version'], 'read the built etcd version', MINUTE)).stdout);
    r.checkEtcdTag(expected.etcd, etcd);

    const kindFiles = join(kindModuleDir, 'images/base/files');
    const kindContainerd = readFileSync(join(kindFiles, 'etc/containerd/config.toml'), 'utf8');
    const components = await this.components(minbase, host, expected);
    const pause = await this.pause(kubernetesModuleDir, [expected.pause, r.sandboxImage(kindContainerd)]);
    const nodeBase = await this.nodeBase(minbase, host, kindModuleDir);
    const node = await this.preloaded(nodeBase, [components, pause], {
      ...(await this.inputsOf(nodeBase)),
      etcd,
      pause: pause.version,
      coredns: `left out: kubeadm's CoreDNS addon is skipped (${expected.coredns} is not built here)`,
    });
    const backend = await this.nginxBackend(minbase, host);
    await this.pruneSuperseded([minbase, components.name, pause.name, nodeBase, node.name, backend.name]);
    const record: ImagesRecord = { builtAt: new Date().toISOString(), kind: r.KIND_VERSION, node, backends: { 'debian-nginx-light': backend } };
    writeJsonAtomically(IMAGES_RECORD, record);
    return record;
  }

  /** Earlier builds of shice's own images (other stamps) are removed: each weighs hundreds of MB. */
  private async pruneSuperseded(current: string[]): Promise<void> {
    const listed = await this.run(['docker', 'image', 'ls', '--filter', 'reference=shice/*', '--format', '{{.Repository}}:{{.Tag}}'], "list shice's images");
    const old = listed.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !current.includes(l));
    if (old.length === 0) return;
    this.log(`removing ${old.length} superseded image(s): ${old.join(', ')}`);
    await runJudged(['docker', 'image', 'rm', ...old], { env: this.ctx.env, timeoutMs: 5 * MINUTE }, 'remove superseded images', this.ctx);
  }

  private hostApt(): { sources: r.AptSource[]; options: string[]; codename: string } {
    const osRelease = readFileSync('/etc/os-release', 'utf8');
    const codename = /^VERSION_CODENAME=(\S+)$/m.exec(osRelease)?.[1];
    if (!codename) throw new DriverError('/etc/os-release: expected VERSION_CODENAME (a Debian release) to build the images from');
    const files: { name: string; text: string }[] = [];
    if (existsSync('/etc/apt/sources.list')) files.push({ name: 'sources.list', text: readFileSync('/etc/apt/sources.list', 'utf8') });
    for (const name of existsSync('/etc/apt/sources.list.d') ? readdirSync('/etc/apt/sources.list.d').sort() : []) {
      if (name.endsWith('.list') || name.endsWith('.sources')) files.push({ name, text: readFileSync(join('/etc/apt/sources.list.d', name), 'utf8') });
    }
    const sources = r.aptSources(files, codename);
    r.debootstrapMirror(sources, codename);
    return { sources, options: [], codename };
  }

  private async aptOptions(): Promise<string[]> {
    const dump = await runJudged(['apt-config', 'dump'], { env: this.ctx.env, timeoutMs: MINUTE }, "read apt's configuration", this.ctx);
    return dump.exitCode === 0 ? r.aptOptions(dump.stdout) : [];
  }

  /** debootstrap's minimal Debian from the host's mirror, imported as an image. */
  private async minbase(host: { sources: r.AptSource[]; codename: string }): Promise<string> {
    const mirror = r.debootstrapMirror(host.sources, host.codename);
    const list = r.sourcesList(host.sources);
    const tag = `shice/debian-minbase:${host.codename}-${r.stamp({ recipe: RECIPE, mirror, list, arch: arch() })}`;
    if (await this.present(tag)) {
      this.log(`minimal Debian ${host.codename} up to date (${tag})`);
      return tag;
    }
    const dir = join(this.work, 'minbase');
    const archive = join(this.work, 'minbase.tar');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(this.work, { recursive: true });
    this.log(`debootstrap --variant=minbase ${host.codename} from ${mirror} (about a minute)`);
    try {
      await this.run(['debootstrap', '--variant=minbase', host.codename, dir, mirror], 'debootstrap a minimal Debian', 20 * MINUTE);
      writeFileSync(join(dir, 'etc/apt/sources.list'), list);
      await this.run(['tar', '-C', dir, '-cf', archive, '.'], 'pack the minimal Debian', 5 * MINUTE);
      await this.run(['docker', 'import', archive, tag], `import ${tag}`, 5 * MINUTE);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(archive, { force: true });
    }
    this.log(`built ${tag}`);
    return tag;
  }

  /**
   * Runs `from` as a build container, installs `packages`, copies `stage` (a folder laid
   * out like the image's root) over it, runs `steps`, and commits it with `config` as `tag`.
   * Returns the installed packages' versions.
   */
  private async inContainer(spec: {
    from: string;
    tag: string;
    packages: string[];
    stage?: string;
    steps?: string[][];
    /** Last touches inside the container; returns versions for the inputs label. */
    finish?: (exec: (argv: string[]) => Promise<string>, container: string) => Promise<Record<string, string>>;
    config: Parameters<typeof r.configDockerfile>[1];
  }): Promise<Record<string, string>> {
    const container = `shice-build-${r.stamp({ tag: spec.tag, pid: String(process.pid) })}`;
    const exec = async (argv: string[], timeoutMs = 5 * MINUTE): Promise<string> =>
      (await this.run(['docker', 'exec', '--env', 'DEBIAN_FRONTEND=noninteractive', container, ...argv], `run ${argv[0]} in the build container`, timeoutMs))
        .stdout;
    await runJudged(['docker', 'rm', '--force', container], { env: this.ctx.env, timeoutMs: MINUTE }, 'remove an old build container');
    await this.run(
      [
        'docker',
        'run',
        '--detach',
        '--name',
        container,
        '--label',
        'org.shice.build=kind-prepare',
        // apt reaches the host's mirror through the host's network; nothing else runs in there.
        '--network',
        'host',
        '--security-opt',
        'seccomp=unconfined',
        '--entrypoint',
        'sleep',
        spec.from,
        'infinity',
      ],
      `start a build container from ${spec.from}`,
    );
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
      await runJudged(['docker', 'rm', '--force', container], { env: this.ctx.env, timeoutMs: 2 * MINUTE }, 'remove the build container');
    }
    return versions;
  }

  /** `docker build` of a Dockerfile that only sets configuration (no RUN: no network needed). */
  private async configure(from: string, tag: string, config: Parameters<typeof r.configDockerfile>[1]): Promise<void> {
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

  private kubeStamp(): string {
    const file = join(BUILT_KUBE_BIN_DIR, '.stamp');
    if (!existsSync(file)) throw new DriverError(`${file} is missing: run npm run lab:build first (it builds kubelet, kubeadm and the control plane)`);
    return readFileSync(file, 'utf8').trim();
  }

  /** The control-plane images and kube-proxy: the multi-call binary under each official name, with iptables and nft. */
  private async components(minbase: string, host: { codename: string }, expected: r.ExpectedImages): Promise<LocalImage & { names: string[] }> {
    const tag = `shice/kube-components:${KUBERNETES_VERSION}-${r.stamp({ recipe: RECIPE, minbase, packages: r.COMPONENT_PACKAGES.join(' '), kube: this.kubeStamp() })}`;
    const names = [expected.apiserver, expected.controllerManager, expected.scheduler, expected.proxy, expected.etcd];
    if (!(await this.present(tag))) {
      const stage = this.freshStage('components');
      const bin = join(stage, 'usr/local/bin');
      mkdirSync(bin, { recursive: true });
      copyFileSync(join(BUILT_KUBE_BIN_DIR, 'kube'), join(bin, 'kube'));
      chmodSync(join(bin, 'kube'), 0o755);
      for (const name of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'etcd']) symlinkSync('kube', join(bin, name));
      this.log(`building ${tag} (kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy, etcd)`);
      await this.inContainer({ from: minbase, tag, packages: r.COMPONENT_PACKAGES, stage, config: { labels: { 'org.shice.debian': host.codename } } });
      rmSync(stage, { recursive: true, force: true });
    } else {
      this.log(`control-plane images up to date (${tag})`);
    }
    for (const name of names) await this.run(['docker', 'tag', tag, name], `tag ${name}`);
    return { name: tag, id: (await this.present(tag))!, inputs: await this.inputsOf(tag), names };
  }

  /** Upstream's pause (build/pause/linux/pause.c of k8s.io/kubernetes), compiled static as its Makefile does. */
  private async pause(kubernetesModuleDir: string, names: string[]): Promise<LocalImage & { names: string[]; version: string }> {
    const source = join(kubernetesModuleDir, 'build/pause/linux/pause.c');
    const version = r.pauseVersion(readFileSync(join(kubernetesModuleDir, 'build/pause/Makefile'), 'utf8'));
    const tag = `shice/pause:${version}-${r.stamp({ recipe: RECIPE, source: readFileSync(source, 'utf8') })}`;
    if (!(await this.present(tag))) {
      const dir = this.freshStage('pause');
      this.log(`compiling pause ${version} from ${KUBERNETES_VERSION}'s build/pause`);
      await this.run(
        ['gcc', '-Os', '-Wall', '-Werror', '-static', `-DVERSION=v${version}-${KUBERNETES_VERSION}`, '-o', join(dir, 'pause'), source],
        'compile pause (gcc, static)',
        2 * MINUTE,
      );
      const archive = join(this.work, 'pause.tar');
      await this.run(['tar', '-C', dir, '-cf', archive, 'pause'], 'pack pause');
      const stage1 = `${tag}-stage1`;
      await this.run(['docker', 'import', archive, stage1], 'import pause');
      await this.configure(stage1, tag, {
        entrypoint: ['/pause'],
        labels: { [r.INPUTS_LABEL]: JSON.stringify({ pause: version, source: `k8s.io/kubernetes@${KUBERNETES_VERSION}/build/pause` }) },
      });
      await this.run(['docker', 'rmi', stage1], `untag ${stage1}`);
      rmSync(archive, { force: true });
      rmSync(dir, { recursive: true, force: true });
    }
    for (const name of new Set(names)) await this.run(['docker', 'tag', tag, name], `tag ${name}`);
    return { name: tag, id: (await this.present(tag))!, inputs: await this.inputsOf(tag), names: [...new Set(names)], version };
  }

  /** kind's base image (images/base/Dockerfile), from Debian packages and kind's own files, with Kubernetes' node binaries. */
  private async nodeBase(minbase: string, host: { codename: string }, kindModuleDir: string): Promise<string> {
    const files = join(kindModuleDir, 'images/base/files');
    const packages = [...r.kindBasePackages(readFileSync(join(kindModuleDir, 'images/base/Dockerfile'), 'utf8')), ...r.NODE_RUNTIME_PACKAGES];
    const crictl = join(KIND_TOOLS_DIR, 'crictl');
    const adapted = this.ctx.adaptation !== null;
    const tag = `shice/kind-node-base:${KUBERNETES_VERSION}-${r.stamp({
      recipe: RECIPE,
      minbase,
      packages: packages.join(' '),
      kindFiles: folderHash(files),
      kube: this.kubeStamp(),
      crictl: createHash('sha256').update(readFileSync(crictl)).digest('hex'),
      adapted: String(adapted),
    })}`;
    if (await this.present(tag)) {
      this.log(`node base image up to date (${tag})`);
      return tag;
    }
    const stage = this.freshStage('node');
    const put = (path: string, text: string | Buffer, mode = 0o644): void => {
      mkdirSync(dirname(join(stage, path)), { recursive: true });
      writeFileSync(join(stage, path), text);
      chmodSync(join(stage, path), mode);
    };
    const kindFile = (path: string): string => readFileSync(join(files, path), 'utf8');
    for (const name of readdirSync(join(files, 'usr/local/bin'))) put(`usr/local/bin/${name}`, readFileSync(join(files, 'usr/local/bin', name)), 0o755);
    put('kind/README.txt', kindFile('kind/README.txt'));
    for (const name of readdirSync(join(files, 'kind/bin'))) put(`kind/bin/${name}`, kindFile(`kind/bin/${name}`), 0o755);
    put('kind/version', KUBERNETES_VERSION);
    put('LICENSES/README.txt', kindFile('LICENSES/README.txt'));
    put('etc/crictl.yaml', kindFile('etc/crictl.yaml'));
    put('etc/default/kubelet', kindFile('etc/default/kubelet'));
    for (const name of readdirSync(join(files, 'etc/sysctl.d'))) put(`etc/sysctl.d/${name}`, kindFile(`etc/sysctl.d/${name}`));
    put('etc/containerd/config.toml', r.containerdConfig(kindFile('etc/containerd/config.toml'), adapted));
    for (const name of readdirSync(join(files, 'etc/systemd/system'))) {
      const path = `etc/systemd/system/${name}`;
      if (statSync(join(files, path)).isDirectory()) continue;
      put(path, name === 'containerd.service' ? r.containerdUnit(kindFile(path), adapted) : kindFile(path));
    }
    for (const name of readdirSync(join(files, 'etc/systemd/system/kubelet.service.d'))) {
      put(`etc/systemd/system/kubelet.service.d/${name}`, kindFile(`etc/systemd/system/kubelet.service.d/${name}`));
    }
    // images/base/Dockerfile appends ReadKMsg=no to journald.conf; a drop-in says the same.
    put('etc/systemd/journald.conf.d/10-kind.conf', '[Journal]\nReadKMsg=no\n');
    mkdirSync(join(stage, 'etc/kubernetes/manifests'), { recursive: true });
    put('usr/bin/kube', readFileSync(join(BUILT_KUBE_BIN_DIR, 'kube')), 0o755);
    for (const name of ['kubelet', 'kubeadm', 'kubectl']) symlinkSync('kube', join(stage, 'usr/bin', name));
    put('usr/local/bin/crictl', readFileSync(crictl), 0o755);
    // Debian's containerd, runc and CNI plugins where kind's unit files and containerd's config look for them.
    for (const name of ['containerd', 'ctr', 'containerd-shim-runc-v2']) symlinkSync(`/usr/bin/${name}`, join(stage, 'usr/local/bin', name));
    mkdirSync(join(stage, 'usr/local/sbin'), { recursive: true });
    symlinkSync('/usr/sbin/runc', join(stage, 'usr/local/sbin/runc'));
    mkdirSync(join(stage, 'opt/cni/bin'), { recursive: true });
    for (const name of r.NODE_CNI_PLUGINS) symlinkSync(`/usr/lib/cni/${name}`, join(stage, 'opt/cni/bin', name));

    this.log(`building ${tag} from kind ${r.KIND_VERSION}'s base files, Debian ${host.codename} and Kubernetes ${KUBERNETES_VERSION}`);
    // `rm -f <unit dir>/<target>.wants/<pattern>` as find: a missing folder is no error, as with rm -f.
    const wants = (unitDir: string, target: string, ...names: string[]): string[] => [
      'find',
      unitDir,
      '-mindepth',
      '2',
      '-maxdepth',
      '2',
      '(',
      ...(names.length ? names : ['*']).flatMap((n, i) => [...(i ? ['-o'] : []), '-path', `${unitDir}/${target}.wants/${n}`]),
      ')',
      '-delete',
    ];
    await this.inContainer({
      from: minbase,
      tag,
      packages,
      stage,
      steps: [
        // images/base/Dockerfile's clean-up of units that must not run in a node container.
        wants('/lib/systemd/system', 'sysinit.target', 'systemd-tmpfiles-setup.service'),
        wants('/lib/systemd/system', 'multi-user.target'),
        wants('/etc/systemd/system', '*'),
        wants('/lib/systemd/system', 'local-fs.target'),
        wants('/lib/systemd/system', 'sockets.target', '*udev*', '*initctl*'),
        wants('/lib/systemd/system', 'basic.target'),
        ['ln', '-sf', '/usr/lib/systemd/systemd', '/sbin/init'],
        ['systemctl', 'enable', 'kubelet.service', 'containerd.service', 'undo-mount-hacks.service'],
        ['systemctl', 'mask', 'systemd-binfmt.service'],
      ],
      finish: async (exec, container) => {
        const file = join(this.work, 'cri-base.json');
        writeFileSync(file, r.criBaseSpec(await exec(['ctr', 'oci', 'spec'])));
        await this.run(['docker', 'cp', file, `${container}:/etc/containerd/cri-base.json`], 'copy cri-base.json');
        rmSync(file, { force: true });
        return {
          debian: host.codename,
          kind: `${r.KIND_VERSION} (images/base files and units)`,
          kubernetes: `${KUBERNETES_VERSION} (kubelet, kubeadm, kubectl from kube/)`,
          crictl: (await exec(['crictl', '--version'])).trim(),
          'runtime-adaptation': adapted ? 'containerd restricts oom_score_adj; containerd.service sets no OOMScoreAdjust or Limit*' : 'none',
        };
      },
      config: {
        env: { container: 'docker' },
        stopSignal: 'SIGRTMIN+3',
        entrypoint: ['/usr/local/bin/entrypoint', '/sbin/init'],
      },
    });
    rmSync(stage, { recursive: true, force: true });
    return tag;
  }

  /** Imports the images into the node's containerd (namespace k8s.io), as kind's node-image build does, and commits. */
  private async preloaded(nodeBase: string, images: (LocalImage & { names: string[] })[], inputs: Record<string, string>): Promise<LocalImage> {
    const tag = `shice/kind-node:${KUBERNETES_VERSION}-${r.stamp({ recipe: RECIPE, nodeBase, images: images.map((i) => `${i.id} ${i.names.join(',')}`).join(';') })}`;
    if (await this.present(tag)) {
      this.log(`node image up to date (${tag})`);
      return { name: tag, id: (await this.present(tag))!, inputs: await this.inputsOf(tag) };
    }
    const container = `shice-build-${r.stamp({ tag, pid: String(process.pid) })}`;
    const exec = (argv: string[], what: string, timeoutMs = 5 * MINUTE) => this.run(['docker', 'exec', container, ...argv], what, timeoutMs);
    const archive = join(this.work, 'preload.tar');
    await runJudged(['docker', 'rm', '--force', container], { env: this.ctx.env, timeoutMs: MINUTE }, 'remove an old build container');
    await this.run(
      [
        'docker',
        'run',
        '--detach',
        '--name',
        container,
        '--label',
        'org.shice.build=kind-prepare',
        '--network',
        'none',
        '--security-opt',
        'seccomp=unconfined',
        '--entrypoint',
        'sleep',
        nodeBase,
        'infinity',
      ],
      `start a build container from ${nodeBase}`,
    );
    try {
      await this.run(['docker', 'exec', '--detach', container, 'containerd'], 'start containerd in the build container');
      const deadline = performance.now() + MINUTE;
      while (
        (await runJudged(['docker', 'exec', container, 'ctr', 'version'], { env: this.ctx.env, timeoutMs: 20_000 }, 'ask containerd', this.ctx)).exitCode !== 0
      ) {
        if (performance.now() > deadline) throw new DriverError('containerd in the build container did not answer within 60 s');
        await new Promise((ok) => setTimeout(ok, 250));
      }
      const names = images.flatMap((i) => i.names);
      this.log(`preloading ${names.join(', ')}`);
      await this.run(['docker', 'save', '--output', archive, ...names], 'save the images to preload', 10 * MINUTE);
      await this.run(['docker', 'cp', archive, `${container}:/preload.tar`], 'copy the images into the build container', 10 * MINUTE);
      rmSync(archive, { force: true });
      await exec(
        ['ctr', '--namespace=k8s.io', 'images', 'import', '--all-platforms', '--no-unpack', '--digests', '/preload.tar'],
        'import the images into containerd',
        10 * MINUTE,
      );
      await exec(['rm', '/preload.tar'], 'remove the archive');
      const listed = (await exec(['ctr', '--namespace=k8s.io', 'images', 'list', '--quiet'], 'list the preloaded images')).stdout.split('\n');
      const absent = names.filter((n) => !listed.includes(n));
      if (absent.length > 0) throw new DriverError(`preloading: containerd does not list ${absent.join(', ')} after the import`);
      const containerd = (await exec(['containerd', '--version'], "read containerd's version")).stdout.trim();
      const runc = (await exec(['runc', '--version'], "read runc's version")).stdout.split('\n')[0]!.trim();
      await exec(['pkill', 'containerd'], 'stop containerd');
      const stopped = performance.now() + MINUTE;
      while (
        (
          await runJudged(
            ['docker', 'exec', container, 'pgrep', '-x', 'containerd'],
            { env: this.ctx.env, timeoutMs: 20_000 },
            'wait for containerd to stop',
            this.ctx,
          )
        ).exitCode === 0
      ) {
        if (performance.now() > stopped) throw new DriverError('containerd in the build container did not stop within 60 s');
        await new Promise((ok) => setTimeout(ok, 250));
      }
      const all = { ...inputs, containerd, runc, preloaded: names.join(' ') };
      const stage1 = `${tag}-stage1`;
      await this.run(
        ['docker', 'commit', '--change', 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]', container, stage1],
        `commit ${tag}`,
        10 * MINUTE,
      );
      await this.configure(stage1, tag, { labels: { [r.INPUTS_LABEL]: JSON.stringify(all) } });
      await this.run(['docker', 'rmi', stage1], `untag ${stage1}`);
    } finally {
      rmSync(archive, { force: true });
      await runJudged(['docker', 'rm', '--force', container], { env: this.ctx.env, timeoutMs: 2 * MINUTE }, 'remove the build container');
    }
    this.log(`built ${tag}`);
    return { name: tag, id: (await this.present(tag))!, inputs: await this.inputsOf(tag) };
  }

  /** Debian's nginx-light, laid out like the nginx image: conf.d for the server blocks, logs to the container's output. */
  private async nginxBackend(minbase: string, host: { codename: string }): Promise<LocalImage> {
    const conf = r.backendNginxConf();
    const tag = `shice/nginx-light:${host.codename}-${r.stamp({ recipe: RECIPE, minbase, packages: r.BACKEND_PACKAGES.join(' '), conf })}`;
    if (!(await this.present(tag))) {
      const stage = this.freshStage('nginx');
      mkdirSync(join(stage, 'etc/nginx'), { recursive: true });
      writeFileSync(join(stage, 'etc/nginx/nginx.conf'), conf);
      this.log(`building ${tag} (Debian's nginx-light)`);
      await this.inContainer({
        from: minbase,
        tag,
        packages: r.BACKEND_PACKAGES,
        stage,
        steps: [
          ['rm', '-f', '/etc/nginx/sites-enabled/default'],
          ['mkdir', '-p', '/etc/nginx/conf.d'],
          ['ln', '-sf', '/dev/stdout', '/var/log/nginx/access.log'],
          ['ln', '-sf', '/dev/stderr', '/var/log/nginx/error.log'],
        ],
        finish: async () => ({ debian: host.codename }),
        // As the nginx image: nginx in the foreground, stopped gracefully by SIGQUIT.
        config: { cmd: ['nginx', '-g', 'daemon off;'], stopSignal: 'SIGQUIT', expose: [80] },
      });
      rmSync(stage, { recursive: true, force: true });
    } else {
      this.log(`backend image up to date (${tag})`);
    }
    return { name: tag, id: (await this.present(tag))!, inputs: await this.inputsOf(tag) };
  }

  private freshStage(name: string): string {
    const dir = join(this.work, `stage-${name}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return dir;
  }
}

/** Builds a Go command from the module proxy into dir, unless the stamp says it is there already. */
export async function goInstall(spec: { module: string; version: string; binary: string; dir: string; ldflags?: string }, ctx: BuildContext): Promise<string> {
  const target = join(spec.dir, spec.binary);
  const stampFile = `${target}.stamp`;
  const go = (await runOrThrow(['go', 'env', 'GOVERSION'], { env: ctx.env, timeoutMs: MINUTE }, 'read the Go version', ctx)).stdout.trim();
  const want = `${spec.module}@${spec.version} ${go} ${spec.ldflags ?? ''}`.trim();
  if (existsSync(target) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === want) return target;
  mkdirSync(spec.dir, { recursive: true });
  ctx.log(`kind:prepare: go install ${spec.module}@${spec.version}`);
  await new Promise<void>((ok, fail) => {
    const child = spawn('go', ['install', `${spec.module}@${spec.version}`], {
      env: { ...ctx.env, GOBIN: spec.dir, CGO_ENABLED: '0', GOFLAGS: `-trimpath${spec.ldflags ? ` -ldflags=${spec.ldflags}` : ''}` },
      stdio: ['ignore', 'inherit', 'inherit'],
      cwd: spec.dir,
    });
    const stop = () => child.kill('SIGTERM');
    ctx.signal.addEventListener('abort', stop, { once: true });
    child.on('close', (code) => {
      ctx.signal.removeEventListener('abort', stop);
      if (code === 0) ok();
      else fail(new DriverError(`go install ${spec.module}@${spec.version} failed (exit ${code})`));
    });
  });
  writeFileSync(stampFile, `${want}\n`);
  return target;
}
