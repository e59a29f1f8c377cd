// What a capture needs built before its first run, and what it cannot have here,
// as one pure function of its plan (every run: article × version × variant, in
// the driver's environment) and of a probe of the machine (the caller's:
// src/capture/command/prepare.ts). What the project builds itself goes to the
// machine's cache: a release's Kubernetes binaries for the lab (what
// `npm run lab:build -- --k8s vX` builds), and for kind what
// `npm run kind:prepare -- --k8s vX` makes (the engine, kind and crictl, the
// release's binaries and its node image). What it cannot build (root, Go or a
// Go too old, Debian packages, a Docker engine it may not start) is one line
// per problem, every one of them, before anything is written.
import type { DriverName } from '../../experiment/drivers.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import type { Experiment } from '../../experiment/types.ts';
import { experimentForVariant } from '../../experiment/variants.ts';
import type { IpvsFacts } from '../machine/host.ts';
import { prepareCommand } from '../kind/prepare.ts';
import { KIND_PREPARE_TOOLS, type PreparedProgram } from '../kind/prepare-tools.ts';
import { buildCommand, kubeBinProblem, type KubeBinChoice, type KubeBuildState, type KubeComponent } from '../machine/kube-bin.ts';
import { LAB_TOOLS, proxyModeProblem } from '../lab/tools.ts';
import { GO_INSTALL_HINT, goFound, goRecentEnough, isDebianLike, MIN_GO, type MachineProbe } from '../machine/machine-probe.ts';

/** One run a capture plans: an article's variant on a release, in the driver's environment. */
export interface RunNeed {
  slug: string;
  variant: string | null;
  release: KubeRelease;
  driver: DriverName;
  /** kube-proxy's mode in this variant: the kernel and the tools must run it. */
  kubeProxyMode: string;
}

/** The Kubernetes binaries the lab would run for a release: the folder it chose, what that folder lacks, and the project's build's state. */
export interface KubeBinReading {
  choice: KubeBinChoice;
  missing: KubeComponent[];
  /** The state of the project's build (choice.from 'built'); a folder of the user's is never built. */
  build: KubeBuildState;
}

/** What the kind driver would find here. */
export interface KindReading {
  /** A Docker engine answers (shice's own, or the host's). */
  engine: boolean;
  /** A container registry answers: kind's official node images serve. */
  registry: boolean;
  /** Of kind and kubectl, those the driver would not find for the release (kind:prepare's tools and the release's build first on PATH). */
  missingTools: (release: KubeRelease) => string[];
  /** kind:prepare's node image of the release, and the backends built with it, are in the engine. */
  nodeImage: (release: KubeRelease) => boolean;
}

/** The machine as a capture needs to know it. */
export interface CaptureProbe extends MachineProbe {
  kubeBin: (release: KubeRelease) => KubeBinReading;
  ipvs: IpvsFacts;
  /** Read only when a run uses kind. */
  kind: KindReading | null;
}

export interface CaptureChoices {
  /** --variant named the variants: one this machine cannot run is a problem, not left out. */
  variantsNamed: boolean;
  /** kind's --image names the node image: none is built. */
  imageGiven: boolean;
}

/** What the capture builds before its first run, in order. */
export interface BuildStep {
  what: 'lab:build' | 'kind:prepare';
  release: KubeRelease;
}

export interface Preparation {
  build: BuildStep[];
  /** One line per thing the capture cannot build or do here; any one stops it before anything is written. */
  problems: string[];
}

/** Every run of the plans: each article's version with each of its variants, under the driver. */
export function runNeeds(
  plans: ReadonlyArray<{ slug: string; experiment: Experiment; variants: ReadonlyArray<string | null>; release: KubeRelease }>,
  driver: DriverName,
): RunNeed[] {
  return plans.flatMap((plan) =>
    plan.variants.map((variant) => ({
      slug: plan.slug,
      variant,
      release: plan.release,
      driver,
      kubeProxyMode: experimentForVariant(plan.experiment, variant).cluster.kubeProxyMode,
    })),
  );
}

/** The command whose code builds the step: the headline's is the bare command. */
export const buildStepCommand = (step: BuildStep): string => (step.what === 'lab:build' ? buildCommand(step.release) : prepareCommand(step.release));

/** What a build step makes, in a line of the capture's progress and of --dry-run. */
export function buildStepText(step: BuildStep): string {
  return step.what === 'lab:build'
    ? `Kubernetes ${step.release.release}'s binaries for the lab (the code of ${buildStepCommand(step)})`
    : `what the kind driver needs for Kubernetes ${step.release.release}: its binaries, kind and crictl, a Docker engine where none answers, and its node image where no registry answers (the code of ${buildStepCommand(step)})`;
}

const unique = <T>(items: readonly T[]): T[] => [...new Set(items)];
const runLabel = (run: RunNeed): string => `${run.slug}${run.variant === null ? '' : ` variant ${run.variant}`} on Kubernetes ${run.release.release}`;

export function planPreparation(runs: readonly RunNeed[], probe: CaptureProbe, choices: CaptureChoices): Preparation {
  const problems: string[] = [];
  const build: BuildStep[] = [];
  /** Debian package -> the programs of it the capture would run, and who runs them. */
  const lacking = new Map<string, Set<string>>();
  const need = (programs: readonly PreparedProgram[]) => {
    for (const p of programs) if (!probe.has(p.program)) lacking.set(p.debianPackage, (lacking.get(p.debianPackage) ?? new Set()).add(p.program));
  };
  const find = (program: string) => (probe.has(program) ? program : null);
  const goOk = goRecentEnough(probe.goVersion);

  const lab = runs.filter((r) => r.driver === 'lab');
  if (lab.length > 0) {
    if (probe.platform !== 'linux') problems.push(`the lab driver needs Linux (network namespaces), this is ${probe.platform}: use --driver kind`);
    else {
      if (!probe.root)
        problems.push('the lab driver needs root (it creates network namespaces and iptables rules in them): run the capture as root, or use --driver kind');
      need(LAB_TOOLS);
      for (const run of lab) {
        const mode = proxyModeProblem(run.kubeProxyMode, () => probe.ipvs, find);
        // A variant this kernel cannot run is left out when none was named (the capture says so), and fails it when named.
        if (mode === null || (mode.unsupported && !choices.variantsNamed)) continue;
        if (run.kubeProxyMode === 'nftables' && !mode.unsupported) need([{ program: 'nft', debianPackage: 'nftables' }]);
        else problems.push(`${runLabel(run)}: ${mode.problem}`);
      }
    }
    for (const release of unique(lab.map((r) => r.release))) {
      const bin = probe.kubeBin(release);
      if (bin.choice.from !== 'built') {
        const problem = kubeBinProblem(bin.choice, bin.missing);
        if (problem !== null) problems.push(problem);
      } else if (bin.build === 'missing' || (bin.build === 'stale' && goOk)) build.push({ what: 'lab:build', release });
      // A stale build without a Go to rebuild it with is run as it is: its release is checked against the API server's.
    }
  }

  const kind = probe.kind;
  const kindRuns = runs.filter((r) => r.driver === 'kind');
  if (kindRuns.length > 0 && kind !== null) {
    for (const release of unique(kindRuns.map((r) => r.release))) {
      const image = choices.imageGiven || kind.registry || kind.nodeImage(release);
      if (!kind.engine || kind.missingTools(release).length > 0 || !image) build.push({ what: 'kind:prepare', release });
    }
    const preparing = build.filter((s) => s.what === 'kind:prepare');
    if (preparing.length > 0 && probe.platform !== 'linux') {
      const releases = preparing.map((s) => s.release.release).join(', ');
      problems.push(
        `the kind driver lacks here what kind:prepare builds on Linux only (this is ${probe.platform}) for Kubernetes ${releases}: start Docker, install kind and kubectl (https://kind.sigs.k8s.io/docs/user/quick-start/#installation), or pass --image`,
      );
    } else if (preparing.length > 0) {
      need(kind.engine ? KIND_PREPARE_TOOLS.engine.filter((p) => p.program === 'docker') : KIND_PREPARE_TOOLS.engine);
      if (!kind.engine && !probe.root)
        problems.push(
          'no Docker engine answers, and kind:prepare starts one of its own only as root: run the capture as root, or start Docker (or point DOCKER_HOST at it)',
        );
      if (!kind.registry && !choices.imageGiven) need(KIND_PREPARE_TOOLS.images);
    }
  }

  if (lacking.size > 0) {
    const packages = [...lacking.keys()].sort();
    const what = packages.map((p) => `${p} (${[...lacking.get(p)!].join(', ')})`).join(', ');
    problems.push(
      isDebianLike(probe.osRelease) && probe.aptGet
        ? `the capture runs programs of Debian packages that are missing: ${what}: ${probe.root ? '' : 'sudo '}apt-get install -y --no-install-recommends ${packages.join(' ')}`
        : `the capture runs programs of Debian packages that are missing, and this is not a Debian or Ubuntu system with apt-get: ${what}; install their equivalents`,
    );
  }
  if (build.length > 0 && !goOk) {
    const ready = unique(runs.map((r) => r.release)).filter((release) => !build.some((s) => s.release === release));
    const what = build.map((s) => `Kubernetes ${s.release.release} (${s.what === 'lab:build' ? 'the lab' : 'kind'})`).join(', ');
    problems.push(
      `the capture would build ${what} from Go modules, which needs Go ${MIN_GO.join('.')} or newer, and ${goFound(probe.goVersion)}: ${GO_INSTALL_HINT}${
        ready.length ? `; or capture only what this machine has built, with --k8s ${ready.map((r) => r.minor).join(',')}` : ''
      }`,
    );
  }
  return { build, problems: unique(problems) };
}
