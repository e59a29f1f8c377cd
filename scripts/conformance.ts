// `npm run conformance [-- --k8s V[,V...]|all] [--keep]`: upstream's own Service
// e2e tests (src/conformance/upstream-tests.ts) on a kind cluster of the kind
// driver, per release: upstream's e2e binary and agnhost built from the
// release's module (src/conformance/e2e-build.ts), the run (src/conformance/session.ts),
// and its record swapped into content/conformance/kind.<minor>/ only when
// every focused test ran. A failed upstream test is recorded as failed.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { parseCommandLine, releasesAsked, UsageError } from '../src/capture/session/cli-args.ts';
import { HEADLINE_RELEASE, KUBE_MINORS, type KubeRelease } from '../src/experiment/kubernetes.ts';
import { gitInfo } from '../src/capture/machine/host.ts';
import { MACHINE_CACHE } from '../src/capture/machine/machine-cache.ts';
import { recoverDeadRuns } from '../src/capture/recovery/recover.ts';
import { PROVIDER_LEFTOVERS } from '../src/capture/session/drivers.ts';
import { e2eBuildDir } from '../src/conformance/e2e-bin.ts';
import { AGNHOST_LEFT_OUT } from '../src/conformance/agnhost-image.ts';
import {
  CONFORMANCE_DIR,
  formatRunRecord,
  withoutMachinePaths,
  LOG_FILE,
  recordFolder,
  REPORT_FILE,
  RUN_FILE,
  runProblems,
  type ConformanceRunRecord,
} from '../src/conformance/record.ts';
import { outcomeOf, parseGinkgoReport, ranSpecsOnly } from '../src/conformance/report.ts';
import { CONFORMANCE_CLUSTER, CONFORMANCE_WORKERS, runConformance } from '../src/conformance/session.ts';
import { LEFT_OUT_TESTS, UPSTREAM_TESTS } from '../src/conformance/upstream-tests.ts';
import { AGNHOST_BINARY, buildE2e, E2E_BINARY } from '../src/conformance/e2e-build.ts';
import { goVersion } from '../src/capture/machine/go-build.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const USAGE = `usage: npm run conformance [-- --k8s V[,V...]|all] [--keep]   (V: ${KUBE_MINORS.join(', ')}; default ${HEADLINE_RELEASE.minor})`;

function fail(line: string, code = 1): never {
  process.stderr.write(`conformance: ${line}\n`);
  process.exit(code);
}

function commandLine(argv: string[]): { releases: KubeRelease[]; keep: boolean } {
  try {
    const { values } = parseCommandLine(argv, {
      k8s: { type: 'string', multiple: true },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    return { releases: releasesAsked(values.k8s ?? []), keep: values.keep };
  } catch (error) {
    if (error instanceof UsageError) fail(`${error.message}; ${USAGE}`, 2);
    throw error;
  }
}

// The first signal stops the run, which then removes its cluster; a second quits at once (the next run removes it).
const controller = new AbortController();
let signals = 0;
for (const name of ['SIGINT', 'SIGTERM'] as const)
  process.on(name, () => {
    signals += 1;
    if (signals > 1) process.exit(name === 'SIGINT' ? 130 : 143);
    process.stderr.write(`\nconformance: ${name}: stopping and removing the cluster\n`);
    controller.abort();
  });

const { releases, keep } = commandLine(process.argv.slice(2));
const found = goVersion();
if ('problem' in found) fail(`needs Go (go1.26 or newer) on PATH to build upstream's e2e binary: ${found.problem}`, 2);
const modCache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
const log = (line: string) => process.stderr.write(`${line}\n`);
const ctx = { signal: controller.signal, log };
await recoverDeadRuns((line) => log(`conformance: recovered: ${line}`), { leftovers: PROVIDER_LEFTOVERS, leaveKept: true });

// The tree as the run began: a release's record written into content/ must not make the next one's tree dirty.
const git = await gitInfo(root);
for (const release of releases) {
  const problem = await buildE2e(release, found.version, log, controller.signal);
  if (problem !== null) fail(problem);
  if (controller.signal.aborted) process.exit(130);
  const folder = join(root, CONFORMANCE_DIR, recordFolder(release.minor));
  const staging = join(root, '.shice', 'conformance', `${recordFolder(release.minor)}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const started = performance.now();
  let run;
  try {
    run = await runConformance(
      {
        root,
        release,
        e2eBinary: join(e2eBuildDir(release), E2E_BINARY),
        agnhostBinary: join(e2eBuildDir(release), AGNHOST_BINARY),
        moduleDir: join(modCache, `k8s.io/kubernetes@${release.release}`),
        tests: UPSTREAM_TESTS,
        workers: CONFORMANCE_WORKERS,
        out: staging,
        keep,
      },
      ctx,
    );
  } catch (error) {
    fail(`Kubernetes ${release.release}: ${(error as Error).message}; ${relative(root, folder)} was left as it was`, controller.signal.aborted ? 130 : 1);
  }
  const reportPath = join(staging, REPORT_FILE);
  if (!existsSync(reportPath))
    fail(
      `Kubernetes ${release.release}: the e2e binary exited ${run.exitCode} without a report (its output: ${relative(root, join(staging, LOG_FILE))}); nothing recorded`,
    );
  // Paths of this machine (the staging folder, the project's own, the machine cache kubectl came from) never reach the record.
  const local = (t: string) =>
    withoutMachinePaths(t, [
      [staging, '.'],
      [root, ''],
      [MACHINE_CACHE, '$SHICE_CACHE'],
    ]);
  const rawText = local(readFileSync(reportPath, 'utf8'));
  writeFileSync(join(staging, LOG_FILE), local(readFileSync(join(staging, LOG_FILE), 'utf8')));
  const report = parseGinkgoReport(rawText, relative(root, reportPath));
  const outcome = outcomeOf(report, UPSTREAM_TESTS);
  const record: ConformanceRunRecord = {
    schema: 1,
    environment: 'kind',
    release: release.release,
    runId: run.runId,
    startedAt: run.startedAt,
    git,
    go: found.version,
    e2e: {
      module: `k8s.io/kubernetes@${release.release}`,
      suite: `test/e2e with the network tests only (kube/e2e/${release.minor}: main_test.go, release_test.go)`,
      args: run.args,
      exitCode: run.exitCode,
      seconds: run.seconds,
    },
    agnhost: { ...run.agnhost, leftOut: AGNHOST_LEFT_OUT },
    cluster: { name: CONFORMANCE_CLUSTER, nodes: run.nodes, nodeImage: run.nodeImage, serverVersion: run.serverVersion },
    focused: UPSTREAM_TESTS.map((t) => t.name),
    leftOut: LEFT_OUT_TESTS.map((t) => ({ name: t.name, reason: t.reason })),
  };
  const problems = runProblems(record, outcome, release.release);
  if (problems.length > 0) fail(`Kubernetes ${release.release}: not a record (kept aside in ${relative(root, staging)}): ${problems.join('; ')}`);
  // ginkgo lists every spec of the suite, most skipped by the focus: the record keeps those that ran.
  writeFileSync(reportPath, `${JSON.stringify(ranSpecsOnly(report, JSON.parse(rawText) as unknown[]), null, 1)}\n`);
  writeFileSync(join(staging, RUN_FILE), formatRunRecord(record));
  const aside = `${staging}.old`;
  if (existsSync(folder)) renameSync(folder, aside);
  mkdirSync(join(root, CONFORMANCE_DIR), { recursive: true });
  renameSync(staging, folder);
  rmSync(aside, { recursive: true, force: true });
  for (const r of outcome.results) log(`  ${r.state.padEnd(7)} ${r.seconds ?? '-'} s  ${r.name}`);
  log(
    `conformance: Kubernetes ${release.release}: ${outcome.results.filter((r) => r.state === 'passed').length} of ${outcome.results.length} passed in ${Math.round((performance.now() - started) / 1000)} s (the tests ${run.seconds} s); recorded in ${relative(root, folder)}`,
  );
}
