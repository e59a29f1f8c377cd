// `npm run kind:prepare`: everything the kind driver needs on a Linux machine
// that has none of it. A Docker engine (one that answers, or shice's own), kind
// and crictl built from their Go modules, the Kubernetes binaries (kube/), and,
// where no registry answers, the node and backend images built locally.
import { join, resolve } from 'node:path';
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
import { judged, runOrThrow } from '../machine/checked-run.ts';
import { runProcess } from '../machine/process.ts';
import { builtKubeBinDir } from '../machine/kube-bin.ts';
import { HEADLINE_RELEASE, type KubeRelease } from '../../experiment/kubernetes.ts';
import { engineEnv, findEngine, startEngine, type Engine } from './engine/engine.ts';
import { runtimeAdaptation } from './engine/engine.ts';
import { goInstall, ImageBuilder, KIND_TOOLS_DIR, type ImagesRecord } from './image/build.ts';
import { CRICTL_MODULE, CRICTL_VERSION, KIND_MODULE, KIND_VERSION } from './image/recipe.ts';
import { registryReachable } from './registry.ts';
import { readFileSync } from 'node:fs';

export interface PrepareOptions {
  root: string;
  /** Build the local images even where a registry answers. */
  buildImages: boolean;
  /** The Kubernetes releases to prepare node images of (the headline's when empty). */
  releases: readonly KubeRelease[];
  env?: NodeJS.ProcessEnv;
}

export interface Prepared {
  engine: Engine;
  /** The engine was started by this call (so whoever called it may stop it). */
  startedEngine: boolean;
  registry: boolean;
  /** What the last build recorded (every prepared release's node image), or null where the official images are used. */
  images: ImagesRecord | null;
  tools: { kind: string; crictl: string };
}

/** kubelet, kubeadm and the control plane from their module: 18.5 min of a loaded 2-core machine when cold. */
const KUBE_BUILD_MS = 120 * 60_000;

/** The folders the kind driver puts first on PATH: kind and crictl from kind:prepare, kubectl of the run's release from kube/. */
export const kindPathDirs = (release: KubeRelease): string[] => [KIND_TOOLS_DIR, builtKubeBinDir(release)];

/** The command that prepares a release's node image: the headline's is the bare command. */
export const prepareCommand = (release: KubeRelease): string =>
  release === HEADLINE_RELEASE ? 'npm run kind:prepare' : `npm run kind:prepare -- --k8s ${release.minor}`;

export async function prepare(options: PrepareOptions, ctx: ProviderContext): Promise<Prepared> {
  const env = options.env ?? process.env;
  const root = resolve(options.root);

  // kubelet, kubeadm and the control plane: the same multi-call binary the lab runs.
  // Its progress as it prints it: a cold build takes a quarter of an hour or more.
  const releases = options.releases.length ? options.releases : [HEADLINE_RELEASE];
  const asked = ['--k8s', releases.map((r) => r.minor).join(',')];
  const build = await runProcess([process.execPath, join(root, 'scripts/build-kube.ts'), '--quiet-if-current', ...asked], {
    cwd: root,
    env,
    timeoutMs: KUBE_BUILD_MS,
    signal: ctx.signal,
    echo: true,
  });
  judged(build, 'build the Kubernetes binaries (npm run lab:build)', KUBE_BUILD_MS, false);
  if (build.exitCode !== 0) throw new DriverError(`npm run lab:build failed (exit ${build.signal ?? build.exitCode}): kubelet and kubeadm come from it`);

  let engine = await findEngine(env);
  let startedEngine = false;
  if (engine === null) {
    engine = await startEngine(ctx.log, env);
    startedEngine = true;
  } else {
    ctx.log(`kind:prepare: using the Docker engine that answers (${engine.own ? "shice's own" : "the host's"}, Docker ${engine.serverVersion})`);
  }
  const dockerEnv = engineEnv(engine, env);
  const buildCtx = { ...ctx, root, env: dockerEnv, adaptation: engine.record?.adaptation ?? runtimeAdaptation(readFileSync('/proc/self/status', 'utf8')) };

  const toolDir = KIND_TOOLS_DIR;
  const kind = await goInstall({ module: KIND_MODULE, version: KIND_VERSION, binary: 'kind', dir: toolDir }, buildCtx);
  // cri-tools' Makefile stamps the version the same way; without it crictl says "unknown".
  const crictl = await goInstall(
    {
      module: CRICTL_MODULE,
      version: CRICTL_VERSION,
      binary: 'crictl',
      dir: toolDir,
      ldflags: `-X=sigs.k8s.io/cri-tools/pkg/version.Version=${CRICTL_VERSION}`,
    },
    buildCtx,
  );

  const registry = await registryReachable();
  let images: ImagesRecord | null = null;
  if (registry && !options.buildImages) {
    ctx.log("kind:prepare: a registry answers: the kind driver will use kind's official node image (--build-images builds the local ones anyway)");
  } else {
    const modCache = (await runOrThrow(['go', 'env', 'GOMODCACHE'], { env, timeoutMs: 60_000 }, 'find the Go module cache', ctx)).stdout.trim();
    for (const release of releases) {
      ctx.log(`kind:prepare: the node image of Kubernetes ${release.release}`);
      images = await new ImageBuilder({ ...buildCtx, release }).buildAll(
        join(modCache, `${KIND_MODULE}@${KIND_VERSION}`),
        join(modCache, `k8s.io/kubernetes@${release.release}`),
      );
    }
  }
  return { engine, startedEngine, registry, images, tools: { kind, crictl } };
}
