// What `npm test` needs from the machine before its first suite, as pure
// functions: per suite the programs (and the Debian package that brings each),
// root and Go; then, from what a probe of the machine found, either the
// packages to install (root on Debian or Ubuntu: scripts/test.ts runs apt-get)
// or the lines that say what is missing and how to get it. Nothing here reads
// the machine: the probe is the caller's.
import { LAB_TOOLS } from '../../src/capture/lab/tools.ts';
import { KIND_PREPARE_TOOLS } from '../../src/capture/kind/prepare-tools.ts';
import { GO_INSTALL_HINT, goFound, goRecentEnough, isDebianLike, MIN_GO, type MachineProbe } from '../../src/capture/machine/machine-probe.ts';

// The probe's shape and its readings are the capture's too (src/capture/machine/machine-probe.ts).
export { goMinor, isDebianLike, MIN_GO, type MachineProbe } from '../../src/capture/machine/machine-probe.ts';

/** Something a suite runs, found on PATH or at an absolute path, and the Debian package that brings it. */
export interface Program {
  program: string;
  debianPackage: string;
}

export interface SuiteNeeds {
  programs: Program[];
  /** Network namespaces, iptables, a Docker engine of its own. */
  root: boolean;
  /** Builds from Go modules (the Kubernetes binaries, kind, actionlint). */
  go: boolean;
}

const program = (name: string, debianPackage: string): Program => ({ program: name, debianPackage });
const labTools = LAB_TOOLS.map((t) => program(t.program, t.debianPackage));
const nft = program('nft', 'nftables');
/** The CJK font Chromium lays the Chinese pages out with. A build needs none: the og:image cards' fonts come from npm (src/og/fonts.ts). */
const cjkFont = program('/usr/share/fonts/truetype/wqy/wqy-microhei.ttc', 'fonts-wqy-microhei');

/** What each suite needs besides Node and its npm packages; a suite not named needs nothing more. */
export const SUITE_NEEDS: Record<string, SuiteNeeds> = {
  // actionlint checks the workflows' run: scripts with shellcheck; without it the lint fails.
  workflows: { programs: [program('shellcheck', 'shellcheck')], root: false, go: true },
  // tests/unit/api-get.test.ts makes a CA and certificates with openssl, as the lab's PKI does.
  unit: { programs: [program('openssl', 'openssl')], root: false, go: false },
  kube: { programs: [], root: false, go: true },
  lab: { programs: [...labTools, nft], root: true, go: false },
  fault: { programs: [...labTools, nft], root: true, go: false },
  // kind:prepare's own engine (dockerd, containerd, runc), the node image built by debootstrap without a
  // registry, jq for the runtime wrapper, gcc and libc's headers for the pause binary; the host check reads
  // the root namespace with ip, iptables-save and nft.
  kind: {
    programs: [...KIND_PREPARE_TOOLS.engine, ...KIND_PREPARE_TOOLS.images, program('ip', 'iproute2'), program('iptables-save', 'iptables'), nft],
    root: true,
    go: true,
  },
  // Debian's Chromium (or Playwright's own, checked by the caller), and a CJK font so the Chinese pages lay out as readers see them
  // (its tests build the site too).
  browser: {
    programs: [program('/usr/bin/chromium', 'chromium'), cjkFont],
    root: false,
    go: false,
  },
};

export interface Setup {
  /** Lines naming what is missing and how to get it; npm test stops before any suite when there is one. */
  problems: string[];
  /** Debian packages npm test installs itself (root on Debian or Ubuntu with apt-get). */
  install: string[];
}

const list = (words: string[]) => (words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : (words[0] ?? ''));
/** "the kube suite builds" / "the lab and kind suites build": the suites as a sentence's subject, with its verb. */
const suitesThat = (words: string[], plural: string, singular: string) =>
  words.length > 1 ? `the ${list(words)} suites ${plural}` : `the ${words[0]} suite ${singular}`;

/** The set-up the suites `words` need on the machine `probe` describes. */
export function planSetup(words: readonly string[], probe: MachineProbe): Setup {
  const needing = words.filter((w) => SUITE_NEEDS[w] !== undefined);
  const problems: string[] = [];
  const rootSuites = needing.filter((w) => SUITE_NEEDS[w]!.root);
  if (rootSuites.length > 0 && probe.platform !== 'linux') {
    problems.push(
      `npm test: ${suitesThat(rootSuites, 'run', 'runs')} on Linux only (network namespaces, a Docker engine of their own), this is ${probe.platform}: leave them out with SHICE_TEST_OPTOUT=${rootSuites.join(',')} (not on CI)`,
    );
  } else if (rootSuites.length > 0 && !probe.root) {
    problems.push(
      `npm test: ${suitesThat(rootSuites, 'need', 'needs')} root (network namespaces, iptables, a Docker engine of their own): run npm test as root, or leave them out with SHICE_TEST_OPTOUT=${rootSuites.join(',')} (not on CI)`,
    );
  }
  const goSuites = needing.filter((w) => SUITE_NEEDS[w]!.go);
  if (goSuites.length > 0) {
    if (!goRecentEnough(probe.goVersion)) {
      problems.push(
        `npm test: ${suitesThat(goSuites, 'build from Go modules and need', 'builds from Go modules and needs')} Go ${MIN_GO.join('.')} or newer, ${goFound(probe.goVersion)}: ${GO_INSTALL_HINT}`,
      );
    }
  }
  const missing = [...new Set(needing.flatMap((w) => SUITE_NEEDS[w]!.programs.filter((p) => !probe.has(p.program)).map((p) => p.debianPackage)))].sort();
  if (missing.length === 0) return { problems, install: [] };
  const debian = isDebianLike(probe.osRelease);
  if (debian && probe.root && probe.aptGet) return { problems, install: missing };
  const lacking = needing.filter((w) => SUITE_NEEDS[w]!.programs.some((p) => !probe.has(p.program)));
  const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  problems.push(
    !debian || !probe.aptGet
      ? `npm test: ${suitesThat(lacking, 'need', 'needs')} what these Debian packages bring, and this is not a Debian or Ubuntu system with apt-get: ${missing.join(' ')}; install their equivalents, or leave the suites out with SHICE_TEST_OPTOUT=${lacking.join(',')} (not on CI)`
      : `npm test: ${suitesThat(lacking, 'need', 'needs')} Debian packages that are missing, and installing them needs root: sudo ${command} (as root, npm test installs them itself)`,
  );
  return { problems, install: [] };
}

/** The content of the policy-rc.d npm test puts in place while apt-get runs, so that no package starts its service (nginx-light, docker.io). */
export const POLICY_RC_D = '#!/bin/sh\n# shice npm test: no service starts while it installs packages\nexit 101\n';
