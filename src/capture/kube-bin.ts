// Where the lab finds the real Kubernetes binaries, and whether the ones the
// project builds (kube/, a multi-call binary from the official Go modules) are
// up to date. Pure where it can be: the stamp is computed from file contents
// handed in, and lookups take the folder and a file test.
import { createHash } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MACHINE_CACHE } from './machine-cache.ts';

/** The official names, as in the Kubernetes server release and etcd's release. */
export const KUBE_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'kubectl'] as const;
export type KubeComponent = (typeof KUBE_COMPONENTS)[number];

/** What the multi-call binary holds: the lab's components, and kubelet and kubeadm for the kind node image. */
export const KUBE_BINARY_NAMES = [...KUBE_COMPONENTS, 'kubelet', 'kubeadm'] as const;

/** The Kubernetes release the kube/ module builds; its go.mod requires the same. */
export const KUBERNETES_VERSION = 'v1.37.2';

/** The project root's kube/ Go module. */
export const KUBE_MODULE_DIR = fileURLToPath(new URL('../../kube', import.meta.url));
/** Where `npm run lab:build` puts the binary and its links: the machine's cache, shared by every clone. */
export const BUILT_KUBE_BIN_DIR = join(MACHINE_CACHE, 'kube', 'bin');
/** The environment variable that points the lab at a folder of official binaries. */
export const KUBE_BIN_ENV = 'SHICE_KUBE_BIN';
export const BUILD_COMMAND = 'npm run lab:build';

/** The files whose content decides the build: what go builds from, and how. */
export const KUBE_MODULE_FILES = ['go.mod', 'go.sum', 'main.go'] as const;

/**
 * The stamp of a build: the module's files, the Go toolchain and the link-time
 * version. Equal stamps mean the binary on disk is what a build would make now.
 */
export function buildStamp(files: Record<string, string>, goVersion: string): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) hash.update(`${name}\0${files[name]}\0`);
  hash.update(`go\0${goVersion}\0k8s\0${KUBERNETES_VERSION}`);
  return hash.digest('hex');
}

/**
 * The -ldflags that give the binaries the version upstream's release build
 * gives them (hack/lib/version.sh sets the same variables in both packages).
 * The git commit is left empty: the module proxy does not carry it.
 */
export function versionLdflags(version: string, buildDate: string): string {
  const match = /^v(\d+)\.(\d+)\.\d+$/.exec(version);
  if (match === null) throw new Error(`kube version: expected vMAJOR.MINOR.PATCH, got ${JSON.stringify(version)}`);
  // gitCommit emptied rather than left as upstream's unexpanded "$Format:%H$".
  const vars = { gitVersion: version, gitMajor: match[1]!, gitMinor: match[2]!, gitCommit: '', gitTreeState: 'clean', buildDate };
  const flags = ['-s', '-w'];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    for (const [name, value] of Object.entries(vars)) flags.push(`-X ${pkg}.${name}=${value}`);
  }
  return flags.join(' ');
}

export interface KubeBinChoice {
  dir: string;
  /** How the folder was chosen, for messages. */
  from: 'option' | 'environment' | 'built';
}

export function chooseKubeBinDir(option: string | null, env: NodeJS.ProcessEnv): KubeBinChoice {
  if (option !== null) return { dir: option, from: 'option' };
  const fromEnv = env[KUBE_BIN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { dir: fromEnv, from: 'environment' };
  return { dir: BUILT_KUBE_BIN_DIR, from: 'built' };
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The components missing from the folder, in the official order. */
export function missingComponents(dir: string, executable: (path: string) => boolean = isExecutable): KubeComponent[] {
  return KUBE_COMPONENTS.filter((name) => !executable(join(dir, name)));
}

/** One line naming what is missing and how to get it, or null when every component is there. */
export function kubeBinProblem(choice: KubeBinChoice, missing: KubeComponent[]): string | null {
  if (missing.length === 0) return null;
  const where =
    choice.from === 'built'
      ? `${BUILT_KUBE_BIN_DIR} (built by ${BUILD_COMMAND})`
      : choice.from === 'environment'
        ? `${choice.dir} (from ${KUBE_BIN_ENV})`
        : `${choice.dir} (from --kube-bin)`;
  const fix =
    choice.from === 'built'
      ? `run ${BUILD_COMMAND} (needs Go), or point --kube-bin DIR at the official server binaries`
      : `put the official binaries there, or drop the option and run ${BUILD_COMMAND}`;
  return `the lab driver needs ${missing.join(', ')} in ${where}: ${fix}`;
}
