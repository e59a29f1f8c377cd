// A release's Kubernetes binaries from kube/ (one multi-call binary from
// k8s.io/kubernetes and etcd's server module, with a link per official name)
// into the machine cache, ~/.cache/shice/kube/<release>/bin: what
// `npm run lab:build` runs for each release it is asked for, and what a capture
// runs before its first run for a release the lab needs and the cache lacks
// (src/capture/command/prepare.ts). A binary built from the same module files by the
// same Go is current and left as it is.
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { builtKubeBinDir, buildStamp, KUBE_BINARY_NAMES, KUBE_MODULE_DIR, moduleFilesOf, versionLdflags, type KubeBuildState } from './kube-bin.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import { compiledText, elapsedSince, goBuild, stampIsCurrent, writeStamp } from './go-build.ts';

const stampOf = (release: KubeRelease, go: string): string =>
  buildStamp(Object.fromEntries(moduleFilesOf(release).map((f) => [f, readFileSync(join(KUBE_MODULE_DIR, f), 'utf8')])), go, release);

/**
 * The release's build in the machine cache: `missing` (a binary or a link absent), `stale`
 * (built from other module files or by another Go), or `current`. Without a Go to compare
 * with, a complete build is taken as it is: there is nothing to rebuild it with.
 */
export function kubeBuildState(release: KubeRelease, go: string | null): KubeBuildState {
  const dir = builtKubeBinDir(release);
  if (!existsSync(join(dir, 'kube')) || !KUBE_BINARY_NAMES.every((name) => existsSync(join(dir, name)))) return 'missing';
  if (go === null) return 'current';
  return stampIsCurrent(join(dir, '.stamp'), stampOf(release, go)) ? 'current' : 'stale';
}

export interface KubeBuildOptions {
  /** The prefix of every line: `lab:build`, or the capture's. */
  tag: string;
  /** Say nothing when the build is current. */
  quiet: boolean;
  say: (line: string) => void;
  signal?: AbortSignal;
}

/** Builds the release unless its build is current; the one line saying what failed, or null. */
export async function buildKube(release: KubeRelease, go: string, options: KubeBuildOptions): Promise<string | null> {
  const { tag, say } = options;
  const dir = builtKubeBinDir(release);
  const binary = join(dir, 'kube');
  if (kubeBuildState(release, go) === 'current') {
    if (!options.quiet) say(`${tag}: ${dir} is up to date (Kubernetes ${release.release}, etcd ${release.etcd}, ${go})`);
    return null;
  }
  const started = performance.now();
  say(
    `${tag}: building Kubernetes ${release.release} and etcd ${release.etcd} (${KUBE_BINARY_NAMES.join(', ')}) with ${go} from kube/${release.modfile}; a cold build takes minutes`,
  );
  const built = await goBuild({
    tag,
    cwd: KUBE_MODULE_DIR,
    // Static, as upstream builds these binaries (hack/lib/golang.sh).
    env: { ...process.env, CGO_ENABLED: '0' },
    flags: [`-modfile=${release.modfile}`, '-trimpath', '-ldflags', versionLdflags(release.release, new Date().toISOString().replace(/\.\d+Z$/, 'Z'))],
    packages: ['.'],
    output: binary,
    started,
    say,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if ('problem' in built) return `Kubernetes ${release.release}: ${built.problem}`;
  for (const name of KUBE_BINARY_NAMES) {
    const link = join(dir, name);
    rmSync(link, { force: true });
    symlinkSync('kube', link);
  }
  writeStamp(join(dir, '.stamp'), stampOf(release, go));
  say(`${tag}: ${binary} built in ${elapsedSince(started)} (${compiledText(built.compiled)}), linked as ${KUBE_BINARY_NAMES.join(', ')}`);
  return null;
}
