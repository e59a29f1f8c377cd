// A release's upstream e2e test binary and agnhost, built from kube/e2e (a Go
// module requiring k8s.io/kubernetes at the release, its staging modules
// replaced by their published versions as kube/ does) into the machine cache,
// ~/.cache/shice/e2e/<release>/: what `npm run conformance` and the kind
// suite's upstream test run. A build from the same module files by the same Go
// is current and left as it is.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { e2eBuildDir, E2E_MODULE_DIR, e2eModuleFiles, e2eModfileOf } from '../../src/conformance/e2e-bin.ts';
import { versionLdflags } from '../../src/capture/machine/kube-bin.ts';
import type { KubeRelease } from '../../src/experiment/kubernetes.ts';
import { compiledText, elapsedSince, goBuild, moduleStamp, stampIsCurrent, writeStamp } from './go-build.ts';

export const E2E_BINARY = 'e2e.test';
export const AGNHOST_BINARY = 'agnhost';
const AGNHOST_PACKAGE = 'k8s.io/kubernetes/test/images/agnhost';

const stampOf = (release: KubeRelease, go: string): string =>
  moduleStamp(Object.fromEntries(e2eModuleFiles(release).map((f) => [f, readFileSync(join(E2E_MODULE_DIR, f), 'utf8')])), go, { release: release.release });

/** Whether the release's e2e binary and agnhost are built and current (without a Go to compare with: built). */
export function e2eBuildCurrent(release: KubeRelease, go: string | null): boolean {
  const dir = e2eBuildDir(release);
  if (![E2E_BINARY, AGNHOST_BINARY].every((name) => existsSync(join(dir, name)))) return false;
  return go === null || stampIsCurrent(join(dir, '.stamp'), stampOf(release, go));
}

/** Builds both unless current; the one line saying what failed, or null. */
export async function buildE2e(release: KubeRelease, go: string, say: (line: string) => void, signal?: AbortSignal): Promise<string | null> {
  const dir = e2eBuildDir(release);
  const modfile = e2eModfileOf(release);
  if (modfile === null) return `Kubernetes ${release.release}: kube/e2e has no module file for ${release.minor} (expected ${release.minor}.mod beside go.mod)`;
  if (e2eBuildCurrent(release, go)) {
    say(`conformance: ${dir} is up to date (upstream's e2e binary and agnhost of Kubernetes ${release.release}, ${go})`);
    return null;
  }
  const started = performance.now();
  const base = { tag: 'conformance', cwd: E2E_MODULE_DIR, env: { ...process.env, CGO_ENABLED: '0' }, started, say, ...(signal ? { signal } : {}) };
  const ldflags = versionLdflags(release.release, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
  say(
    `conformance: building upstream's e2e test binary (network suite) of Kubernetes ${release.release} with ${go} from kube/e2e/${modfile}; a cold build takes minutes`,
  );
  const e2e = await goBuild({
    ...base,
    verb: 'test',
    flags: [`-modfile=${modfile}`, '-trimpath', '-ldflags', ldflags],
    packages: ['.'],
    output: join(dir, E2E_BINARY),
  });
  if ('problem' in e2e) return `e2e binary of Kubernetes ${release.release}: ${e2e.problem}`;
  say(`conformance: building agnhost from ${AGNHOST_PACKAGE}@${release.release}`);
  const agnhost = await goBuild({
    ...base,
    flags: [`-modfile=${modfile}`, '-trimpath', '-ldflags', '-s -w'],
    packages: [AGNHOST_PACKAGE],
    output: join(dir, AGNHOST_BINARY),
  });
  if ('problem' in agnhost) return `agnhost of Kubernetes ${release.release}: ${agnhost.problem}`;
  writeStamp(join(dir, '.stamp'), stampOf(release, go));
  say(`conformance: ${dir} built in ${elapsedSince(started)} (agnhost: ${compiledText(agnhost.compiled)})`);
  return null;
}
