// The images the node image is made from: a minimal Debian from the host's own
// mirror (debootstrap), the control-plane components and kube-proxy (the
// multi-call Kubernetes binary under each official name), and upstream's pause.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { arch } from 'node:os';
import { join } from 'node:path';
import { BUILT_KUBE_BIN_DIR, KUBERNETES_VERSION } from '../../kube-bin.ts';
import { DriverError } from '../../provider/node-provider.ts';
import { MINUTE, RECIPE, type BuildKit } from './build-kit.ts';
import type { LocalImage } from './local-images.ts';
import * as r from './recipe.ts';

/** The host's Debian release and apt sources: every image is built from the same mirror. */
export interface HostApt {
  sources: r.AptSource[];
  options: string[];
  codename: string;
}

export function hostApt(): HostApt {
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

/** debootstrap's minimal Debian from the host's mirror, imported as an image. */
export async function buildMinbase(kit: BuildKit, host: HostApt): Promise<string> {
  const mirror = r.debootstrapMirror(host.sources, host.codename);
  const list = r.sourcesList(host.sources);
  const tag = `shice/debian-minbase:${host.codename}-${r.stamp({ recipe: RECIPE, mirror, list, arch: arch() })}`;
  if (await kit.present(tag)) {
    kit.log(`minimal Debian ${host.codename} up to date (${tag})`);
    return tag;
  }
  const dir = join(kit.work, 'minbase');
  const archive = join(kit.work, 'minbase.tar');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(kit.work, { recursive: true });
  kit.log(`debootstrap --variant=minbase ${host.codename} from ${mirror} (about a minute)`);
  try {
    await kit.run(['debootstrap', '--variant=minbase', host.codename, dir, mirror], 'debootstrap a minimal Debian', 20 * MINUTE);
    writeFileSync(join(dir, 'etc/apt/sources.list'), list);
    await kit.run(['tar', '-C', dir, '-cf', archive, '.'], 'pack the minimal Debian', 5 * MINUTE);
    await kit.run(['docker', 'import', archive, tag], `import ${tag}`, 5 * MINUTE);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(archive, { force: true });
  }
  kit.log(`built ${tag}`);
  return tag;
}

/** The control-plane images and kube-proxy: the multi-call binary under each official name, with iptables and nft. */
export async function buildComponents(
  kit: BuildKit,
  minbase: string,
  host: { codename: string },
  expected: r.ExpectedImages,
): Promise<LocalImage & { names: string[] }> {
  const tag = `shice/kube-components:${KUBERNETES_VERSION}-${r.stamp({ recipe: RECIPE, minbase, packages: r.COMPONENT_PACKAGES.join(' '), kube: kit.kubeStamp() })}`;
  const names = [expected.apiserver, expected.controllerManager, expected.scheduler, expected.proxy, expected.etcd];
  if (!(await kit.present(tag))) {
    const stage = kit.freshStage('components');
    const bin = join(stage, 'usr/local/bin');
    mkdirSync(bin, { recursive: true });
    copyFileSync(join(BUILT_KUBE_BIN_DIR, 'kube'), join(bin, 'kube'));
    chmodSync(join(bin, 'kube'), 0o755);
    for (const name of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'etcd']) symlinkSync('kube', join(bin, name));
    kit.log(`building ${tag} (kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy, etcd)`);
    await kit.inContainer({ from: minbase, tag, packages: r.COMPONENT_PACKAGES, stage, config: { labels: { 'org.shice.debian': host.codename } } });
    rmSync(stage, { recursive: true, force: true });
  } else {
    kit.log(`control-plane images up to date (${tag})`);
  }
  for (const name of names) await kit.run(['docker', 'tag', tag, name], `tag ${name}`);
  return { ...(await kit.localImage(tag)), names };
}

/** Upstream's pause (build/pause/linux/pause.c of k8s.io/kubernetes), compiled static as its Makefile does. */
export async function buildPause(kit: BuildKit, kubernetesModuleDir: string, names: string[]): Promise<LocalImage & { names: string[]; version: string }> {
  const source = join(kubernetesModuleDir, 'build/pause/linux/pause.c');
  const version = r.pauseVersion(readFileSync(join(kubernetesModuleDir, 'build/pause/Makefile'), 'utf8'));
  const tag = `shice/pause:${version}-${r.stamp({ recipe: RECIPE, source: readFileSync(source, 'utf8') })}`;
  if (!(await kit.present(tag))) {
    const dir = kit.freshStage('pause');
    kit.log(`compiling pause ${version} from ${KUBERNETES_VERSION}'s build/pause`);
    await kit.run(
      ['gcc', '-Os', '-Wall', '-Werror', '-static', `-DVERSION=v${version}-${KUBERNETES_VERSION}`, '-o', join(dir, 'pause'), source],
      'compile pause (gcc, static)',
      2 * MINUTE,
    );
    const archive = join(kit.work, 'pause.tar');
    await kit.run(['tar', '-C', dir, '-cf', archive, 'pause'], 'pack pause');
    const stage1 = `${tag}-stage1`;
    await kit.run(['docker', 'import', archive, stage1], 'import pause');
    await kit.configure(stage1, tag, {
      entrypoint: ['/pause'],
      labels: { [r.INPUTS_LABEL]: JSON.stringify({ pause: version, source: `k8s.io/kubernetes@${KUBERNETES_VERSION}/build/pause` }) },
    });
    await kit.run(['docker', 'rmi', stage1], `untag ${stage1}`);
    rmSync(archive, { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
  for (const name of new Set(names)) await kit.run(['docker', 'tag', tag, name], `tag ${name}`);
  return { ...(await kit.localImage(tag)), names: [...new Set(names)], version };
}
