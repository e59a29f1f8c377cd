// What a probe of the machine found, and the readings of it that `npm test`
// (tests/support/prerequisites.ts) and the capture (preparation.ts) share: the
// oldest Go the project's modules build with, and whether the system is Debian's
// kind. Pure: the probe itself is the caller's (src/capture/machine/probe-machine.ts).

/** What a probe of the machine found. */
export interface MachineProbe {
  platform: NodeJS.Platform;
  root: boolean;
  /** `go env GOVERSION` (go1.26.8), or null when there is no go. */
  goVersion: string | null;
  /** Whether the program (a name on PATH or an absolute path) is there. */
  has: (program: string) => boolean;
  /** /etc/os-release's text, or null. */
  osRelease: string | null;
  aptGet: boolean;
}

/** The oldest Go the modules build with (kube/go.mod and tools/go.mod say go 1.26). */
export const MIN_GO = [1, 26] as const;

/** go1.26.8 → [1, 26]; null when the text is not a Go release. */
export function goMinor(version: string): [number, number] | null {
  const match = /^go(\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

/** Whether the Go found builds the project's modules (MIN_GO or newer). */
export function goRecentEnough(version: string | null): boolean {
  const minor = version === null ? null : goMinor(version);
  return minor !== null && (minor[0] > MIN_GO[0] || (minor[0] === MIN_GO[0] && minor[1] >= MIN_GO[1]));
}

/** What the probe found of Go, in a sentence's words: "no go on PATH", "go on PATH is go1.22.1". */
export const goFound = (version: string | null): string => (version === null ? 'no go on PATH' : `go on PATH is ${version}`);

/** How to get a Go that builds the modules. */
export const GO_INSTALL_HINT = "install it from https://go.dev/dl/ and put its bin folder on PATH (Debian's golang package is too old)";

/** Whether os-release names Debian or a distribution built on it. */
export function isDebianLike(osRelease: string | null): boolean {
  if (osRelease === null) return false;
  const field = (name: string) => new RegExp(`^${name}=["']?([^"'\\n]*)`, 'm').exec(osRelease)?.[1] ?? '';
  return [field('ID'), ...field('ID_LIKE').split(/\s+/)].some((id) => id === 'debian' || id === 'ubuntu');
}
