// One of upstream's own Service tests, end to end as `npm run conformance` runs
// them: upstream's e2e binary and agnhost built from the release's module (from
// the machine cache when current), agnhost's image, a kind cluster of the kind
// driver, the test, ginkgo's report, and the cluster gone afterwards.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { execa } from 'execa';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';
import { e2eBuildDir } from '../../src/conformance/e2e-bin.ts';
import { REPORT_FILE, runProblems } from '../../src/conformance/record.ts';
import { outcomeOf, parseGinkgoReport } from '../../src/conformance/report.ts';
import { CONFORMANCE_CLUSTER, runConformance } from '../../src/conformance/session.ts';
import { UPSTREAM_TESTS } from '../../src/conformance/upstream-tests.ts';
import { AGNHOST_BINARY, buildE2e, E2E_BINARY } from '../../src/conformance/e2e-build.ts';
import { goVersion } from '../../src/capture/machine/go-build.ts';
import { kindTest, prepareKind, ROOT, stopKindIfStarted, unavailable, type KindHost } from './support.ts';

const work = mkdtempSync(join(tmpdir(), 'shice-conformance-'));
const log = (line: string) => process.stdout.write(`# ${line}\n`);
let host: KindHost | null = null;

before(async () => {
  if (unavailable === null) host = await prepareKind(log);
});

after(async () => {
  rmSync(work, { recursive: true, force: true });
  await stopKindIfStarted(host);
});

kindTest("an upstream Service test runs on the kind driver's cluster and passes, and the cluster is gone after it", async () => {
  const release = HEADLINE_RELEASE;
  const go = goVersion();
  assert.ok('version' in go, `Go is needed to build upstream's e2e binary: ${'problem' in go ? go.problem : ''}`);
  const built = performance.now();
  assert.equal(await buildE2e(release, go.version, log), null);
  log(`upstream's e2e binary and agnhost ready in ${((performance.now() - built) / 1000).toFixed(1)} s`);
  // The shortest of the list: two pods and a Service, on two schedulable nodes.
  const test = UPSTREAM_TESTS.find((t) => t.name.endsWith('should respect internalTrafficPolicy=Local Pod to Pod'))!;
  const modCache = (await execa('go', ['env', 'GOMODCACHE'])).stdout.trim();
  const started = performance.now();
  const run = await runConformance(
    {
      root: ROOT,
      release,
      e2eBinary: join(e2eBuildDir(release), E2E_BINARY),
      agnhostBinary: join(e2eBuildDir(release), AGNHOST_BINARY),
      moduleDir: join(modCache, `k8s.io/kubernetes@${release.release}`),
      tests: [test],
      workers: 2,
      out: work,
      keep: false,
    },
    { signal: new AbortController().signal, log },
  );
  log(`the upstream test's run took ${((performance.now() - started) / 1000).toFixed(1)} s (the e2e binary ${run.seconds} s)`);
  assert.equal(run.exitCode, 0, readFileSync(join(work, 'e2e.log'), 'utf8').slice(-3000));
  assert.equal(run.serverVersion, release.release);
  assert.equal(run.nodes.length, 3);
  const outcome = outcomeOf(parseGinkgoReport(readFileSync(join(work, REPORT_FILE), 'utf8'), REPORT_FILE), [test]);
  assert.deepEqual(
    outcome.results.map((r) => [r.name, r.state]),
    [[test.name, 'passed']],
  );
  assert.equal(outcome.suite.willRun, 1, 'the focus matched exactly the one test');
  const record = { cluster: { serverVersion: run.serverVersion } } as Parameters<typeof runProblems>[0];
  assert.deepEqual(runProblems(record, outcome, release.release), []);
  // The cluster went with the run: no container of it is left.
  const left = await execa('docker', ['ps', '--all', '--filter', `label=io.x-k8s.kind.cluster=${CONFORMANCE_CLUSTER}`, '--format', '{{.Names}}'], {
    env: host!.env,
  });
  assert.equal(left.stdout.trim(), '');
});
