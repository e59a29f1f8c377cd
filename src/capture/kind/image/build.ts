// Builds, without any registry, the images a kind cluster needs on this machine:
// kind's node image for one Kubernetes release (kind's own base files and units,
// Debian's packages, kubelet and kubeadm from kube/, containerd, runc, the CNI
// plugins, and the control-plane images and the backend images preloaded),
// the backend images being those experiments run in place of images they
// cannot pull. Every image is tagged with a stamp of its inputs, the code that
// builds it included (build-kit.ts RECIPE): an unchanged input skips the work.
//
// The way it works follows kind's own `kind build node-image`
// (pkg/build/nodeimage): a build container that sleeps, `docker exec` and
// `docker cp` into it, `docker commit`; preloading imports image archives into
// the node's containerd with ctr, then commits again. The images: base-images.ts
// (minimal Debian, the control plane, pause), node-image.ts, backend-image.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeJsonAtomically } from '../engine/engine.ts';
import { buildComponents, buildMinbase, buildPause, hostApt } from './base-images.ts';
import { buildNginxBackend } from './backend-image.ts';
import { BuildKit, MINUTE, type BuildContext } from './build-kit.ts';
import { IMAGES_RECORD, readImagesRecord, type ImagesRecord } from './local-images.ts';
import { buildKindBase, buildNodeBase, buildPreloaded } from './node-image.ts';
import * as r from './recipe.ts';

export { PREPARE_DIR, type BuildContext } from './build-kit.ts';
export { goInstall } from './go-install.ts';
export { BACKEND_RECIPES, IMAGES_RECORD, KIND_TOOLS_DIR, readImagesRecord, type BackendRecipe, type ImagesRecord, type LocalImage } from './local-images.ts';

export class ImageBuilder {
  private readonly kit: BuildKit;

  constructor(ctx: BuildContext) {
    this.kit = new BuildKit(ctx);
  }

  /** Builds everything; returns the record it wrote. */
  async buildAll(kindModuleDir: string, kubernetesModuleDir: string): Promise<ImagesRecord> {
    const kit = this.kit;
    const host = hostApt();
    const minbase = await buildMinbase(kit, host);
    const kubeadm = await kit.run(
      [join(kit.kubeBin, 'kubeadm'), 'config', 'images', 'list', '--kubernetes-version', kit.ctx.release.release],
      'ask kubeadm which images it expects',
      MINUTE,
    );
    const expected = r.parseKubeadmImages(kubeadm.stdout);
    const etcd = r.parseEtcdVersion((await kit.run([join(kit.kubeBin, 'etcd'), '--version'], 'read the built etcd version', MINUTE)).stdout);
    r.checkEtcdTag(expected.etcd, etcd);

    const kindFiles = join(kindModuleDir, 'images/base/files');
    const kindContainerd = readFileSync(join(kindFiles, 'etc/containerd/config.toml'), 'utf8');
    const components = await buildComponents(kit, minbase, host, expected);
    const pause = await buildPause(kit, kubernetesModuleDir, [expected.pause, r.sandboxImage(kindContainerd)]);
    // kind's base once for every release; the release's binaries on it.
    const kindBase = await buildKindBase(kit, minbase, host, kindModuleDir);
    const nodeBase = await buildNodeBase(kit, kindBase);
    // Preloaded with the control plane, so that a capture finds its substitute in every node instead of loading it each run.
    const backend = await buildNginxBackend(kit, minbase, host);
    const node = await buildPreloaded(kit, nodeBase, [components, pause, { ...backend, names: [backend.name] }], {
      ...(await kit.inputsOf(nodeBase)),
      etcd,
      pause: pause.version,
      coredns: `left out: kubeadm's CoreDNS addon is skipped (${expected.coredns} is not built here)`,
    });
    await this.pruneSuperseded([minbase, components.name, pause.name, kindBase, nodeBase, node.name, backend.name]);
    // Every other release's node image stays as an earlier prepare recorded it.
    const release = kit.ctx.release.release;
    const nodes = { ...(readImagesRecord()?.nodes ?? {}), [release]: node };
    const record: ImagesRecord = { builtAt: new Date().toISOString(), kind: r.KIND_VERSION, nodes, backends: { 'debian-nginx-light': backend } };
    writeJsonAtomically(IMAGES_RECORD, record);
    return record;
  }

  /** Earlier builds of the images just made (other stamps of the same name and version) are removed: each weighs hundreds of MB. */
  private async pruneSuperseded(current: string[]): Promise<void> {
    const listed = await this.kit.run(
      ['docker', 'image', 'ls', '--filter', 'reference=shice/*', '--format', '{{.Repository}}:{{.Tag}}'],
      "list shice's images",
    );
    const old = r.supersededImages(listed.stdout.split('\n'), current);
    if (old.length === 0) return;
    this.kit.log(`removing ${old.length} superseded image(s): ${old.join(', ')}`);
    await this.kit.judged(['docker', 'image', 'rm', ...old], 'remove superseded images', 5 * MINUTE);
  }
}
