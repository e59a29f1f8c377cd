// What npm test needs from the machine before its first suite: the pure plan on a
// real os-release, and npm test itself stopping with one line, before any suite,
// where Go is missing or it does not run as root.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { goMinor, isDebianLike, planSetup, SUITE_NEEDS, type MachineProbe } from '../support/prerequisites.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const debian = readFileSync(new URL('../fixtures/samples/os-release/debian-12', import.meta.url), 'utf8');
const everySuite = ['format', 'imports', 'workflows', 'unit', 'types', 'kube', 'lab', 'fault', 'kind', 'build', 'built', 'dev', 'hostile', 'browser'];
const allPackages = [...new Set(Object.values(SUITE_NEEDS).flatMap((n) => n.programs.map((p) => p.debianPackage)))].sort();

const machine = (over: Partial<MachineProbe> = {}): MachineProbe => ({
  platform: 'linux',
  root: true,
  goVersion: 'go1.26.8',
  has: () => true,
  osRelease: debian,
  aptGet: true,
  ...over,
});

test('a machine with everything: nothing to install, nothing to say', () => {
  assert.deepEqual(planSetup(everySuite, machine()), { problems: [], install: [] });
});

test('root on Debian with nothing installed: every missing package of every suite, installed in one go, each once', () => {
  const plan = planSetup(everySuite, machine({ has: () => false }));
  assert.deepEqual(plan.problems, []);
  assert.deepEqual(plan.install, allPackages);
  for (const p of [
    'iptables',
    'nftables',
    'conntrack',
    'containernetworking-plugins',
    'nginx-light',
    'docker.io',
    'containerd',
    'runc',
    'debootstrap',
    'shellcheck',
    'chromium',
  ]) {
    assert.ok(plan.install.includes(p), `${p} (missing on the fresh machine of issue 32) is installed`);
  }
});

test('only what the selected suites need: format, types and build nothing (the og:image fonts come from npm), unit openssl, the browser suite Chromium and a CJK font', () => {
  for (const suites of [['format', 'types'], ['build']]) {
    assert.deepEqual(planSetup(suites, machine({ has: () => false })), { problems: [], install: [] }, suites.join(' '));
  }
  // The unit suite's HTTPS client test makes its certificates with openssl.
  for (const suites of [['unit'], ['unit', 'build']]) assert.deepEqual(planSetup(suites, machine({ has: () => false })).install, ['openssl'], suites.join(' '));
  assert.deepEqual(planSetup(['browser'], machine({ has: () => false })).install, ['chromium', 'fonts-wqy-microhei']);
  assert.ok(!SUITE_NEEDS.kind!.programs.some((p) => p.debianPackage === 'fonts-wqy-microhei'), "the kind suite's build needs no font either");
});

test('not root, on Debian: one line with every missing package and the command, one for root; nothing installed', () => {
  const plan = planSetup(everySuite, machine({ root: false, has: (p) => p !== 'shellcheck' && p !== 'nft' }));
  assert.deepEqual(plan.install, []);
  assert.equal(plan.problems.length, 2);
  assert.match(plan.problems[0]!, /^npm test: the lab, fault and kind suites need root .*SHICE_TEST_OPTOUT=lab,fault,kind/);
  assert.match(
    plan.problems[1]!,
    /^npm test: the workflows, lab, fault and kind suites need Debian packages .*sudo apt-get install -y --no-install-recommends nftables shellcheck \(/,
  );
});

test('no apt-get, or not Debian: one line naming the packages whose equivalents to install', () => {
  for (const probe of [machine({ aptGet: false, has: (p) => p !== 'jq' }), machine({ osRelease: null, has: (p) => p !== 'jq' })]) {
    const plan = planSetup(['kind'], probe);
    assert.deepEqual(plan.install, []);
    assert.deepEqual(plan.problems.length, 1);
    assert.match(
      plan.problems[0]!,
      /^npm test: the kind suite needs what these Debian packages bring, and this is not a Debian or Ubuntu system with apt-get: jq; install their equivalents/,
    );
  }
});

test('Go: missing or older than 1.26 is one line naming the suites that build with it', () => {
  for (const goVersion of [null, 'go1.19.8']) {
    const plan = planSetup(everySuite, machine({ goVersion }));
    assert.equal(plan.problems.length, 1);
    assert.match(
      plan.problems[0]!,
      /^npm test: the workflows, kube and kind suites build from Go modules and need Go 1\.26 or newer, (no go on PATH|go on PATH is go1\.19\.8): install it from https:\/\/go\.dev\/dl\//,
    );
  }
  assert.deepEqual(planSetup(['lab', 'browser'], machine({ goVersion: null })).problems, [], 'suites that build nothing need no Go');
  assert.deepEqual(goMinor('go1.27.3'), [1, 27]);
  assert.deepEqual(planSetup(['kube'], machine({ goVersion: 'go2.0' })).problems, []);
});

test("os-release: Debian's own file is Debian-like, an absent one is not", () => {
  assert.equal(isDebianLike(debian), true);
  assert.equal(isDebianLike(null), false);
});

const node = process.execPath;
function npmTest(args: string[], env: NodeJS.ProcessEnv, prefix: string[] = []) {
  const argv = [...prefix, node, join(root, 'scripts/test.ts'), ...args];
  return spawnSync(argv[0]!, argv.slice(1), { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
}

test('npm test without Go on PATH: exit 1 with the one line, before any suite runs', () => {
  // A PATH with node and git but no go.
  const bin = mkdtempSync(join(tmpdir(), 'shice-nogo-'));
  try {
    symlinkSync(node, join(bin, 'node'));
    const run = npmTest(['kube'], { ...process.env, PATH: `${bin}:/usr/sbin:/sbin` });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /^npm test: the kube suite builds from Go modules and needs Go 1\.26 or newer, no go on PATH/);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.doesNotMatch(run.stdout, /===/, 'no suite started');
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test('npm test as a user other than root, for the lab: exit 1 with the one line, before any suite runs', () => {
  // As root, as nobody; as anyone else, as that user.
  const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
  const run = npmTest(['lab'], { ...process.env, HOME: '/nonexistent' }, asUser);
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stderr, /^npm test: the lab suite needs root \(network namespaces/);
  assert.doesNotMatch(run.stdout, /===/, 'no suite started');
});
