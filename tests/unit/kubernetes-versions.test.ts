// Kubernetes versions as a dimension of an experiment: what an article may
// declare, which releases a capture runs, where each version's runs live, and
// that every release's module file in kube/ builds what the table says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  HEADLINE_RELEASE,
  KUBE_RELEASES,
  kubeRelease,
  minorOf,
  selectVersions,
  versionFolder,
  versionProblems,
  versionsOf,
} from '../../src/experiment/kubernetes.ts';
import { builtKubeBinDir, KUBE_MODULE_DIR, sumFileOf } from '../../src/capture/machine/kube-bin.ts';
import { parseCaptureArgs, releasesAsked, UsageError } from '../../src/capture/session/cli-args.ts';

const FILE = 'content/articles/x/article.ts';

test('an experiment declares known minors, each once, the newest first; one line per problem naming the file and field', () => {
  assert.deepEqual(versionProblems({}, FILE), []);
  assert.deepEqual(versionProblems({ kubernetes: ['v1.37', 'v1.34'] }, FILE), []);
  assert.deepEqual(versionProblems({ kubernetes: [] }, FILE), [`${FILE}: field "experiment.kubernetes": expected at least one of v1.37, v1.36, v1.35, v1.34`]);
  assert.deepEqual(versionProblems({ kubernetes: ['v1.37', 'v1.33'] }, FILE), [
    `${FILE}: field "experiment.kubernetes": expected one of v1.37, v1.36, v1.35, v1.34, got "v1.33"`,
  ]);
  assert.deepEqual(versionProblems({ kubernetes: ['v1.35', 'v1.35'] }, FILE), [`${FILE}: field "experiment.kubernetes": a version is listed twice`]);
  assert.deepEqual(versionProblems({ kubernetes: ['v1.34', 'v1.37'] }, FILE), [
    `${FILE}: field "experiment.kubernetes": expected the newest first (the headline), got v1.34, v1.37`,
  ]);
});

test("the headline is the newest declared; an experiment that declares none is measured on the project's headline release", () => {
  assert.deepEqual(versionsOf(null), [HEADLINE_RELEASE]);
  assert.deepEqual(
    versionsOf({ kubernetes: ['v1.36', 'v1.34'] }).map((r) => r.release),
    ['v1.36.3', 'v1.34.4'],
  );
  assert.equal(kubeRelease('v1.35.4'), kubeRelease('v1.35'), 'a minor or its exact release');
  assert.throws(() => kubeRelease('v1.38'), /^Error: --k8s: expected one of v1\.37, v1\.36, v1\.35, v1\.34, got "v1\.38"$/);
  assert.equal(minorOf('v1.34.4'), 'v1.34');
  assert.equal(minorOf('v1.37.0-rc.1+abc'), 'v1.37');
  assert.equal(minorOf('Kubernetes'), null);
});

test('a capture runs every declared release, or the ones --k8s names; an undeclared one is refused naming the field', () => {
  const experiment = { slug: 'x', kubernetes: ['v1.37', 'v1.35', 'v1.34'] };
  assert.deepEqual(
    selectVersions(experiment, []).map((r) => r.minor),
    ['v1.37', 'v1.35', 'v1.34'],
  );
  assert.deepEqual(
    selectVersions(experiment, ['v1.34', 'v1.37']).map((r) => r.minor),
    ['v1.37', 'v1.34'],
  );
  assert.throws(
    () => selectVersions(experiment, ['v1.36']),
    /^Error: --k8s v1\.36: x is measured on v1\.37, v1\.35, v1\.34 \(article\.ts, field "experiment\.kubernetes"\)$/,
  );
  assert.throws(() => selectVersions({ slug: 'y' }, ['v1.34']), /y is measured on v1\.37 /);
});

test("the headline's runs stay where runs always lived; another version's beside them, before environment and variant", () => {
  const older = kubeRelease('v1.34');
  assert.equal(versionFolder('a/snapshots', HEADLINE_RELEASE, HEADLINE_RELEASE), 'a/snapshots');
  assert.equal(versionFolder('a/snapshots', older, HEADLINE_RELEASE), 'a/snapshots.v1.34');
  assert.equal(versionFolder('out/x', older, older), 'out/x', 'an experiment whose headline is v1.34 keeps it in the plain folder');
});

test('--k8s takes minors or releases, comma-separated or repeated, each once; anything else is one usage line', () => {
  assert.deepEqual(parseCaptureArgs([]).versions, []);
  assert.deepEqual(parseCaptureArgs(['x', '--k8s', 'v1.35,v1.34.4', '--k8s', 'v1.35']).versions, ['v1.35', 'v1.34']);
  assert.throws(
    () => parseCaptureArgs(['--k8s', '1.35']),
    (e: Error) => e instanceof UsageError && /^--k8s: expected one of v1\.37, .*got "1\.35"$/.test(e.message),
  );
  assert.throws(() => parseCaptureArgs(['--compare', 'd', '--k8s', 'v1.35']), /--compare only compares two runs/);
});

test("each release's module file in kube/ requires that release, its staging modules at the same version, and the etcd its kubeadm names", () => {
  const releases = new Set<string>();
  for (const release of KUBE_RELEASES) {
    const mod = readFileSync(join(KUBE_MODULE_DIR, release.modfile), 'utf8');
    const staging = `v0.${release.release.slice('v1.'.length)}`;
    assert.match(mod, new RegExp(`^\\tk8s\\.io/kubernetes ${release.release.replaceAll('.', '\\.')}$`, 'm'), release.modfile);
    assert.match(mod, new RegExp(`^\\tgo\\.etcd\\.io/etcd/server/v3 ${release.etcd.replaceAll('.', '\\.')}( // indirect)?$`, 'm'), release.modfile);
    const replaced = [...mod.matchAll(/^\t(k8s\.io\/[a-z-]+) => (k8s\.io\/[a-z-]+) (\S+)$/gm)];
    assert.ok(replaced.length >= 30, `${release.modfile}: the staging modules are replaced`);
    for (const [, from, to, version] of replaced) {
      assert.equal(to, from, `${release.modfile}: ${from} replaced by itself`);
      assert.equal(version, staging, `${release.modfile}: ${from} at the release's staging version`);
    }
    const sum = readFileSync(join(KUBE_MODULE_DIR, sumFileOf(release.modfile)), 'utf8');
    assert.match(sum, new RegExp(`^k8s\\.io/kubernetes ${release.release.replaceAll('.', '\\.')} h1:`, 'm'), sumFileOf(release.modfile));
    releases.add(release.release);
  }
  assert.equal(releases.size, KUBE_RELEASES.length);
  assert.deepEqual(
    KUBE_RELEASES.map((r) => r.minor),
    [...KUBE_RELEASES.map((r) => r.minor)].sort((a, b) => Number(b.split('.')[1]) - Number(a.split('.')[1])),
    'newest first',
  );
});

test("a dry run on an older release plans that release's binaries and no other; an unknown one is refused with one line", () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const plan = (...args: string[]) =>
    spawnSync(process.execPath, [join(root, 'scripts/capture.ts'), '075-local-uneven-weights', '--driver', 'lab', ...args], { encoding: 'utf8' });
  const older = kubeRelease('v1.34');
  const run = plan('--k8s', 'v1.34', '--dry-run');
  assert.equal(run.status, 0, run.stderr);
  // What the capture would build first (the release's binaries, on a machine that lacks them) comes before the plan.
  const lines = run.stdout.split('\n').filter((l) => !l.startsWith('# before the first run, the capture builds '));
  assert.equal(lines[0], '# 075-local-uneven-weights on Kubernetes v1.34.4 with --driver lab: setup');
  const binaries = lines.filter((l) => l.includes('/.cache/') || l.includes(builtKubeBinDir(HEADLINE_RELEASE)));
  assert.ok(binaries.length >= 6, 'etcd, the control plane and kube-proxy on each node');
  for (const line of binaries) assert.ok(line.includes(`${builtKubeBinDir(older)}/`) && !line.includes(builtKubeBinDir(HEADLINE_RELEASE)), line);
  const refused = plan('--k8s', 'v1.33', '--dry-run');
  assert.equal(refused.status, 2);
  assert.equal(refused.stdout, '');
  assert.match(refused.stderr, /^capture: --k8s: expected one of v1\.37, v1\.36, v1\.35, v1\.34, got "v1\.33"\n/);
});

test("lab:build and kind:prepare read --k8s alike: the headline's release when none is named, each named once, or every release with 'all'", () => {
  assert.deepEqual(releasesAsked([]), [HEADLINE_RELEASE]);
  assert.deepEqual(
    releasesAsked(['v1.34,v1.35.4', 'v1.34']).map((r) => r.release),
    ['v1.34.4', 'v1.35.4'],
  );
  assert.deepEqual(releasesAsked(['all']), [...KUBE_RELEASES]);
  assert.throws(
    () => releasesAsked(['v1.2']),
    (e: Error) => e instanceof UsageError && e.message === '--k8s: expected one of v1.37, v1.36, v1.35, v1.34, got "v1.2"',
  );
});
