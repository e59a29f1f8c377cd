// Where upstream's e2e binary and agnhost come from (kube/e2e/<minor>, a Go
// module per release: each release's test main imports that release's
// packages) and where their build lives (the machine cache, beside the
// Kubernetes binaries).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeRelease } from '../experiment/kubernetes.ts';
import { MACHINE_CACHE } from '../capture/machine/machine-cache.ts';

const E2E_MODULES = fileURLToPath(new URL('../../kube/e2e', import.meta.url));
export const e2eBuildDir = (release: KubeRelease): string => join(MACHINE_CACHE, 'e2e', release.release);

/** The release's module folder, or null when kube/e2e has none for it. */
export function e2eModuleDir(release: KubeRelease): string | null {
  const dir = join(E2E_MODULES, release.minor);
  return existsSync(join(dir, 'go.mod')) ? dir : null;
}

/** The files whose content decides the release's build (main_test.go is a link to kube/e2e/_shared/, read through it). */
export const E2E_MODULE_FILES = ['go.mod', 'go.sum', 'main_test.go', 'release_test.go', 'agnhost_tools.go'];
