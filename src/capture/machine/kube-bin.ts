// Where the lab finds the real Kubernetes binaries, and whether the ones the
// project builds (kube/, a multi-call binary from the official Go modules) are
// up to date. Pure where it can be: the stamp is computed from file contents
// handed in, and lookups take the folder and a file test.
import { createHash } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADLINE_RELEASE, type KubeRelease } from '../../experiment/kubernetes.ts';
import { MACHINE_CACHE } from './machine-cache.ts';

/** The official names, as in the Kubernetes server release and etcd's release. */
export const KUBE_COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'kubectl'] as const;
export type KubeComponent = (typeof KUBE_COMPONENTS)[number];

/** What the multi-call binary holds: the lab's components, and kubelet and kubeadm for the kind node image. */
export const KUBE_BINARY_NAMES = [...KUBE_COMPONENTS, 'kubelet', 'kubeadm'] as const;

/** The project root's kube/ Go module: one main.go, and a module file per release (KubeRelease.modfile). */
export const KUBE_MODULE_DIR = fileURLToPath(new URL('../../../kube', import.meta.url));
/** Where `npm run lab:build` puts a release's binary and its links: the machine's cache, shared by every clone. */
export const builtKubeBinDir = (release: KubeRelease): string => join(MACHINE_CACHE, 'kube', release.release, 'bin');
/** The environment variable that points the lab at a folder of official binaries. */
export const KUBE_BIN_ENV = 'SHICE_KUBE_BIN';

/** The command that builds a release: the headline's is the bare command. */
export const buildCommand = (release: KubeRelease): string =>
  release === HEADLINE_RELEASE ? 'npm run lab:build' : `npm run lab:build -- --k8s ${release.minor}`;

/** go.sum's twin of a module file: go build -modfile=v1.34.mod reads v1.34.sum. */
export const sumFileOf = (modfile: string): string => (modfile === 'go.mod' ? 'go.sum' : modfile.replace(/\.mod$/, '.sum'));

/** The files whose content decides a release's build: what go builds from, and how. */
export const moduleFilesOf = (release: KubeRelease): string[] => [release.modfile, sumFileOf(release.modfile), 'main.go'];

/**
 * The stamp of a build: the module's files, the Go toolchain and the link-time
 * version. Equal stamps mean the binary on disk is what a build would make now.
 */
export function buildStamp(files: Record<string, string>, goVersion: string, release: KubeRelease): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) hash.update(`${name}\0${files[name]}\0`);
  hash.update(`go\0${goVersion}\0k8s\0${release.release}`);
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
  /** The release the run is to measure: the binaries there must report it. */
  release: KubeRelease;
}

export function chooseKubeBinDir(option: string | null, env: NodeJS.ProcessEnv, release: KubeRelease): KubeBinChoice {
  if (option !== null) return { dir: option, from: 'option', release };
  const fromEnv = env[KUBE_BIN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { dir: fromEnv, from: 'environment', release };
  return { dir: builtKubeBinDir(release), from: 'built', release };
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The program as `PATH` finds it (an absolute path as it is), or null. */
export function findProgram(program: string, pathVariable: string | undefined): string | null {
  if (program.startsWith('/')) return isExecutable(program) ? program : null;
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (dir !== '' && isExecutable(join(dir, program))) return join(dir, program);
  }
  return null;
}

/** The components missing from the folder, in the official order. */
/** A release's build of kube/ in the machine cache: absent, built from other inputs, or what a build would make now. */
export type KubeBuildState = 'missing' | 'stale' | 'current';

export function missingComponents(dir: string, executable: (path: string) => boolean = isExecutable): KubeComponent[] {
  return KUBE_COMPONENTS.filter((name) => !executable(join(dir, name)));
}

/** One line naming what is missing and how to get it, or null when every component is there. */
export function kubeBinProblem(choice: KubeBinChoice, missing: KubeComponent[]): string | null {
  if (missing.length === 0) return null;
  const where =
    choice.from === 'built'
      ? `${choice.dir} (built by ${buildCommand(choice.release)})`
      : choice.from === 'environment'
        ? `${choice.dir} (from ${KUBE_BIN_ENV})`
        : `${choice.dir} (from --kube-bin)`;
  const fix =
    choice.from === 'built'
      ? `run ${buildCommand(choice.release)} (needs Go), or point --kube-bin DIR at the official ${choice.release.release} server binaries`
      : `put the official ${choice.release.release} binaries there, or drop the option and run ${buildCommand(choice.release)}`;
  return `the lab driver needs ${missing.join(', ')} in ${where}: ${fix}`;
}
