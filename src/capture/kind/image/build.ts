// Builds, without any registry, the images a kind cluster needs on this machine:
// kind's node image for Kubernetes v1.37.2 (kind's own base files and units,
// Debian's packages, kubelet and kubeadm from kube/, containerd, runc, the CNI
// plugins, and the control-plane images preloaded), and the backend images that
// experiments run in place of images they cannot pull. Every image is tagged
// with a stamp of its inputs, the code that builds it included (build-kit.ts
// RECIPE): an unchanged input skips the work.
//
// The way it works follows kind's own `kind build node-image`
// (pkg/build/nodeimage): a build container that sleeps, `docker exec` and
// `docker cp` into it, `docker commit`; preloading imports image archives into
// the node's containerd with ctr, then commits again. The images: base-images.ts
// (minimal Debian, the control plane, pause), node-image.ts, backend-image.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_KUBE_BIN_DIR, KUBERNETES_VERSION } from '../../kube-bin.ts';
import { writeJsonAtomically } from '../engine/engine.ts';
import { buildComponents, buildMinbase, buildPause, hostApt } from './base-images.ts';
import { buildNginxBackend } from './backend-image.ts';
import { BuildKit, MINUTE, type BuildContext } from './build-kit.ts';
import { IMAGES_RECORD, type ImagesRecord } from './local-images.ts';
import { buildNodeBase, buildPreloaded } from './node-image.ts';
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
      [join(BUILT_KUBE_BIN_DIR, 'kubeadm'), 'config', 'images', 'list', '--kubernetes-version', KUBERNETES_VERSION],
      'ask kubeadm which images it expects',
      MINUTE,
    );
    const expected = r.parseKubeadmImages(kubeadm.stdout);
    const etcd = r.parseEtcdVersion((await kit.run([join(BUILT_KUBE_BIN_DIR, 'etcd'), '--version'], 'read the built etcd version', MINUTE)).stdout);
    r.checkEtcdTag(expected.etcd, etcd);

    const kindFiles = join(kindModuleDir, 'images/base/files');
    const kindContainerd = readFileSync(join(kindFiles, 'etc/containerd/config.toml'), 'utf8');
    const components = await buildComponents(kit, minbase, host, expected);
    const pause = await buildPause(kit, kubernetesModuleDir, [expected.pause, r.sandboxImage(kindContainerd)]);
    const nodeBase = await buildNodeBase(kit, minbase, host, kindModuleDir);
    const node = await buildPreloaded(kit, nodeBase, [components, pause], {
      ...(await kit.inputsOf(nodeBase)),
      etcd,
      pause: pause.version,
      coredns: `left out: kubeadm's CoreDNS addon is skipped (${expected.coredns} is not built here)`,
    });
    const backend = await buildNginxBackend(kit, minbase, host);
    await this.pruneSuperseded([minbase, components.name, pause.name, nodeBase, node.name, backend.name]);
    const record: ImagesRecord = { builtAt: new Date().toISOString(), kind: r.KIND_VERSION, node, backends: { 'debian-nginx-light': backend } };
    writeJsonAtomically(IMAGES_RECORD, record);
    return record;
  }

  /** Earlier builds of shice's own images (other stamps) are removed: each weighs hundreds of MB. */
  private async pruneSuperseded(current: string[]): Promise<void> {
    const listed = await this.kit.run(
      ['docker', 'image', 'ls', '--filter', 'reference=shice/*', '--format', '{{.Repository}}:{{.Tag}}'],
      "list shice's images",
    );
    const old = listed.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !current.includes(l));
    if (old.length === 0) return;
    this.kit.log(`removing ${old.length} superseded image(s): ${old.join(', ')}`);
    await this.kit.judged(['docker', 'image', 'rm', ...old], 'remove superseded images', 5 * MINUTE);
  }
}
