// Kubernetes versions: the releases an experiment can be measured on, a
// dimension beside environments and variants. Each minor the project builds is
// one release (the newest patch the Go module proxy served) with the etcd its
// kubeadm names. An experiment declares the minors it is measured on, the
// newest first; the newest is the headline, the run the article's unqualified
// bindings read, and its runs live where runs always lived. Pure: no I/O.

/** One Kubernetes release the project builds (`npm run lab:build -- --k8s <minor>`), from kube/. */
export interface KubeRelease {
  /** What an experiment declares and a folder is named by: "v1.34". */
  minor: string;
  /** The exact release built: k8s.io/kubernetes and its staging modules at this version. */
  release: string;
  /** etcd's server module at the version this release's kubeadm names (cmd/kubeadm/app/constants: DefaultEtcdVersion). */
  etcd: string;
  /** The module file in kube/ that builds it (go build -modfile); go.sum's twin beside it. */
  modfile: string;
}

/** Newest first. The first is the project's headline release: what an experiment that declares none is measured on. */
export const KUBE_RELEASES: readonly KubeRelease[] = [
  { minor: 'v1.37', release: 'v1.37.2', etcd: 'v3.7.0', modfile: 'go.mod' },
  { minor: 'v1.36', release: 'v1.36.3', etcd: 'v3.6.8', modfile: 'v1.36.mod' },
  { minor: 'v1.35', release: 'v1.35.4', etcd: 'v3.6.6', modfile: 'v1.35.mod' },
  { minor: 'v1.34', release: 'v1.34.4', etcd: 'v3.6.5', modfile: 'v1.34.mod' },
];

export const KUBE_MINORS = KUBE_RELEASES.map((r) => r.minor);
export const HEADLINE_RELEASE: KubeRelease = KUBE_RELEASES[0]!;

/** The release of a minor ("v1.34"), or of an exact release ("v1.34.4"); an unknown one is an error listing the known. */
export function kubeRelease(name: string, where = '--k8s'): KubeRelease {
  const found = KUBE_RELEASES.find((r) => r.minor === name || r.release === name);
  if (!found) throw new Error(`${where}: expected one of ${KUBE_MINORS.join(', ')}, got ${JSON.stringify(name)}`);
  return found;
}

/** "v1.34" of "v1.34.4" (or of "v1.34.4-rc.0+abc"); null when it is not a Kubernetes version. */
export function minorOf(version: string): string | null {
  const m = /^v(\d+)\.(\d+)\.\d+/.exec(version.trim());
  return m ? `v${m[1]}.${m[2]}` : null;
}

/** What an experiment declares of its versions: its `kubernetes` field. */
interface Declares {
  kubernetes?: string[];
}

/** The problems of an experiment's version declaration, one line each, naming the file and field. */
export function versionProblems(experiment: Declares, file: string): string[] {
  const declared = experiment.kubernetes;
  if (declared === undefined) return [];
  const field = `${file}: field "experiment.kubernetes"`;
  const problems: string[] = [];
  if (!declared.length) problems.push(`${field}: expected at least one of ${KUBE_MINORS.join(', ')}`);
  for (const minor of declared) {
    if (!KUBE_MINORS.includes(minor)) problems.push(`${field}: expected one of ${KUBE_MINORS.join(', ')}, got ${JSON.stringify(minor)}`);
  }
  if (new Set(declared).size !== declared.length) problems.push(`${field}: a version is listed twice`);
  const known = declared.filter((m) => KUBE_MINORS.includes(m));
  const newestFirst = [...known].sort((a, b) => KUBE_MINORS.indexOf(a) - KUBE_MINORS.indexOf(b));
  if (known.join() !== newestFirst.join()) problems.push(`${field}: expected the newest first (the headline), got ${known.join(', ')}`);
  return problems;
}

/** Every release the experiment is measured on, the headline (newest) first; the project's headline alone when it declares none. */
export function versionsOf(experiment: Declares | null): KubeRelease[] {
  const declared = experiment?.kubernetes;
  return declared?.length ? declared.map((m) => kubeRelease(m, 'experiment.kubernetes')) : [HEADLINE_RELEASE];
}

export function headlineVersion(experiment: Declares | null): KubeRelease {
  return versionsOf(experiment)[0]!;
}

/**
 * The releases a capture runs: every declared one when none is named, else the
 * named ones. A version the experiment does not declare is refused: its run
 * would have no place on the page.
 */
export function selectVersions(experiment: Declares & { slug: string }, requested: readonly string[]): KubeRelease[] {
  const all = versionsOf(experiment);
  if (!requested.length) return all;
  const wanted = requested.map((name) => kubeRelease(name));
  const undeclared = wanted.filter((r) => !all.includes(r));
  if (undeclared.length)
    throw new Error(
      `--k8s ${undeclared.map((r) => r.minor).join(',')}: ${experiment.slug} is measured on ${all.map((r) => r.minor).join(', ')} (article.ts, field "experiment.kubernetes")`,
    );
  return all.filter((r) => wanted.includes(r));
}

/**
 * Where a version's runs live, given the headline's folder (`<article>/snapshots`,
 * or `--out DIR/<slug>`): the headline there, every other beside it as
 * `<folder>.<minor>`; its environments and variants then beside that
 * (`snapshots.v1.34.lab.nftables`).
 */
export function versionFolder(headlineFolder: string, release: KubeRelease, headline: KubeRelease): string {
  return release === headline ? headlineFolder : `${headlineFolder}.${release.minor}`;
}
