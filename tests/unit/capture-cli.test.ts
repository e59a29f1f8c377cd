import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nearestSlugs, parseCaptureArgs, selectSlugs, UsageError } from '../../src/capture/session/cli-args.ts';
import { makeRunId } from '../../src/capture/recovery/run-id.ts';
import { topologyView } from '../../src/capture/session/topology-view.ts';
import { symbolicTopologyView } from '../../src/experiment/symbolic-view.ts';
import { formatStepDone, formatSummary } from '../../src/capture/session/progress.ts';
import { sampleTopology } from '../fixtures/capture/scripted-driver.ts';

test('defaults: every article, the kind driver, into the article folder', () => {
  const args = parseCaptureArgs([]);
  assert.deepEqual(args.slugs, []);
  assert.equal(args.driver, 'kind');
  assert.equal(args.out, null);
  assert.equal(args.dryRun, false);
});

test('slugs, driver and flags are read', () => {
  const args = parseCaptureArgs(['074-external-traffic-policy', '--driver', 'lab', '--out', '/tmp/x', '--keep', '--dry-run']);
  assert.deepEqual(args.slugs, ['074-external-traffic-policy']);
  assert.equal(args.driver, 'lab');
  assert.equal(args.out, '/tmp/x');
  assert.ok(args.keep && args.dryRun);
  assert.deepEqual(args.driverFlags, {});
  assert.deepEqual(parseCaptureArgs(['--driver', 'lab', '--kube-bin', '/opt/kubernetes/server/bin']).driverFlags, { 'kube-bin': '/opt/kubernetes/server/bin' });
  assert.deepEqual(parseCaptureArgs(['--reuse', '--load-images']).driverFlags, { reuse: true, 'load-images': true });
});

test('mistakes are one clear line', () => {
  const cases: [string[], RegExp][] = [
    [['--frobnicate'], /Unknown option '--frobnicate'.*see --help/],
    [['--driver', 'docker'], /--driver must be kind or lab, got "docker"/],
    [['--driver'], /--driver.*argument missing|see --help/],
    [['--driver', 'lab', '--reuse'], /--reuse works with --driver kind only/],
    [['--driver', 'lab', '--image', 'kindest/node:v1.37.0'], /--image works with --driver kind only/],
    [['--out', ''], /--out needs a value/],
    [['--reuse', '--image', 'x'], /--image would not apply/],
    [['--kube-bin', '/opt/k8s'], /--kube-bin works with --driver lab only/],
    [['--driver', 'lab', '--kube-bin', ''], /--kube-bin needs a value/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parseCaptureArgs(argv),
      (e: Error) => e instanceof UsageError && message.test(e.message) && !e.message.includes('\n'),
      argv.join(' '),
    );
  }
});

test('an unknown slug names itself and the known ones', () => {
  assert.throws(() => selectSlugs(['nope'], ['074-external-traffic-policy']), /unknown article "nope"; known: 074-external-traffic-policy/);
  // A series of 75: the line names the five nearest the slug asked, in the series' order, and how many more there are.
  const series = Array.from({ length: 75 }, (_, i) => `${String(i + 1).padStart(3, '0')}-article`);
  assert.throws(
    () => selectSlugs(['047-artcle'], series),
    (e: Error) => e.message === 'unknown article "047-artcle"; known: 040-article, 041-article, 042-article, 043-article, 047-article and 70 more',
  );
  assert.deepEqual(nearestSlugs('076-internal', ['074-a', '075-b', '076-internal-traffic-policy'], 2), ['074-a', '076-internal-traffic-policy']);
  assert.deepEqual(selectSlugs([], ['a', 'b']), ['a', 'b']);
  assert.deepEqual(selectSlugs(['b', 'b'], ['a', 'b']), ['b']);
});

test('run ids sort by time and carry no characters a namespace or path would mind', () => {
  assert.equal(makeRunId(new Date('2026-12-02T11:30:05.123Z'), 'ab12cd'), '20261202T113005Z-ab12cd');
  assert.match(makeRunId(new Date()), /^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
});

test('the topology view answers from the run; the symbolic view answers placeholders', () => {
  const view = topologyView(sampleTopology);
  assert.equal(view.ip('worker2'), '172.18.0.4');
  assert.equal(view.nodePort('s-local'), '32459');
  assert.equal(view.healthCheckNodePort('s-lb'), '31273');
  assert.throws(() => view.healthCheckNodePort('s-local'), /s-local" has no healthCheckNodePort/);
  assert.throws(() => view.ip('worker3'), /node "worker3", but the run has only: control-plane, worker, worker2/);
  assert.equal(symbolicTopologyView.nodePort('s-cluster'), '<s-cluster.nodePort>');
});

test('progress lines say step, node, exit code and time', () => {
  const step = {
    id: 'local-via-worker2',
    kind: 'exec' as const,
    node: 'control-plane',
    title: '',
    command: ['curl'],
    argv: ['curl'],
    exitCode: 28,
    startedAt: '',
    durationMs: 3012,
    stdout: '',
    stderr: '',
  };
  assert.equal(formatStepDone(step, 4, 11), '[ 5/11] local-via-worker2 on control-plane: exit 28 in 3.01 s');
  const summary = formatSummary('074', 'snapshots', [step, { ...step, id: 'x', durationMs: 100, exitCode: 0 }], 4000);
  assert.match(summary, /2 steps captured in 4\.00 s \(steps 3\.11 s, setup and teardown 0\.89 s\)/);
  assert.match(summary, /slowest step: local-via-worker2 \(3\.01 s, exit 28\)/);
});

test('--compare takes a folder and no capture options', () => {
  assert.equal(parseCaptureArgs(['--compare', '/tmp/run']).compare, '/tmp/run');
  assert.throws(() => parseCaptureArgs(['--compare', '/tmp/run', '--keep']), /--compare only compares two runs/);
  assert.throws(() => parseCaptureArgs(['--compare', '']), /--compare needs a value/);
});
