// npm run conformance's pure parts, on the output of a real run (tests/fixtures/samples/conformance/:
// ginkgo's JSON report and run.yaml of the v1.37.2 run on kind, as recorded): the focus, the
// outcome of each focused test, what may not become a record, the record's format, agnhost's
// name in the release's manifest.go, the cluster and the e2e binary's arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exactly, focusOf, leftOutCovering, testsCovering, UPSTREAM_TESTS, LEFT_OUT_TESTS } from '../../src/conformance/upstream-tests.ts';
import { outcomeOf, parseGinkgoReport, ranSpecsOnly } from '../../src/conformance/report.ts';
import { formatRunRecord, parseRunRecord, readConformanceRecords, runProblems, withoutMachinePaths } from '../../src/conformance/record.ts';
import { agnhostImageName } from '../../src/conformance/agnhost-image.ts';
import { conformanceExperiment, e2eArgs, CONFORMANCE_WORKERS } from '../../src/conformance/session.ts';
import { e2eModuleDir, E2E_MODULE_FILES } from '../../src/conformance/e2e-bin.ts';
import { KUBE_RELEASES } from '../../src/experiment/kubernetes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const samples = join(root, 'tests/fixtures/samples/conformance');
const sample = (name: string) => readFileSync(join(samples, name), 'utf8');
const report = () => parseGinkgoReport(sample('report.json'), 'report.json');

test('the focus matches each test by its whole name after the suite’s, and nothing else', () => {
  const focus = new RegExp(focusOf(UPSTREAM_TESTS));
  for (const t of UPSTREAM_TESTS) assert.ok(focus.test(`Kubernetes e2e suite ${t.name}`), t.name);
  // ginkgo matches the suite's name, a space and the test's: a name alone, or one with more after it, is not matched.
  assert.equal(focus.test(UPSTREAM_TESTS[0]!.name), false);
  assert.equal(focus.test(`Kubernetes e2e suite ${UPSTREAM_TESTS[0]!.name} [Slow]`), false);
  // Brackets, parentheses, colons and dots are the name's own characters.
  assert.equal(new RegExp(exactly('a (b: c) [d].')).test('Kubernetes e2e suite a (b: c) [d].'), true);
  assert.equal(new RegExp(exactly('a (b: c) [d].')).test('Kubernetes e2e suite a (b: c) [d]x'), false);
  for (const t of LEFT_OUT_TESTS) assert.equal(focus.test(`Kubernetes e2e suite ${t.name}`), false, `${t.name} is left out`);
});

test('each article’s evidence page shows the tests that cover it; every test covers one', () => {
  assert.deepEqual(
    testsCovering('076-internal-traffic-policy')
      .map((t) => t.name.replace(/^\[sig-network\] /, ''))
      .slice(0, 3),
    [
      'Services should respect internalTrafficPolicy=Local Pod to Pod',
      'Services should respect internalTrafficPolicy=Local Pod (hostNetwork: true) to Pod',
      'Services should respect internalTrafficPolicy=Local Pod and Node, to Pod (hostNetwork: true)',
    ],
  );
  assert.deepEqual(testsCovering('077-session-affinity'), []);
  assert.equal(leftOutCovering('076-internal-traffic-policy').length, 1);
  for (const t of UPSTREAM_TESTS) assert.ok(t.articles.length > 0, t.name);
});

test('ginkgo’s report of the real run: every focused test ran, with ginkgo’s state and time', () => {
  const outcome = outcomeOf(report(), UPSTREAM_TESTS);
  assert.equal(outcome.suite.willRun, UPSTREAM_TESTS.length);
  assert.deepEqual(outcome.unexpected, []);
  assert.equal(outcome.results.length, UPSTREAM_TESTS.length);
  for (const r of outcome.results) {
    assert.notEqual(r.state, 'not run', r.name);
    assert.match(r.at ?? '', /^test\/e2e\/network\/(service|no_snat)\.go:\d+$/);
    assert.ok(r.seconds !== null && r.seconds > 0, r.name);
  }
  const pod = outcome.results.find((r) => r.name.endsWith('internalTrafficPolicy=Local Pod to Pod'))!;
  assert.equal(pod.at, 'test/e2e/network/service.go:2529');
});

test('a test the report lacks is "not run", a spec nobody focused is named: neither run becomes a record', () => {
  const run = parseRunRecord(sample('run.yaml'), 'run.yaml');
  const missing = { name: '[sig-network] Services should do what no test does', file: 'test/e2e/network/service.go' as const, articles: ['x'] };
  const short = outcomeOf(report(), [missing, ...UPSTREAM_TESTS.slice(1)]);
  assert.equal(short.results[0]!.state, 'not run');
  assert.deepEqual(short.unexpected, [UPSTREAM_TESTS[0]!.name]);
  assert.deepEqual(runProblems(run, short, run.release), [
    `"${missing.name}" is not in ginkgo's report: the focus did not match it`,
    `"${UPSTREAM_TESTS[0]!.name}" ran, though no focused name is its`,
  ]);
  assert.deepEqual(runProblems(run, outcomeOf(report(), UPSTREAM_TESTS), run.release), []);
  assert.deepEqual(runProblems(run, outcomeOf(report(), UPSTREAM_TESTS), 'v1.36.3'), [`the API server says "${run.cluster.serverVersion}", expected v1.36.3`]);
});

test('a failed test is a result: its state and ginkgo’s message are kept', () => {
  const raw = JSON.parse(sample('report.json')) as Array<{ SpecReports: Array<Record<string, unknown>> }>;
  const spec = raw[0]!.SpecReports.find((s) => s.LeafNodeText === 'should respect internalTrafficPolicy=Local Pod to Pod')!;
  spec.State = 'failed';
  spec.Failure = { Message: 'pod client should have reached the endpoint on its node', Location: { FileName: 'x.go', LineNumber: 1 } };
  const outcome = outcomeOf(parseGinkgoReport(JSON.stringify(raw), 'report.json'), UPSTREAM_TESTS);
  const r = outcome.results.find((x) => x.name.endsWith('Pod to Pod'))!;
  assert.equal(r.state, 'failed');
  assert.equal(r.message, 'pod client should have reached the endpoint on its node');
});

test('the record keeps the specs that ran and no path of the machine', () => {
  const text = sample('report.json');
  const kept = ranSpecsOnly(parseGinkgoReport(text, 'r'), JSON.parse(text) as unknown[]) as Array<{ SpecReports: unknown[] }>;
  assert.equal(kept[0]!.SpecReports.length, (JSON.parse(text) as Array<{ SpecReports: unknown[] }>)[0]!.SpecReports.length);
  assert.equal(
    withoutMachinePaths(
      'kubeconfig /srv/p/.shice/kind/kubeconfig, report /srv/p/.shice/conformance/kind.v1.37-7/report.json, in /srv/p/.shice/conformance/kind.v1.37-7',
      [
        ['/srv/p/.shice/conformance/kind.v1.37-7', '.'],
        ['/srv/p', ''],
      ],
    ),
    'kubeconfig .shice/kind/kubeconfig, report ./report.json, in .',
  );
  assert.doesNotMatch(text + sample('run.yaml'), /\/(root|home|work|tmp)\//);
});

test('run.yaml: written as read; a wrong field is one line naming the file and the field', () => {
  const run = parseRunRecord(sample('run.yaml'), 'run.yaml');
  assert.equal(parseRunRecord(formatRunRecord(run), 'again').runId, run.runId);
  assert.throws(() => parseRunRecord(sample('run.yaml').replace(/^release: .*$/m, 'release: 1.37'), 'content/conformance/kind.v1.37/run.yaml'), {
    message: /^content\/conformance\/kind\.v1\.37\/run\.yaml: field "release": /,
  });
  assert.throws(() => parseGinkgoReport('{"not": "a report"', 'report.json'), {
    message: /^report\.json: expected ginkgo's JSON report, got text that is not JSON/,
  });
  assert.throws(() => parseGinkgoReport('[{"SuiteDescription": 1}]', 'report.json'), {
    message: /^report\.json: field "0\.SuiteDescription": expected ginkgo's JSON report/,
  });
});

test('the committed records read as the build reads them', () => {
  const records = readConformanceRecords(root);
  assert.ok(records.length >= 1);
  for (const r of records) assert.deepEqual(r.outcome.unexpected, []);
});

test('agnhost’s name comes from the release’s manifest.go; one without it is one line', () => {
  const manifest = [
    '\t\tPromoterE2eRegistry:      "registry.k8s.io/e2e-test-images",',
    '\tconfigs[AgnhostPrev] = Config{list.PromoterE2eRegistry, "agnhost", "2.55"}',
    '\tconfigs[Agnhost] = Config{list.PromoterE2eRegistry, "agnhost", "2.66.1"}',
  ].join('\n');
  assert.equal(agnhostImageName(manifest, 'manifest.go'), 'registry.k8s.io/e2e-test-images/agnhost:2.66.1');
  assert.throws(() => agnhostImageName(manifest.replace('configs[Agnhost]', 'configs[Other]'), 'test/utils/image/manifest.go'), {
    message: 'test/utils/image/manifest.go: expected configs[Agnhost] and the PromoterE2eRegistry default, found no agnhost tag',
  });
});

test('the cluster and the binary’s arguments', () => {
  const e = conformanceExperiment(CONFORMANCE_WORKERS);
  assert.deepEqual(
    e.cluster.nodes.map((n) => `${n.name}:${n.role}`),
    ['control-plane:control-plane', 'worker:worker', 'worker2:worker', 'worker3:worker'],
  );
  assert.equal(conformanceExperiment(2).cluster.nodes.length, 3);
  const args = e2eArgs('/k/kubeconfig', UPSTREAM_TESTS.slice(0, 1), '/o/report.json');
  assert.deepEqual(args.slice(0, 2), ['--kubeconfig=/k/kubeconfig', '--provider=skeleton']);
  assert.ok(args.includes(`--ginkgo.focus=${exactly(UPSTREAM_TESTS[0]!.name)}`));
  assert.ok(args.includes('--ginkgo.json-report=/o/report.json'));
});

test('every release the articles declare has a module of kube/e2e, at that release and its staging modules’', () => {
  for (const release of KUBE_RELEASES) {
    const dir = e2eModuleDir(release);
    assert.ok(dir, `kube/e2e/${release.minor}`);
    const mod = readFileSync(join(dir, 'go.mod'), 'utf8');
    assert.match(
      mod,
      new RegExp(`^\\s*k8s\\.io/kubernetes ${release.release.replaceAll('.', '\\.')}$`, 'm'),
      `${release.minor}/go.mod requires k8s.io/kubernetes ${release.release}`,
    );
    const staging = release.release.replace(/^v1\./, 'v0.');
    const replaced = [...mod.matchAll(/^\s*(k8s\.io\/[\w-]+) => \1 (v\S+)$/gm)];
    assert.ok(replaced.length > 20, `${release.minor}/go.mod replaces the staging modules`);
    for (const [, name, version] of replaced) assert.equal(version, staging, `${release.minor}/go.mod: ${name}`);
    for (const file of E2E_MODULE_FILES) assert.ok(existsSync(join(dir, file)), `kube/e2e/${release.minor}/${file}`);
  }
});
