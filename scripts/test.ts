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
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

function runSuite(suite: Suite, reportFile: string, temp: string): SuiteOutcome {
  const argv = suite.argv(reportFile);
  const env = { ...process.env, TMPDIR: temp, ...(suite.report === 'playwright' ? { PLAYWRIGHT_JSON_OUTPUT_NAME: reportFile } : {}) };
  const run = spawnSync(argv[0]!, argv.slice(1), { cwd: root, stdio: 'inherit', env });
  const ended = run.error ? { error: run.error.message } : run.signal ? { signal: run.signal } : { code: run.status ?? 1 };
  return { ended, report: readReport(suite, reportFile), leftovers: tempLeftovers([], readdirSync(temp)) };
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
