import { test } from 'node:test';
import assert from 'node:assert/strict';
import { curlMaxTimeMs, labTimings, requiredWaits, type TimedStep } from '../../bench/lab-timing.ts';

const curl = (url: string) => ['curl', '--silent', '--show-error', '--max-time', '3', url];
// The steps of a real lab run (content/articles/074-external-traffic-policy/snapshots, run 20261202T114747Z-152be1).
const STEPS: TimedStep[] = [
  { id: 'cluster-via-worker', command: curl('http://172.18.0.2:30278/'), exitCode: 0, startedAt: '2026-12-02T11:47:49.275Z', durationMs: 43.11494300000004 },
  { id: 'cluster-via-worker2', command: curl('http://172.18.0.4:30278/'), exitCode: 0, startedAt: '2026-12-02T11:47:49.326Z', durationMs: 40.0161420000004 },
  {
    id: 'conntrack-worker2',
    command: ['conntrack', '-L', '-p', 'tcp', '--orig-port-dst', '30278'],
    exitCode: 0,
    startedAt: '2026-12-02T11:47:49.375Z',
    durationMs: 20.139501999999993,
  },
  { id: 'local-via-worker', command: curl('http://172.18.0.2:32123/'), exitCode: 0, startedAt: '2026-12-02T11:47:49.401Z', durationMs: 40.195874 },
  { id: 'local-via-worker2', command: curl('http://172.18.0.4:32123/'), exitCode: 28, startedAt: '2026-12-02T11:47:49.445Z', durationMs: 3047.2459259999996 },
  { id: 'iptables-worker2', command: ['iptables-save', '-t', 'filter'], exitCode: 0, startedAt: '2026-12-02T11:47:52.499Z', durationMs: 33.51761799999986 },
  {
    id: 'delete-backend',
    command: ['ip', 'netns', 'del', 'shice-lab-20261202T114747Z-152be1.pod.default.backend'],
    exitCode: 0,
    startedAt: '2026-12-02T11:47:52.691Z',
    durationMs: 25.467877999999473,
  },
  {
    id: 'health-worker-after-delete',
    command: ['curl', '--silent', '--show-error', '--include', '--max-time', '3', 'http://172.18.0.2:31874/'],
    exitCode: 0,
    startedAt: '2026-12-02T11:47:52.942Z',
    durationMs: 45.06346399999984,
  },
];

test("curl's --max-time in every spelling; other commands have none", () => {
  assert.equal(curlMaxTimeMs(curl('http://x/')), 3000);
  assert.equal(curlMaxTimeMs(['curl', '--max-time=2.5', 'http://x/']), 2500);
  assert.equal(curlMaxTimeMs(['/usr/bin/curl', '-m', '4', 'http://x/']), 4000);
  assert.equal(curlMaxTimeMs(['curl', '-m7', 'http://x/']), 7000);
  assert.equal(curlMaxTimeMs(['curl', 'http://x/']), null);
  assert.equal(curlMaxTimeMs(['conntrack', '-L', '--max-time', '3']), null);
  assert.equal(curlMaxTimeMs([]), null);
  assert.throws(() => curlMaxTimeMs(['curl', '--max-time', 'soon', 'http://x/']), /curl --max-time: expected seconds \(e\.g\. 3 or 2\.5\), got "soon"/);
});

test('the floor is the --max-time of each curl that timed out (exit 28), and nothing else', () => {
  assert.deepEqual(requiredWaits(STEPS), [{ step: 'local-via-worker2', ms: 3000 }]);
  // A curl that failed otherwise (7: refused) did not wait for its timeout.
  assert.deepEqual(requiredWaits([{ ...STEPS[4]!, exitCode: 7 }]), []);
});

test('wall time split into setup, steps and teardown', () => {
  const startMs = Date.parse('2026-12-02T11:47:46.900Z');
  const endMs = Date.parse('2026-12-02T11:47:53.600Z');
  const t = labTimings({ startMs, endMs }, STEPS);
  assert.equal(t.wallMs, 6700);
  assert.equal(t.floorMs, 3000);
  assert.equal(t.setupMs, Date.parse('2026-12-02T11:47:49.275Z') - startMs);
  assert.ok(Math.abs(t.teardownMs - (endMs - (Date.parse('2026-12-02T11:47:52.942Z') + 45.06346399999984))) < 1e-6);
  assert.ok(Math.abs(t.stepsMs - STEPS.reduce((s, x) => s + x.durationMs, 0)) < 1e-9);
  assert.ok(Math.abs(t.setupMs + t.stepsMs + t.betweenStepsMs + t.teardownMs - t.wallMs) < 1e-6);
});

test('timings refuse what cannot be: no steps, steps outside the process, a bad time', () => {
  assert.throws(() => labTimings({ startMs: 0, endMs: 1 }, []), /recorded no steps/);
  assert.throws(() => labTimings({ startMs: 5, endMs: 1 }, STEPS), /ended \(1\) before it started \(5\)/);
  const late = Date.parse('2026-12-02T11:47:50.000Z');
  assert.throws(() => labTimings({ startMs: late, endMs: late + 10_000 }, STEPS), /lie outside the process's run/);
  assert.throws(
    () => labTimings({ startMs: 0, endMs: 1 }, [{ ...STEPS[0]!, startedAt: 'yesterday' }]),
    /step "cluster-via-worker" startedAt: expected an ISO 8601 time, got "yesterday"/,
  );
});

/** The phases tests/fixtures/capture/lab-progress.txt printed (a real lab capture of 074, iptables, v1.37, 2026-12-06). */
const PHASES_OF_FIXTURE = { network: 231, controlPlane: 3035, nodes: 1924, up: 5197, down: 1224 };

test("the lab's bring-up phases are read back from a real capture's progress lines", async () => {
  const { readPhases, phaseLine } = await import('../../src/capture/lab/phases.ts');
  const { readFileSync } = await import('node:fs');
  const output = readFileSync(new URL('../fixtures/capture/lab-progress.txt', import.meta.url), 'utf8');
  assert.deepEqual(readPhases(output), PHASES_OF_FIXTURE);
  // The driver prints what the bench reads: one format in one place.
  assert.ok(output.includes(`· ${phaseLine('controlPlane', 3035)}\n`));
  assert.deepEqual(readPhases('capture 074 ... with --driver kind\n'), {}, 'a capture without the lab has no phases');
});

test("the platform's part of a lab run: from the lab's up line to the line that opens the steps, by the times the lines arrived", async () => {
  const { platformPartMs } = await import('../../bench/lab-timing.ts');
  const { readFileSync } = await import('node:fs');
  const lines = readFileSync(new URL('../fixtures/capture/lab-progress.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean);
  // The real lines, arriving 10 ms apart: the part is the distance between the two.
  const arrived = lines.map((text, i) => ({ atMs: i * 10, text }));
  const up = lines.findIndex((l) => /^· lab: up in \d+ ms$/.test(l));
  const steps = lines.findIndex((l) => /^· running the experiment's \d+ steps$/.test(l));
  assert.ok(up > 0 && steps > up, 'the fixture has both lines, in that order');
  assert.equal(platformPartMs(arrived), (steps - up) * 10);
  assert.equal(platformPartMs(arrived.filter((_, i) => i !== steps)), null, 'no line opening the steps: not measured');
  assert.equal(platformPartMs(arrived.filter((_, i) => i !== up)), null, 'no lab up line (another driver): not measured');
});
