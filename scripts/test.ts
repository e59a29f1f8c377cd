// `npm test`: every suite of tests/support/suites.ts in two lanes side by side,
// the host's (root: the lab, the faults, kind) and the machine's (the checks,
// the unit tests, the build and the browser), each lane's suites one after
// another in the order that fails fastest; every line a suite prints carries
// its word. Then one summary: per suite its passed, failed and skipped tests
// and why any skipped. `npm test -- <word>...` runs the suites of those words
// (or whose names contain them); package.json's test:* scripts are that. Once
// a suite fails no further suite starts (the later ones need what it checks: a
// build for the browser); the one running in the other lane finishes.
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
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { probeMachine, readOrNull } from '../src/capture/machine/probe-machine.ts';
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
const optedOut = optOut.optedOut;

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

/** Every line a suite prints, prefixed with its word so that two lanes' output stays apart; the last ones kept for a failure. */
function prefixedOutput(suite: Suite, width: number): { write: (chunk: string, stream: 'stdout' | 'stderr') => void; flush: () => void; tail: () => string[] } {
  const pending = { stdout: '', stderr: '' };
  const kept: string[] = [];
  const emit = (line: string) => {
    process.stdout.write(`${suite.word.padEnd(width)} | ${line}\n`);
    kept.push(line);
    if (kept.length > TAIL_LINES) kept.shift();
  };
  return {
    write(chunk, stream) {
      const parts = (pending[stream] + chunk).split('\n');
      pending[stream] = parts.pop()!;
      for (const line of parts) emit(line.replace(/\r$/, ''));
    },
    flush() {
      for (const stream of ['stdout', 'stderr'] as const) if (pending[stream] !== '') emit(pending[stream]);
      pending.stdout = pending.stderr = '';
    },
    tail: () => [...kept],
  };
}

/** The last lines of a failed suite, printed again under the summary: two lanes' output interleaves. */
const TAIL_LINES = 40;

async function runSuite(suite: Suite, reportFile: string, temp: string, width: number): Promise<{ outcome: SuiteOutcome; tail: string[] }> {
  const argv = suite.argv(reportFile);
  const env = { ...process.env, TMPDIR: temp, ...(suite.report === 'playwright' ? { PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile } : {}) };
  const mountedBefore = netnsMounted();
  const output = prefixedOutput(suite, width);
  const ended = await new Promise<SuiteOutcome['ended']>((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
    running.add(child);
    child.on('close', () => running.delete(child));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.write(chunk, 'stdout'));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.write(chunk, 'stderr'));
    child.on('error', (error) => resolve({ error: error.message }));
    child.on('close', (code, signal) => resolve(signal ? { signal } : { code: code ?? 1 }));
  });
  output.flush();
  // The mount `ip netns add` makes is the host's one change a lab could leave: there after a host suite, not
  // before, it is that suite's (the machine lane's suites run beside the host lane and never make it).
  const hostLeftovers = suite.lane === 'host' && !mountedBefore && netnsMounted() ? [`a mount at ${NETNS_RUN_DIR}`] : [];
  return { outcome: { ended, report: readReport(suite, reportFile), leftovers: tempLeftovers([], readdirSync(temp)), hostLeftovers }, tail: output.tail() };
}

interface Finished {
  ok: boolean;
  line: string;
  tail: string[];
}

const finished = new Map<string, Finished>();
const state = { failed: false, interrupted: null as NodeJS.Signals | null };
const width = Math.max(...selected.suites.map((s) => s.word.length));
/** The suites running now. */
const running = new Set<ChildProcess>();
// Ctrl-C reaches every suite (one process group) and each cleans up after itself: wait for them, start no other.
// SIGTERM is what a supervisor sends to npm test alone: it is passed on to the running suites, which clean up the same way.
process.on('SIGINT', () => (state.interrupted = 'SIGINT'));
process.on('SIGTERM', () => {
  state.interrupted = 'SIGTERM';
  for (const child of running) child.kill('SIGTERM');
});

/** One lane's suites in order; none starts after a suite of either lane has failed or an interrupt. */
async function runLane(suites: Suite[]): Promise<void> {
  for (const suite of suites) {
    if (state.failed || state.interrupted) return;
    if (optedOut.has(suite.word)) {
      finished.set(suite.word, { ok: true, line: `SKIP ${suite.name}: ${optedOutDetail}`, tail: [] });
      continue;
    }
    process.stdout.write(`=== ${suite.word}: ${suite.name}: ${suite.shown.join(' ')}\n`);
    const started = performance.now();
    const temp = join(reportDir, `${suite.word}.tmp`);
    mkdirSync(temp);
    const { outcome, tail } = await runSuite(suite, join(reportDir, `${suite.word}.report`), temp, width);
    const verdict = judgeSuite(outcome);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    finished.set(suite.word, {
      ok: verdict.ok,
      line: `${verdict.ok ? 'ok  ' : 'FAIL'} ${suite.name} (${seconds} s)${verdict.detail ? `: ${verdict.detail}` : ''}`,
      tail,
    });
    process.stdout.write(`=== ${suite.word}: ${verdict.ok ? 'passed' : `failed: ${verdict.detail}`} (${seconds} s)\n`);
    if (!verdict.ok) state.failed = true;
  }
}

const started = performance.now();
// Two lanes side by side (tests/support/suites.ts, Lane): the host's suites one after another, and beside them the
// machine's. A suite that fails lets the running one of the other lane finish, and no further suite starts.
await Promise.all((['host', 'machine'] as const).map((lane) => runLane(selected.suites.filter((s) => s.lane === lane))));

rmSync(reportDir, { recursive: true, force: true });
const lines = selected.suites.flatMap((s) => finished.get(s.word) ?? []);
for (const failure of lines.filter((l) => !l.ok))
  process.stdout.write(`\n=== the last lines of the failed suite: ${failure.line}\n${failure.tail.join('\n')}\n`);
process.stdout.write(`\n=== summary (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
for (const { line } of lines) process.stdout.write(`${line}\n`);
const failed = lines.filter((l) => !l.ok).length;
const skipped = lines.filter((l) => l.line.startsWith('SKIP')).length;
const notReached = selected.suites.length - lines.length;
process.stdout.write(
  `suites: ${lines.length - failed - skipped} passed, ${skipped} opted out, ${failed} failed${notReached ? `, ${notReached} not run after ${state.interrupted ? `the interrupt (${state.interrupted})` : 'the failure'}` : ''}\n`,
);
process.exit(state.interrupted === 'SIGINT' ? 130 : state.interrupted === 'SIGTERM' ? 143 : failed ? 1 : 0);
