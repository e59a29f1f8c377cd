// What `npm test` costs, read from its summary: a real one (tests/fixtures/samples/test-reports/npm-test-summary.txt,
// a warm CI=true run on a clean clone on this project's 2-core machine, 19 min 56 s in all).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MORE_ARTICLES_TARGET_S, npmTestFigures, summarySuites, type NpmTestRun } from '../../bench/npm-test-cost.ts';

const summary = readFileSync(new URL('../fixtures/samples/test-reports/npm-test-summary.txt', import.meta.url), 'utf8');

test("npm test's summary: each suite's name, verdict and seconds, in order", () => {
  const suites = summarySuites(`unit | ok   not a summary line (1.0 s)\n\n${summary}`);
  assert.equal(suites.length, 13);
  assert.deepEqual(suites[0], { name: 'format (prettier --check)', ok: true, seconds: 11.9 });
  assert.deepEqual(suites.at(-1), { name: 'browser (Playwright, Chromium)', ok: true, seconds: 242.4 });
  assert.equal(suites.find((s) => s.name.startsWith('kind:'))!.seconds, 417);
  assert.deepEqual(
    summarySuites(summary.replace('ok   kind:', 'FAIL kind:'))
      .filter((s) => !s.ok)
      .map((s) => s.name.split(' ')[0]),
    ['kind:'],
  );
  assert.deepEqual(summarySuites('no summary here'), []);
});

test('20 more articles: the difference of the two warm runs, per suite, against 60 s; a failed run is not measured', () => {
  const asIs: NpmTestRun = { wallSeconds: 1196, cpuSeconds: 1800, exitCode: 0, suites: summarySuites(summary) };
  const more: NpmTestRun = {
    ...asIs,
    wallSeconds: 1296,
    suites: asIs.suites.map((s) => (s.name.startsWith('browser') ? { ...s, seconds: s.seconds + 100 } : s)),
  };
  const [warm, added] = npmTestFigures(asIs, more);
  assert.equal(warm!.value, 1196);
  assert.equal(warm!.meets, false, 'over 12 minutes');
  assert.equal(added!.value, 100);
  assert.equal(added!.meets, 100 <= MORE_ARTICLES_TARGET_S);
  assert.match(added!.note!, /^1196 s -> 1296 s wall, 1800 s CPU -> 1800 s CPU; per suite: browser \+100, format \+0/);
  assert.match(added!.label, /^npm test, 20 more articles/);

  const broken = npmTestFigures(asIs, { ...more, exitCode: 1, suites: summarySuites(summary.replace('ok   kind:', 'FAIL kind:')) });
  assert.equal(broken[1]!.status, 'not measured');
  assert.match(broken[1]!.reason!, /^with 20 more articles: exit 1, failed: kind: a new article/);
  assert.equal(npmTestFigures({ failure: 'no root' }, { failure: 'no root' })[0]!.reason, 'no root');
});
