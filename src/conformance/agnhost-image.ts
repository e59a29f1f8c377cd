// agnhost, the image upstream's Service tests run, built here from its source
// in the release's module (no registry to pull it from) and tagged with the
// name the release's test/utils/image/manifest.go gives it, so the tests run
// it unchanged. Upstream builds it on Alpine; this one is the project's minimal
// Debian with Debian's packages of the same tools: a stand-in for the image's
// base, said on the record and the pages, never for agnhost itself.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BuildKit, type BuildContext } from '../capture/kind/image/build-kit.ts';
import { buildMinbase, hostApt } from '../capture/kind/image/base-images.ts';
import * as r from '../capture/kind/image/recipe.ts';
import { DriverError } from '../capture/provider/node-provider.ts';

/** Debian's packages for what upstream's Dockerfile installs from Alpine (bind-tools, curl, netcat-openbsd, iproute2, iperf, bash, util-linux-misc, socat). */
export const AGNHOST_PACKAGES = ['bind9-dnsutils', 'curl', 'netcat-openbsd', 'iproute2', 'iperf', 'bash', 'util-linux', 'socat'];

/** What upstream's image has that this one leaves out, and why: none of the focused tests uses it. */
export const AGNHOST_LEFT_OUT = [
  'CoreDNS 1.6.2 (downloaded from GitHub by upstream’s Dockerfile; used by DNS tests)',
  'the fake registry’s images under /var/registry (pulled with crane by upstream’s Dockerfile; used by image-pull tests)',
];

const RECIPE = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest('hex');

/** agnhost's name and tag in the release's test/utils/image/manifest.go, e.g. registry.k8s.io/e2e-test-images/agnhost:2.66.1. Pure. */
export function agnhostImageName(manifestGo: string, shown: string): string {
  const tag = /configs\[Agnhost\]\s*=\s*Config\{list\.PromoterE2eRegistry,\s*"agnhost",\s*"([^"]+)"\}/.exec(manifestGo)?.[1];
  const registry = /PromoterE2eRegistry:\s*"([^"]+)"/.exec(manifestGo)?.[1];
  if (!tag || !registry)
    throw new DriverError(`${shown}: expected configs[Agnhost] and the PromoterE2eRegistry default, found ${tag ? 'no registry' : 'no agnhost tag'}`);
  return `${registry}/agnhost:${tag}`;
}

export interface AgnhostImage {
  /** The name the tests run it by. */
  name: string;
  /** shice's own tag of the same image (its stamp: the binary, the base and this recipe). */
  builtAs: string;
  /** The version agnhost's source says (test/images/agnhost/VERSION). */
  sourceVersion: string;
  base: string;
  packages: Record<string, string>;
}

/**
 * Builds the image unless one of the same stamp is there, and tags it with upstream's
 * name. `moduleDir` is k8s.io/kubernetes@<release> in the Go module cache.
 */
export async function buildAgnhostImage(ctx: BuildContext, binary: string, moduleDir: string): Promise<AgnhostImage> {
  const kit = new BuildKit(ctx);
  const minbase = await buildMinbase(kit, hostApt());
  const name = agnhostImageName(readFileSync(join(moduleDir, 'test/utils/image/manifest.go'), 'utf8'), 'test/utils/image/manifest.go');
  const sourceVersion = readFileSync(join(moduleDir, 'test/images/agnhost/VERSION'), 'utf8').trim();
  const binaryHash = createHash('sha256').update(readFileSync(binary)).digest('hex');
  const builtAs = `shice/agnhost:${sourceVersion}-${r.stamp({ recipe: RECIPE, minbase, binary: binaryHash, packages: AGNHOST_PACKAGES.join(' ') })}`;
  if (!(await kit.present(builtAs))) {
    const stage = kit.freshStage('agnhost');
    copyFileSync(binary, join(stage, 'agnhost'));
    // porter serves TLS with these; netexec writes uploads here (upstream's Dockerfile).
    for (const file of ['localhost.crt', 'localhost.key']) copyFileSync(join(moduleDir, 'test/images/agnhost/porter', file), join(stage, file));
    mkdirSync(join(stage, 'uploads'));
    kit.log(`building ${builtAs} (agnhost ${sourceVersion} from its source, on Debian)`);
    await kit.inContainer({
      from: minbase,
      tag: builtAs,
      packages: AGNHOST_PACKAGES,
      stage,
      steps: [
        ['chmod', '0755', '/agnhost'],
        ['ln', '-s', 'agnhost', '/agnhost-2'],
        ['groupadd', '--gid', '50000', 'group-defined-in-image'],
        ['useradd', '--uid', '1000', '--no-create-home', '--groups', 'group-defined-in-image', 'user-defined-in-image'],
      ],
      finish: async () => ({ agnhost: sourceVersion }),
      config: { entrypoint: ['/agnhost'], cmd: ['pause'], expose: [80, 8080, 8081, 9376, 5000] },
    });
    rmSync(stage, { recursive: true, force: true });
  } else {
    kit.log(`agnhost image up to date (${builtAs})`);
  }
  await kit.run(['docker', 'tag', builtAs, name], `tag ${builtAs} as ${name}`);
  const { agnhost: _, ...packages } = await kit.inputsOf(builtAs);
  return { name, builtAs, sourceVersion, base: minbase, packages };
}
