// `npm test`: every suite of tests/support/suites.ts, in the order that fails
// fastest, each named as it runs, then one summary: per suite its passed,
// failed and skipped tests and why any skipped. `npm test -- <word>...` runs
// the suites of those words (or whose names contain them); package.json's
// test:* scripts are that. It stops after the first suite that fails (the
// later ones need what it checks: a build for the browser).
//
// A suite fails when it exits non-zero, when any of its tests skipped or none
// ran (a missing prerequisite: the suite did not run), or when it leaves an
// entry of a test in the temporary folder (names starting with shice- and the
// others in TEMP_PREFIXES). Each suite gets a temporary folder of its own
// (TMPDIR, so os.tmpdir() in it and in what it starts), empty before it and
// compared after it: what another checkout's tests make at the same time in
// the machine's temporary folder is never counted as this suite's.
//
// SHICE_TEST_OPTOUT=<word>,<word> leaves suites out on purpose, e.g.
// `SHICE_TEST_OPTOUT=kube,lab,fault,kind npm test` without root; the summary
// says "skipped (opted out by SHICE_TEST_OPTOUT)". On CI (CI=true) the lab,
// fault and kind suites cannot be opted out: npm test fails with one line.
//
// Before the first suite it checks what every suite it will run needs from
// the machine (tests/support/prerequisites.ts): as root on Debian or Ubuntu it
// installs the missing Debian packages itself (apt-get, no service started);
// anywhere else, and for root or Go, it stops with one line for each.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { probeMachine, readOrNull } from './lib/machine-probe.ts';
import { planSetup, POLICY_RC_D } from '../tests/support/prerequisites.ts';
import { isMountPoint, realNetnsDir } from '../src/capture/lab/netns-mount.ts';
import { NETNS_RUN_DIR } from '../src/capture/lab/network.ts';
import {
  judgeSuite,
  OPT_OUT_VARIABLE,
  optedOutDetail,
  optedOutSuites,
  playwrightReport,
  selectSuites,
  suiteList,
  tapReport,
  tempLeftovers,
  type Report,
  type Suite,
  type SuiteOutcome,
} from '../tests/support/suites.ts';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const all = suiteList(root, process.execPath);

function fail(line: string): never {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

const selected = selectSuites(all, process.argv.slice(2));
if ('problem' in selected) fail(selected.problem);
const optOut = optedOutSuites(
  process.env[OPT_OUT_VARIABLE],
  all.map((s) => s.word),
  process.env.CI === 'true',
);
if ('problem' in optOut) fail(optOut.problem);

// Playwright's own Chromium serves the browser suite where Debian's is absent (playwright.config.ts).
const machine = () => probeMachine(process.env, (program) => program === '/usr/bin/chromium' && existsSync(chromium.executablePath()));

const POLICY_FILE = '/usr/sbin/policy-rc.d';

/** apt-get install with no service started (policy-rc.d), which is removed again however the install ends. */
function installPackages(packages: string[]): void {
  // One left by an earlier npm test that was killed mid-install: ours by its content, so ours to remove.
  if (readOrNull(POLICY_FILE) === POLICY_RC_D) rmSync(POLICY_FILE);
  const ownPolicy = !existsSync(POLICY_FILE);
  const stop: { signal: NodeJS.Signals | null } = { signal: null };
  const onSignal = (signal: NodeJS.Signals) => {
    stop.signal = signal; // apt-get, in the same process group, gets the signal too; cleaning up follows below.
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  process.stdout.write(`npm test: installing the Debian packages its suites need: ${packages.join(' ')}\n`);
  let failure: string | null = null;
  try {
    if (ownPolicy) writeFileSync(POLICY_FILE, POLICY_RC_D, { mode: 0o755 });
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const argv of [
      ['apt-get', 'update', '-qq'],
      ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages],
    ]) {
      const run = spawnSync(argv[0]!, argv.slice(1), { stdio: 'inherit', env });
      if (stop.signal !== null || run.status !== 0) {
        failure = `${argv.slice(0, 2).join(' ')} ${stop.signal ? `interrupted (${stop.signal})` : `failed (${run.error?.message ?? `exit ${run.status ?? run.signal}`})`}`;
        break;
      }
    }
  } finally {
    if (ownPolicy) rmSync(POLICY_FILE, { force: true });
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  if (failure === null) return;
  process.stderr.write(`npm test: ${failure}; no suite ran. Install them by hand: apt-get install -y --no-install-recommends ${packages.join(' ')}\n`);
  process.exit(stop.signal === 'SIGINT' ? 130 : stop.signal === 'SIGTERM' ? 143 : 1);
}

const toRun = selected.suites.filter((s) => !optOut.optedOut.has(s.word)).map((s) => s.word);
const setup = planSetup(toRun, machine());
if (setup.problems.length > 0) fail(setup.problems.join('\n'));
if (setup.install.length > 0) {
  installPackages(setup.install);
  const after = planSetup(toRun, machine());
  if (after.problems.length > 0 || after.install.length > 0)
    fail(`npm test: still missing after apt-get: ${after.install.join(' ') || after.problems.join('; ')}`);
}

const reportDir = mkdtempSync(join(tmpdir(), 'shice-test-'));

function readReport(suite: Suite, file: string): Report | null | undefined {
  if (suite.report === null) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null; // No report written: the suite did not get as far as reporting.
  }
  return suite.report === 'tap' ? tapReport(text) : playwrightReport(text);
}

/** Whether the named network namespaces' folder is a mount point now. */
const netnsMounted = () => isMountPoint(realNetnsDir(), readFileSync('/proc/self/mountinfo', 'utf8'));

function runSuite(suite: Suite, reportFile: string, temp: string): SuiteOutcome {
  const argv = suite.argv(reportFile);
  const env = { ...process.env, TMPDIR: temp, ...(suite.report === 'playwright' ? { PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile } : {}) };
  const mountedBefore = netnsMounted();
  const run = spawnSync(argv[0]!, argv.slice(1), { cwd: root, stdio: 'inherit', env });
  const ended = run.error ? { error: run.error.message } : run.signal ? { signal: run.signal } : { code: run.status ?? 1 };
  // The mount `ip netns add` makes is the host's one change a lab could leave: there after the suite, not before, it is the suite's.
  const hostLeftovers = !mountedBefore && netnsMounted() ? [`a mount at ${NETNS_RUN_DIR}`] : [];
  return { ended, report: readReport(suite, reportFile), leftovers: tempLeftovers([], readdirSync(temp)), hostLeftovers };
}

const lines: { ok: boolean; line: string }[] = [];
for (const suite of selected.suites) {
  if (optOut.optedOut.has(suite.word)) {
    lines.push({ ok: true, line: `SKIP ${suite.name}: ${optedOutDetail}` });
    continue;
  }
  process.stdout.write(`\n=== ${suite.name}: ${suite.shown.join(' ')}\n`);
  const started = performance.now();
  const temp = join(reportDir, `${suite.word}.tmp`);
  mkdirSync(temp);
  const verdict = judgeSuite(runSuite(suite, join(reportDir, `${suite.word}.report`), temp));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  lines.push({ ok: verdict.ok, line: `${verdict.ok ? 'ok  ' : 'FAIL'} ${suite.name} (${seconds} s)${verdict.detail ? `: ${verdict.detail}` : ''}` });
  if (!verdict.ok) {
    process.stdout.write(`=== ${suite.name} failed: ${verdict.detail}\n`);
    break;
  }
}

rmSync(reportDir, { recursive: true, force: true });
process.stdout.write('\n=== summary\n');
for (const { line } of lines) process.stdout.write(`${line}\n`);
const failed = lines.filter((l) => !l.ok).length;
const skipped = lines.filter((l) => l.line.startsWith('SKIP')).length;
const notReached = selected.suites.length - lines.length;
process.stdout.write(
  `suites: ${lines.length - failed - skipped} passed, ${skipped} opted out, ${failed} failed${notReached ? `, ${notReached} not run after the failure` : ''}\n`,
);
process.exit(failed ? 1 : 0);
