import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePlaywrightSummary } from '../../bench/playwright-summary.ts';

// The end of a real run of this project's suite (npx playwright test, list reporter).
const PASSING = `[e2e] Chromium: /usr/bin/chromium (system package)

Running 51 tests using 1 worker

  ✓  50 tests/e2e/walkthrough.spec.ts:9:5 › /en/074-external-traffic-policy/ › without JavaScript every stop is shown, each with its manifest object (2.3s)
  ✓  51 tests/e2e/walkthrough.spec.ts:24:5 › /en/074-external-traffic-policy/ › with JavaScript one stop at a time, by button and by arrow key (3.6s)

  1 skipped
  50 passed (4.1m)
`;

// A real run with one failing, one skipped and one passing test.
const FAILING = `    > 3 | test('fails', () => { expect(1).toBe(2); });
        |                                 ^
      4 | test.skip('skipped', () => {});
      5 |
        at /tmp/pwsample/tests/s.spec.mjs:3:33

    Error Context: test-results/s-fails/error-context.md

  1 failed
    tests/s.spec.mjs:3:1 › fails ───────────────────────────────────────────────────────────────────
  1 skipped
  1 passed (1.6s)
`;

// A real run whose web server never started (Astro 7's preview lock, when the suite used astro preview): no summary.
const CONFLICT = `[e2e] Chromium: /usr/bin/chromium (system package)
[WebServer] Another astro preview server is already running.
[WebServer] 
[WebServer]   URL:  http://127.0.0.1:4455
[WebServer]   PID:  6743
[WebServer] 
[WebServer] Run \`astro preview stop\` to stop it, or use \`astro preview --force\` to replace it.
Error: Process from config.webServer was not able to start. Exit code: 1
`;

test('the counts and duration of a passing run', () => {
  assert.deepEqual(parsePlaywrightSummary(PASSING), { passed: 50, failed: 0, flaky: 0, skipped: 1, seconds: 4.1 * 60 });
});

test('a failing run: the failure count, and the source lines of the failure are not counts', () => {
  assert.deepEqual(parsePlaywrightSummary(FAILING), { passed: 1, failed: 1, flaky: 0, skipped: 1, seconds: 1.6 });
});

test('colour codes do not hide the counts; a run with no summary has none', () => {
  assert.equal(parsePlaywrightSummary('\x1b[32m  3 passed\x1b[39m\x1b[2m (812ms)\x1b[22m')?.passed, 3);
  assert.equal(parsePlaywrightSummary(CONFLICT), null);
});
