// kind's node image, the way `kind build node-image` makes it
// (pkg/build/nodeimage): first kind's base image (images/base/Dockerfile) from
// Debian's packages and kind's own files and units, with Kubernetes' node
// binaries; then the control-plane images and pause imported into the node's
// containerd (namespace k8s.io) in a build container, and committed.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DriverError } from '../../provider/node-provider.ts';
import { folderHash, MINUTE, RECIPE, type BuildKit } from './build-kit.ts';
import { KIND_TOOLS_DIR, type LocalImage } from './local-images.ts';
import * as r from './recipe.ts';

/** `rm -f <unit dir>/<target>.wants/<pattern>` as find: a missing folder is no error, as with rm -f. */
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

/** Lays out kind's base files and units and crictl in `stage`, as the image's root: everything but Kubernetes. */
function stageKindFiles(stage: string, files: string, crictl: string, adapted: boolean): void {
  const put = putter(stage);
  const kindFile = (path: string): string => readFileSync(join(files, path), 'utf8');
  for (const name of readdirSync(join(files, 'usr/local/bin'))) put(`usr/local/bin/${name}`, readFileSync(join(files, 'usr/local/bin', name)), 0o755);
  put('kind/README.txt', kindFile('kind/README.txt'));
  for (const name of readdirSync(join(files, 'kind/bin'))) put(`kind/bin/${name}`, kindFile(`kind/bin/${name}`), 0o755);
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
  put('usr/local/bin/crictl', readFileSync(crictl), 0o755);
  // Debian's containerd, runc and CNI plugins where kind's unit files and containerd's config look for them.
  for (const name of ['containerd', 'ctr', 'containerd-shim-runc-v2']) symlinkSync(`/usr/bin/${name}`, join(stage, 'usr/local/bin', name));
  mkdirSync(join(stage, 'usr/local/sbin'), { recursive: true });
  symlinkSync('/usr/sbin/runc', join(stage, 'usr/local/sbin/runc'));
  mkdirSync(join(stage, 'opt/cni/bin'), { recursive: true });
  for (const name of r.NODE_CNI_PLUGINS) symlinkSync(`/usr/lib/cni/${name}`, join(stage, 'opt/cni/bin', name));
}

/** Writes files under `stage` with their folders and modes. */
const putter =
  (stage: string) =>
  (path: string, text: string | Buffer, mode = 0o644): void => {
    mkdirSync(dirname(join(stage, path)), { recursive: true });
    writeFileSync(join(stage, path), text);
    chmodSync(join(stage, path), mode);
  };

/**
 * kind's base image (images/base/Dockerfile), from Debian packages and kind's own
 * files, without Kubernetes: the layers every release's node image shares, built once.
 */
export async function buildKindBase(kit: BuildKit, minbase: string, host: { codename: string }, kindModuleDir: string): Promise<string> {
  const files = join(kindModuleDir, 'images/base/files');
  const packages = [...r.kindBasePackages(readFileSync(join(kindModuleDir, 'images/base/Dockerfile'), 'utf8')), ...r.NODE_RUNTIME_PACKAGES];
  const crictl = join(KIND_TOOLS_DIR, 'crictl');
  const adapted = kit.ctx.adaptation !== null;
  const tag = `shice/kind-base:${host.codename}-${r.stamp({
    recipe: RECIPE,
    minbase,
    packages: packages.join(' '),
    kindFiles: folderHash(files),
    crictl: createHash('sha256').update(readFileSync(crictl)).digest('hex'),
    adapted: String(adapted),
  })}`;
  if (await kit.present(tag)) {
    kit.log(`kind base image up to date (${tag})`);
    return tag;
  }
  const stage = kit.freshStage('kind-base');
  stageKindFiles(stage, files, crictl, adapted);
  kit.log(`building ${tag} from kind ${r.KIND_VERSION}'s base files and Debian ${host.codename}`);
  await kit.inContainer({
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
      const file = join(kit.work, 'cri-base.json');
      writeFileSync(file, r.criBaseSpec(await exec(['ctr', 'oci', 'spec'])));
      await kit.run(['docker', 'cp', file, `${container}:/etc/containerd/cri-base.json`], 'copy cri-base.json');
      rmSync(file, { force: true });
      return {
        debian: host.codename,
        kind: `${r.KIND_VERSION} (images/base files and units)`,
        crictl: (await exec(['crictl', '--version'])).trim(),
        'runtime-adaptation': adapted ? 'containerd restricts oom_score_adj; containerd.service sets no OOMScoreAdjust or Limit*' : 'none',
      };
    },
    config: NODE_CONFIG,
  });
  rmSync(stage, { recursive: true, force: true });
  return tag;
}

/** How a node container starts: kind's entrypoint, then systemd. */
const NODE_CONFIG = {
  env: { container: 'docker' },
  stopSignal: 'SIGRTMIN+3',
  entrypoint: ['/usr/local/bin/entrypoint', '/sbin/init'],
};

/** The release's node binaries (kubelet, kubeadm, kubectl from kube/) on kind's base: one thin layer per release. */
export async function buildNodeBase(kit: BuildKit, kindBase: string): Promise<string> {
  const release = kit.ctx.release.release;
  const tag = `shice/kind-node-base:${release}-${r.stamp({ recipe: RECIPE, kindBase, kube: kit.kubeStamp() })}`;
  if (await kit.present(tag)) {
    kit.log(`node base image up to date (${tag})`);
    return tag;
  }
  const stage = kit.freshStage('node');
  const put = putter(stage);
  put('kind/version', release);
  put('usr/bin/kube', readFileSync(join(kit.kubeBin, 'kube')), 0o755);
  for (const name of ['kubelet', 'kubeadm', 'kubectl']) symlinkSync('kube', join(stage, 'usr/bin', name));
  kit.log(`building ${tag}: Kubernetes ${release} on ${kindBase}`);
  const base = await kit.inputsOf(kindBase);
  await kit.inContainer({
    from: kindBase,
    tag,
    packages: [],
    stage,
    finish: async () => ({ ...base, kubernetes: `${release} (kubelet, kubeadm, kubectl from kube/)` }),
    config: NODE_CONFIG,
  });
  rmSync(stage, { recursive: true, force: true });
  return tag;
}

/** Polls `argv` in the build container until its exit says `done`, for up to a minute. */
async function until(kit: BuildKit, argv: string[], what: string, done: (exitCode: number | null) => boolean, failure: string): Promise<void> {
  const deadline = performance.now() + MINUTE;
  while (!done((await kit.judged(argv, what, 20_000)).exitCode)) {
    if (performance.now() > deadline) throw new DriverError(failure);
    await new Promise((ok) => setTimeout(ok, 250));
  }
}

/** Imports the images into the node's containerd (namespace k8s.io), as kind's node-image build does, and commits. */
export async function buildPreloaded(
  kit: BuildKit,
  nodeBase: string,
  images: (LocalImage & { names: string[] })[],
  inputs: Record<string, string>,
): Promise<LocalImage> {
  const tag = `shice/kind-node:${kit.ctx.release.release}-${r.stamp({ recipe: RECIPE, nodeBase, images: images.map((i) => `${i.id} ${i.names.join(',')}`).join(';') })}`;
  if (await kit.present(tag)) {
    kit.log(`node image up to date (${tag})`);
    return kit.localImage(tag);
  }
  const container = kit.containerName(tag);
  const exec = (argv: string[], what: string, timeoutMs = 5 * MINUTE) => kit.run(['docker', 'exec', container, ...argv], what, timeoutMs);
  const archive = join(kit.work, 'preload.tar');
  await kit.startContainer(container, nodeBase, 'none');
  try {
    await kit.run(['docker', 'exec', '--detach', container, 'containerd'], 'start containerd in the build container');
    const answers = (code: number | null) => code === 0;
    await until(
      kit,
      ['docker', 'exec', container, 'ctr', 'version'],
      'ask containerd',
      answers,
      'containerd in the build container did not answer within 60 s',
    );
    const names = images.flatMap((i) => i.names);
    kit.log(`preloading ${names.join(', ')}`);
    await kit.run(['docker', 'save', '--output', archive, ...names], 'save the images to preload', 10 * MINUTE);
    await kit.run(['docker', 'cp', archive, `${container}:/preload.tar`], 'copy the images into the build container', 10 * MINUTE);
    rmSync(archive, { force: true });
    await exec(
      ['ctr', '--namespace=k8s.io', 'images', 'import', '--all-platforms', '--no-unpack', '--digests', '/preload.tar'],
      'import the images into containerd',
      10 * MINUTE,
    );
    await exec(['rm', '/preload.tar'], 'remove the archive');
    const listed = (await exec(['ctr', '--namespace=k8s.io', 'images', 'list', '--quiet'], 'list the preloaded images')).stdout.split('\n');
    const absent = names.filter((n) => !listed.includes(r.containerdImageName(n)));
    if (absent.length > 0) throw new DriverError(`preloading: containerd does not list ${absent.join(', ')} after the import`);
    const containerd = (await exec(['containerd', '--version'], "read containerd's version")).stdout.trim();
    const runc = (await exec(['runc', '--version'], "read runc's version")).stdout.split('\n')[0]!.trim();
    await exec(['pkill', 'containerd'], 'stop containerd');
    const gone = (code: number | null) => code !== 0;
    const stillThere = ['docker', 'exec', container, 'pgrep', '-x', 'containerd'];
    await until(kit, stillThere, 'wait for containerd to stop', gone, 'containerd in the build container did not stop within 60 s');
    const all = { ...inputs, containerd, runc, preloaded: names.join(' ') };
    const stage1 = `${tag}-stage1`;
    await kit.run(['docker', 'commit', '--change', 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]', container, stage1], `commit ${tag}`, 10 * MINUTE);
    await kit.configure(stage1, tag, { labels: { [r.INPUTS_LABEL]: JSON.stringify(all) } });
    await kit.run(['docker', 'rmi', stage1], `untag ${stage1}`);
  } finally {
    rmSync(archive, { force: true });
    await kit.judged(['docker', 'rm', '--force', container], 'remove the build container', 2 * MINUTE, false);
  }
  kit.log(`built ${tag}`);
  return kit.localImage(tag);
}
