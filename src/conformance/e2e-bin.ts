// Where upstream's e2e binary and agnhost come from (kube/e2e, a module file
// per release) and where their build lives (the machine cache, beside the
// Kubernetes binaries).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADLINE_RELEASE, type KubeRelease } from '../experiment/kubernetes.ts';
import { MACHINE_CACHE } from '../capture/machine/machine-cache.ts';
import { sumFileOf } from '../capture/machine/kube-bin.ts';

export const E2E_MODULE_DIR = fileURLToPath(new URL('../../kube/e2e', import.meta.url));
export const e2eBuildDir = (release: KubeRelease): string => join(MACHINE_CACHE, 'e2e', release.release);

/** The release's module file in kube/e2e (the headline's is go.mod), or null when there is none yet. */
export function e2eModfileOf(release: KubeRelease): string | null {
  const name = release === HEADLINE_RELEASE ? 'go.mod' : `${release.minor}.mod`;
  return existsSync(join(E2E_MODULE_DIR, name)) ? name : null;
}

/** The files whose content decides the release's build. */
export function e2eModuleFiles(release: KubeRelease): string[] {
  const modfile = e2eModfileOf(release) ?? 'go.mod';
  return [modfile, sumFileOf(modfile), 'e2e_test.go', 'agnhost_tools.go'];
}
