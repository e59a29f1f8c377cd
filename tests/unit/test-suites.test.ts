// What npm test decides about a suite, on real reports (tests/fixtures/samples/test-reports,
// see its README): counts and skip reasons, the opt-out rules, leftovers and the verdict.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  judgeSuite,
  MUST_RUN_ON_CI,
  optedOutSuites,
  playwrightReport,
  selectSuites,
  suiteList,
  tapReport,
  tempLeftovers,
  type Report,
} from '../support/suites.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const sample = (name: string) => readFileSync(new URL(`../fixtures/samples/test-reports/${name}`, import.meta.url), 'utf8');
const suites = suiteList(root, '/usr/bin/node');
const words = suites.map((s) => s.word);

test("node:test's TAP: the closing counts (nested tests included) and each skip reason once, `\\#` unescaped", () => {
  assert.deepEqual(tapReport(sample('node-test-mixed.tap')), {
    counts: { passed: 2, failed: 1, skipped: 7 },
    skipReasons: [
      'lab prerequisites missing: not root',
      '(no reason given)',
      'needs: a # sign',
      'skipped at run time',
      'kind prerequisites missing: no docker',
    ],
  });
  assert.deepEqual(tapReport(sample('node-test-all-skipped.tap')), {
    counts: { passed: 0, failed: 0, skipped: 2 },
    skipReasons: ['kind prerequisites missing: no docker'],
  });
  assert.deepEqual(tapReport(sample('node-test-none.tap')), { counts: { passed: 0, failed: 0, skipped: 0 }, skipReasons: [] });
});

test('TAP cut before its closing counts (the run was killed) is no report', () => {
  const tap = sample('node-test-mixed.tap');
  assert.equal(tapReport(tap.slice(0, tap.indexOf('# tests'))), null);
  assert.equal(tapReport(''), null);
});

test("Playwright's JSON report: passed, failed, skipped from its stats, the skip reasons from the skipped tests' annotations", () => {
  assert.deepEqual(playwrightReport(sample('playwright.json')), {
    counts: { passed: 1, failed: 1, skipped: 2 },
    skipReasons: ['no chromium here', '(no reason given)'],
  });
  assert.equal(playwrightReport('{"stats": {}}'), null);
  assert.equal(playwrightReport('not json'), null);
});

const done = (report: Report | null | undefined, code = 0, leftovers: string[] = []) => judgeSuite({ ended: { code }, report, leftovers });

test('the verdict: a suite passes only when it exited 0, every test ran and nothing was left', () => {
  assert.deepEqual(done(tapReport(sample('node-test-none.tap').replace('# pass 0', '# pass 3'))), { ok: true, detail: '3 passed, 0 failed, 0 skipped' });
  assert.deepEqual(done(undefined), { ok: true, detail: '' }, 'a command without a report: its exit code');
  assert.deepEqual(done(undefined, 2), { ok: false, detail: 'exit 2' });
  assert.deepEqual(done(tapReport(sample('node-test-mixed.tap')), 1), {
    ok: false,
    detail:
      'exit 1; incomplete: 7 of 10 tests skipped; 2 passed, 1 failed, 7 skipped; skipped because: lab prerequisites missing: not root; (no reason given); needs: a # sign; skipped at run time; kind prerequisites missing: no docker',
  });
  assert.deepEqual(
    done(tapReport(sample('node-test-all-skipped.tap'))),
    {
      ok: false,
      detail: 'did not run: every test skipped; 0 passed, 0 failed, 2 skipped; skipped because: kind prerequisites missing: no docker',
    },
    'exit 0 with every test skipped is a suite that did not run',
  );
  assert.deepEqual(done(tapReport(sample('node-test-none.tap'))), { ok: false, detail: 'did not run: no test ran; 0 passed, 0 failed, 0 skipped' });
  assert.deepEqual(done(null), { ok: false, detail: 'did not run: it wrote no test report' });
  assert.deepEqual(judgeSuite({ ended: { signal: 'SIGKILL' }, report: null, leftovers: [] }), {
    ok: false,
    detail: 'ended by SIGKILL; did not run: it wrote no test report',
  });
  assert.deepEqual(judgeSuite({ ended: { error: 'spawn x ENOENT' }, report: undefined, leftovers: [] }), {
    ok: false,
    detail: 'could not start: spawn x ENOENT',
  });
  assert.deepEqual(done(playwrightReport(sample('playwright.json')), 1).ok, false);
});

test('what a suite left in the temporary folder: new entries with a test prefix only, and it fails the suite', () => {
  const before = ['apt.log', 'shice-test-abc', 'playwright-transform-cache-0'];
  const after = [...before, 'shice-fake-tools-compile-cache', 'node-compile-cache', 'playwright-artifacts-x1', 'hsperfdata_root', 'shice-lab-test-e074-1a2b3c'];
  const left = tempLeftovers(before, after);
  assert.deepEqual(left, ['playwright-artifacts-x1', 'shice-fake-tools-compile-cache', 'shice-lab-test-e074-1a2b3c']);
  assert.deepEqual(tempLeftovers(before, before), []);
  assert.deepEqual(done(undefined, 0, left), {
    ok: false,
    detail: 'left in the temporary folder: playwright-artifacts-x1, shice-fake-tools-compile-cache, shice-lab-test-e074-1a2b3c',
  });
});

test('SHICE_TEST_OPTOUT: named suites are left out; off CI any, on CI never lab, fault or kind; an unknown word is one line', () => {
  assert.deepEqual(optedOutSuites(undefined, words, false), { optedOut: new Set() });
  assert.deepEqual(optedOutSuites(' kube, lab,fault,kind ', words, false), { optedOut: new Set(['kube', 'lab', 'fault', 'kind']) });
  assert.deepEqual(optedOutSuites('browser', words, true), { optedOut: new Set(['browser']) }, "CI may leave out a suite that is not the lab's");
  assert.deepEqual(optedOutSuites('lab,kind', words, true), {
    problem: 'SHICE_TEST_OPTOUT names lab, kind, but on CI (CI=true) the lab, fault, kind suites must run: remove them from SHICE_TEST_OPTOUT',
  });
  assert.deepEqual(optedOutSuites('fault', words, true), {
    problem: 'SHICE_TEST_OPTOUT names fault, but on CI (CI=true) the lab, fault, kind suites must run: remove it from SHICE_TEST_OPTOUT',
  });
  assert.deepEqual(optedOutSuites('labs', words, false), {
    problem: `SHICE_TEST_OPTOUT: "labs" names no suite; expected a comma-separated list of: ${words.join(', ')}`,
  });
  for (const word of MUST_RUN_ON_CI) assert.ok(words.includes(word), word);
});

test("npm test -- <word>: a suite's word selects it alone, other words match names as before, a word matching nothing is one line", () => {
  const picked = (args: string[]) => {
    const s = selectSuites(suites, args);
    return 'problem' in s ? s.problem : s.suites.map((x) => x.word);
  };
  assert.deepEqual(picked([]), words);
  assert.deepEqual(picked(['lab']), ['lab']);
  assert.deepEqual(picked(['unit', 'types']), ['unit', 'types']);
  assert.deepEqual(picked(['Playwright']), ['browser']);
  assert.deepEqual(picked(['kernel']), ['lab']);
  assert.equal(picked(['nosuch']), `npm test: no suite matches "nosuch"; the suites: ${words.join(', ')}`);
});

test("package.json's test:* scripts each run one suite of the list through scripts/test.ts; kind's one file at a time, the lab's and the fault suite's two", () => {
  const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const perSuite = Object.entries(scripts).filter(([name]) => name.startsWith('test:'));
  const named = perSuite.map(([name, command]) => {
    const word = /^node scripts\/test\.ts (\S+)$/.exec(command)?.[1];
    assert.ok(word && words.includes(word), `${name}: "${command}" runs a suite of scripts/test.ts`);
    return word;
  });
  assert.equal(scripts.test, 'node scripts/test.ts');
  for (const word of ['unit', 'lab', 'fault', 'kind', 'dev', 'browser']) assert.ok(named.includes(word), `a test:* script runs ${word}`);
  for (const word of MUST_RUN_ON_CI) {
    const argv = suites.find((s) => s.word === word)!.argv('/r.tap');
    assert.ok(argv.includes(`--test-concurrency=${word === 'kind' ? 1 : 2}`), `${word}: ${argv.join(' ')}`);
    assert.ok(argv.includes('--test-reporter=tap') && argv.includes('--test-reporter-destination=/r.tap'), 'its TAP goes to the report file');
  }
});

test('two lanes: the suites that change the host (the Kubernetes build the lab needs first, the lab, the faults, kind) one after another in one, every other in the other', () => {
  const lane = (name: 'host' | 'machine') => suites.filter((s) => s.lane === name).map((s) => s.word);
  assert.deepEqual(lane('host'), ['kube', 'lab', 'fault', 'kind']);
  for (const word of MUST_RUN_ON_CI) assert.ok(lane('host').includes(word), `${word} compares the host before and after it: nothing may run beside it there`);
  // The build before what reads it, in the same lane.
  const machine = lane('machine');
  for (const reader of ['built', 'browser']) assert.ok(machine.indexOf('build') < machine.indexOf(reader), `build before ${reader}`);
});
