// What a capture builds before its first run and what stops it, from the plan
// of the committed articles' own definitions (their versions and variants, as
// the command line selects them) and a probe of a machine that lacks one thing
// or another (src/capture/session/preparation.ts). Nothing here reads the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { listArticleSlugs } from '../../src/authoring/load.ts';
import { parseCaptureArgs } from '../../src/capture/session/cli-args.ts';
import { chooseKubeBinDir, KUBE_COMPONENTS } from '../../src/capture/machine/kube-bin.ts';
import { planPreparation, runNeeds, type CaptureProbe, type KindReading } from '../../src/capture/session/preparation.ts';
import type { KubeBuildState } from '../../src/capture/machine/kube-bin.ts';
import { HEADLINE_RELEASE, KUBE_RELEASES, type KubeRelease } from '../../src/experiment/kubernetes.ts';
import { loadPlans } from '../../src/capture/command/plans.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const [v137, v136, v135, v134] = KUBE_RELEASES as [KubeRelease, KubeRelease, KubeRelease, KubeRelease];

/** The capture's command line, its plans from the committed article.ts files, and the runs they make. */
async function plan(...argv: string[]) {
  const args = parseCaptureArgs(argv);
  const plans = await loadPlans(root, args.slugs.length ? args.slugs : await listArticleSlugs(root), args);
  const choices = { variantsNamed: args.variants.length > 0, imageGiven: typeof args.driverFlags['image'] === 'string' };
  return { runs: runNeeds(plans, args.driver), choices, args };
}

/** This project's kind of machine (Debian, root, Go 1.26, every package, no IPVS) with the releases `built` in the cache. */
function machine(built: readonly KubeRelease[], over: Partial<CaptureProbe> & { state?: KubeBuildState; kubeBinDir?: string } = {}): CaptureProbe {
  const { state = 'current', kubeBinDir = null, ...rest } = over;
  return {
    platform: 'linux',
    root: true,
    goVersion: 'go1.26.8',
    has: () => true,
    osRelease: 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n',
    aptGet: true,
    kubeBin: (release) => {
      const choice = chooseKubeBinDir(kubeBinDir, {}, release);
      const there = kubeBinDir === null && built.includes(release);
      return { choice, missing: there ? [] : [...KUBE_COMPONENTS], build: there ? state : 'missing' };
    },
    ipvs: { procNetIpVs: false, configLine: '# CONFIG_IP_VS is not set' },
    kind: null,
    ...rest,
  };
}

const lab = (steps: ReturnType<typeof planPreparation>['build']) => steps.map((s) => `${s.what} ${s.release.release}`);

test("a machine set up by the README (the headline built): a lab capture of 075 builds the three older releases' binaries first, and nothing stops it", async () => {
  const { runs, choices } = await plan('075-local-uneven-weights', '--driver', 'lab');
  assert.deepEqual(
    runs.map((r) => r.release.minor),
    ['v1.37', 'v1.36', 'v1.35', 'v1.34'],
    "075 declares four versions and no variant: one run on each (its article.ts's experiment.kubernetes)",
  );
  const prep = planPreparation(runs, machine([HEADLINE_RELEASE]), choices);
  assert.deepEqual(prep.problems, []);
  assert.deepEqual(lab(prep.build), ['lab:build v1.36.3', 'lab:build v1.35.4', 'lab:build v1.34.4']);
  // Every release there: nothing to build.
  assert.deepEqual(planPreparation(runs, machine(KUBE_RELEASES), choices), { build: [], problems: [] });
});

test('--k8s keeps choosing a subset: the headline alone needs nothing on that machine, v1.36 alone its own build', async () => {
  const headline = await plan('075-local-uneven-weights', '--driver', 'lab', '--k8s', 'v1.37');
  assert.deepEqual(planPreparation(headline.runs, machine([v137]), headline.choices), { build: [], problems: [] });
  const older = await plan('075-local-uneven-weights', '--driver', 'lab', '--k8s', 'v1.36');
  assert.deepEqual(lab(planPreparation(older.runs, machine([v137]), older.choices).build), ['lab:build v1.36.3']);
  // Every article (074 with its variants, 075, 076) on two versions: each release once.
  const all = await plan('--driver', 'lab', '--k8s', 'v1.35,v1.34');
  assert.ok(all.runs.length > 4, 'every article, every variant');
  assert.deepEqual(lab(planPreparation(all.runs, machine([v137, v135]), all.choices).build), ['lab:build v1.34.4']);
});

test('no Go, or one too old: one line names every release the capture would build, and the --k8s that needs none', async () => {
  const { runs, choices } = await plan('075-local-uneven-weights', '--driver', 'lab');
  const none = planPreparation(runs, machine([v137], { goVersion: null }), choices);
  assert.equal(none.problems.length, 1);
  assert.equal(
    none.problems[0],
    "the capture would build Kubernetes v1.36.3 (the lab), Kubernetes v1.35.4 (the lab), Kubernetes v1.34.4 (the lab) from Go modules, which needs Go 1.26 or newer, and no go on PATH: install it from https://go.dev/dl/ and put its bin folder on PATH (Debian's golang package is too old); or capture only what this machine has built, with --k8s v1.37",
  );
  const old = planPreparation(runs, machine([v137, v134], { goVersion: 'go1.22.1' }), choices);
  assert.match(
    old.problems[0]!,
    /Kubernetes v1\.36\.3 \(the lab\), Kubernetes v1\.35\.4 \(the lab\) from Go modules, .* and go on PATH is go1\.22\.1: .*with --k8s v1\.37,v1\.34$/,
  );
  // Nothing built at all: no --k8s to suggest.
  assert.doesNotMatch(planPreparation(runs, machine([], { goVersion: null }), choices).problems[0]!, /--k8s/);
  // A build whose stamp is stale is run as it is where there is no Go to rebuild it; with Go it is rebuilt.
  assert.deepEqual(planPreparation(runs, machine(KUBE_RELEASES, { goVersion: null, state: 'stale' }), choices), { build: [], problems: [] });
  assert.equal(planPreparation(runs, machine(KUBE_RELEASES, { state: 'stale' }), choices).build.length, 4);
});

test('not root, no Go and a missing Debian package: every problem, one line each, before any run', async () => {
  const { runs, choices } = await plan('074-external-traffic-policy', '--driver', 'lab');
  const probe = machine([v137], { root: false, goVersion: null, has: (program) => program !== 'conntrack' && program !== 'nft' });
  const { problems } = planPreparation(runs, probe, choices);
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.equal(
    problems[0],
    'the lab driver needs root (it creates network namespaces and iptables rules in them): run the capture as root, or use --driver kind',
  );
  assert.equal(
    problems[1],
    'the capture runs programs of Debian packages that are missing: conntrack (conntrack), nftables (nft): sudo apt-get install -y --no-install-recommends conntrack nftables',
  );
  assert.match(problems[2]!, /^the capture would build Kubernetes v1\.36\.3 \(the lab\), .* no go on PATH/);
  // Not Linux: the lab cannot run at all.
  assert.match(planPreparation(runs, machine(KUBE_RELEASES, { platform: 'darwin' }), choices).problems[0]!, /^the lab driver needs Linux .* this is darwin/);
});

test("074's ipvs variant on a kernel without IPVS: left out when no variant is named (the capture says so), a problem when named", async () => {
  const every = await plan('074-external-traffic-policy', '--driver', 'lab', '--k8s', 'v1.37');
  assert.deepEqual(
    every.runs.map((r) => r.kubeProxyMode),
    ['iptables', 'nftables', 'ipvs'],
  );
  assert.deepEqual(planPreparation(every.runs, machine([v137]), every.choices), { build: [], problems: [] });
  const named = await plan('074-external-traffic-policy', '--driver', 'lab', '--k8s', 'v1.37', '--variant', 'ipvs');
  const { problems } = planPreparation(named.runs, machine([v137]), named.choices);
  assert.equal(problems.length, 1);
  assert.match(
    problems[0]!,
    /^074-external-traffic-policy variant ipvs on Kubernetes v1\.37\.2: the lab cannot run kube-proxy in ipvs mode: this kernel has no IPVS/,
  );
});

test("--kube-bin DIR: the folder is the user's, never built; one that lacks binaries is a problem naming them", async () => {
  const { runs, choices } = await plan('075-local-uneven-weights', '--driver', 'lab', '--k8s', 'v1.36', '--kube-bin', '/opt/k8s');
  const prep = planPreparation(runs, machine([], { kubeBinDir: '/opt/k8s' }), choices);
  assert.deepEqual(prep.build, []);
  assert.equal(
    prep.problems[0],
    `the lab driver needs ${KUBE_COMPONENTS.join(', ')} in /opt/k8s (from --kube-bin): put the official v1.36.3 binaries there, or drop the option and run npm run lab:build -- --k8s v1.36`,
  );
});

/** kind's view: an engine, a registry, the tools, and the releases whose node image kind:prepare built. */
function kind(over: Partial<Omit<KindReading, 'nodeImage'>> & { images?: readonly KubeRelease[] } = {}): KindReading {
  const { images = [], ...rest } = over;
  return { engine: true, registry: false, missingTools: () => [], nodeImage: (release) => images.includes(release), ...rest };
}

test('kind: the node image of each release the cache lacks is prepared first (kind:prepare --k8s), unless a registry answers or --image names one', async () => {
  const { runs, choices } = await plan('076-internal-traffic-policy');
  assert.equal(runs[0]!.driver, 'kind');
  const prep = planPreparation(runs, machine(KUBE_RELEASES, { kind: kind({ images: [v137] }) }), choices);
  assert.deepEqual(prep.problems, []);
  assert.deepEqual(lab(prep.build), ['kind:prepare v1.36.3', 'kind:prepare v1.35.4', 'kind:prepare v1.34.4']);
  assert.deepEqual(planPreparation(runs, machine([], { kind: kind({ registry: true }) }), choices).build, []);
  const image = await plan('076-internal-traffic-policy', '--k8s', 'v1.34', '--image', 'kindest/node:v1.34.4');
  assert.deepEqual(planPreparation(image.runs, machine([], { kind: kind() }), image.choices).build, []);
  // kind or kubectl missing: prepared (kind:prepare builds kind; kubectl comes with the release's binaries).
  assert.deepEqual(lab(planPreparation(image.runs, machine([], { kind: kind({ missingTools: () => ['kind'] }) }), image.choices).build), [
    'kind:prepare v1.34.4',
  ]);
});

test('kind: no engine answers and kind:prepare may not start one (not root), the image builders missing, no Go: every line at once', async () => {
  const { runs, choices } = await plan('075-local-uneven-weights', '--k8s', 'v1.36');
  const probe = machine([], { root: false, goVersion: null, has: (p) => p !== 'debootstrap', kind: kind({ engine: false }) });
  const { build, problems } = planPreparation(runs, probe, choices);
  assert.deepEqual(lab(build), ['kind:prepare v1.36.3']);
  assert.deepEqual(
    problems.map((p) => p.split(':')[0]),
    [
      'no Docker engine answers, and kind',
      'the capture runs programs of Debian packages that are missing',
      'the capture would build Kubernetes v1.36.3 (kind) from Go modules, which needs Go 1.26 or newer, and no go on PATH',
    ],
  );
  assert.match(problems[1]!, /debootstrap \(debootstrap\): sudo apt-get install -y --no-install-recommends debootstrap$/);
  // Not Linux: kind:prepare does not run there; Docker Desktop and kind's own tools do.
  assert.match(
    planPreparation(runs, machine([], { platform: 'darwin', kind: kind({ engine: false }) }), choices).problems[0]!,
    /^the kind driver lacks here what kind:prepare builds on Linux only \(this is darwin\) for Kubernetes v1\.36\.3: start Docker/,
  );
  // An engine that answers, the tools, the release's image: nothing to do, root or not.
  assert.deepEqual(planPreparation(runs, machine([], { root: false, kind: kind({ images: [v136] }) }), choices), { build: [], problems: [] });
});
