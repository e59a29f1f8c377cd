// A release's upstream e2e test binary and agnhost, built from kube/e2e/<minor>
// (a Go module requiring k8s.io/kubernetes at the release, its staging modules
// replaced by their published versions as kube/ does) into the machine cache,
// ~/.cache/shice/e2e/<release>/: what `npm run conformance` and the kind
// suite's upstream test run. A build from the same module files by the same Go
// is current and left as it is.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { e2eBuildDir, e2eModuleDir, E2E_MODULE_FILES } from './e2e-bin.ts';
import { versionLdflags } from '../capture/machine/kube-bin.ts';
import type { KubeRelease } from '../experiment/kubernetes.ts';
import { compiledText, elapsedSince, goBuild, moduleStamp, stampIsCurrent, writeStamp } from '../capture/machine/go-build.ts';

export const E2E_BINARY = 'e2e.test';
export const AGNHOST_BINARY = 'agnhost';
const AGNHOST_PACKAGE = 'k8s.io/kubernetes/test/images/agnhost';

const stampOf = (dir: string, release: KubeRelease, go: string): string =>
  moduleStamp(Object.fromEntries(E2E_MODULE_FILES.map((f) => [f, readFileSync(join(dir, f), 'utf8')])), go, { release: release.release });

/** Whether the release's e2e binary and agnhost are built and current (without a Go to compare with: built). */
export function e2eBuildCurrent(release: KubeRelease, go: string | null): boolean {
  const dir = e2eBuildDir(release);
  const module = e2eModuleDir(release);
  if (module === null || ![E2E_BINARY, AGNHOST_BINARY].every((name) => existsSync(join(dir, name)))) return false;
  return go === null || stampIsCurrent(join(dir, '.stamp'), stampOf(module, release, go));
}

/** Builds both unless current; the one line saying what failed, or null. */
export async function buildE2e(release: KubeRelease, go: string, say: (line: string) => void, signal?: AbortSignal): Promise<string | null> {
  const dir = e2eBuildDir(release);
  const module = e2eModuleDir(release);
  if (module === null) return `Kubernetes ${release.release}: kube/e2e has no module of ${release.minor} (expected kube/e2e/${release.minor}/go.mod)`;
  if (e2eBuildCurrent(release, go)) {
    say(`conformance: ${dir} is up to date (upstream's e2e binary and agnhost of Kubernetes ${release.release}, ${go})`);
    return null;
  }
  const started = performance.now();
  const base = { tag: 'conformance', cwd: module, env: { ...process.env, CGO_ENABLED: '0' }, started, say, ...(signal ? { signal } : {}) };
  const ldflags = versionLdflags(release.release, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
  say(
    `conformance: building upstream's e2e test binary (network suite) of Kubernetes ${release.release} with ${go} from kube/e2e/${release.minor}; a cold build takes minutes`,
  );
  const e2e = await goBuild({
    ...base,
    verb: 'test',
    flags: ['-trimpath', '-ldflags', ldflags],
    packages: ['.'],
    output: join(dir, E2E_BINARY),
  });
  if ('problem' in e2e) return `e2e binary of Kubernetes ${release.release}: ${e2e.problem}`;
  say(`conformance: building agnhost from ${AGNHOST_PACKAGE}@${release.release}`);
  const agnhost = await goBuild({
    ...base,
    flags: ['-trimpath', '-ldflags', '-s -w'],
    packages: [AGNHOST_PACKAGE],
    output: join(dir, AGNHOST_BINARY),
  });
  if ('problem' in agnhost) return `agnhost of Kubernetes ${release.release}: ${agnhost.problem}`;
  writeStamp(join(dir, '.stamp'), stampOf(module, release, go));
  say(`conformance: ${dir} built in ${elapsedSince(started)} (agnhost: ${compiledText(agnhost.compiled)})`);
  return null;
}
