// A run that went wrong is no measurement, tried for real on this kernel: a
// step that never ends, a component frozen (SIGSTOP) or killed (SIGKILL) by a
// step, and a signal while the control plane starts. Each must end the run in
// bounded time with one line naming what broke, keep the previous snapshots
// byte for byte, and leave nothing of the run behind. The times from the
// breakage to the failure are printed, measured here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { experiment074 as article074 } from '../support/articles.ts';
import type { ExecStep, Experiment } from '../../src/experiment/types.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { labUnavailable } from '../../src/capture/lab/tools.ts';
import { LAB_PREFIX, runFolder } from '../../src/capture/lab/names.ts';
import { listNamespaces } from '../../src/capture/lab/leftovers.ts';
import { labDriver } from '../../src/capture/lab/index.ts';
import { runCapture, type CaptureReporter } from '../../src/capture/session/runner.ts';
import { makeRunId } from '../../src/capture/recovery/run-id.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { treeDigest } from '../support/tree-digest.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const SLUG = '074-external-traffic-policy';
const root = fileURLToPath(new URL('../../', import.meta.url));
const ARTICLE = join(root, 'content/articles', SLUG);
const COMMITTED = join(ARTICLE, 'snapshots');

const missing = labUnavailable();
const skip = missing && process.env.CI !== 'true' ? `fault suite not run: ${missing}` : false;

const base = experimentForVariant(article074, 'iptables');
const firstStep = base.steps.find((s) => s.id === 'cluster-via-worker')!;

/** Every process whose command line names the run's folder or namespaces. */
function runProcesses(runId: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (Number(pid) !== process.pid && (cmdline.includes(runFolder(runId)) || cmdline.includes(`${LAB_PREFIX}${runId}.`)))
      found.push(`${pid} ${cmdline.slice(0, 120)}`);
  }
  return found;
}

async function leftoversOf(runId: string): Promise<string[]> {
  return [
    ...(await listNamespaces()).filter((ns) => ns.startsWith(`${LAB_PREFIX}${runId}.`)).map((ns) => `namespace ${ns}`),
    ...runProcesses(runId).map((p) => `process ${p}`),
    ...(existsSync(runFolder(runId)) ? [`folder ${runFolder(runId)}`] : []),
  ];
}

/** The lab's run of `experiment` as the capture builds it. */
const labRun = (experiment: Experiment, runId: string) =>
  labDriver.create(experiment, { runId, kubernetes: HEADLINE_RELEASE, articleDir: ARTICLE, root, keep: false, flags: {} });

/** Runs the experiment `make` builds for the run's id on a fresh lab into a copy of the committed snapshots; returns what happened and when each step ended. */
async function broken(make: (runId: string) => Experiment) {
  const out = mkdtempSync(join(tmpdir(), 'shice-fault-broken-'));
  const target = join(out, 'snapshots');
  cpSync(COMMITTED, target, { recursive: true });
  const before = treeDigest(target);
  const runId = makeRunId(new Date());
  const experiment = make(runId);
  const driver = labRun(experiment, runId);
  const stepEnded = new Map<string, number>();
  let failedAt = 0;
  const reporter: CaptureReporter = {
    // The teardown starts once the failure is known: that moment, not the end of the teardown, is when the run failed.
    phase: (line) => {
      if (/^taking the lab environment down/.test(line)) failedAt ||= performance.now();
    },
    stepStarted() {},
    stepFinished: (s) => void stepEnded.set(s.id, performance.now()),
  };
  let error: Error | null = null;
  try {
    await runCapture({
      experiment,
      driver,
      articleDir: ARTICLE,
      kubernetes: HEADLINE_RELEASE,
      target,
      runId,
      signal: new AbortController().signal,
      reporter,
      git: { commit: null, dirty: false },
      host: { os: 'linux', arch: process.arch, kernel: 'test' },
    });
  } catch (e) {
    error = e as Error;
  }
  const after = existsSync(target) ? treeDigest(target) : {};
  const left = await leftoversOf(runId);
  const staging = readdirSync(out).filter((n) => n !== 'snapshots');
  rmSync(out, { recursive: true, force: true });
  return { error, failedAt, stepEnded, before, after, left, staging, runId, target };
}

/** A step that runs `command` on `node` once the lab is up. */
const step = (id: string, node: string, command: string[], extra: Partial<ExecStep> = {}): ExecStep => ({
  kind: 'exec',
  id,
  node,
  title: id,
  command: () => command,
  ...extra,
});

test(
  'a step that never ends fails the run at its time limit, with one line naming it; the snapshots stay and nothing is left',
  { skip, timeout: 180_000 },
  async () => {
    assert.equal(missing, null, `prerequisites: ${missing}`);
    const hangs = { ...base, steps: [firstStep, step('never-ends', 'worker', ['sleep', 'infinity'], { timeoutMs: 1500 })] };
    const started = performance.now();
    const r = await broken(() => hangs);
    assert.ok(r.error, 'the run failed');
    assert.match(r.error.message, /^step never-ends on worker did not finish within 1\.5 s \(`sleep infinity`\)/);
    assert.doesNotMatch(r.error.message, /\n/);
    assert.ok(r.failedAt - r.stepEnded.get('cluster-via-worker')! < 10_000, 'bounded by the step limit, not by anything longer');
    assert.deepEqual(r.after, r.before, 'the previous snapshots, byte for byte');
    assert.deepEqual(r.staging, [], 'no staging folder');
    assert.deepEqual(r.left, [], 'nothing of the run is left');
    process.stdout.write(
      `# never-ending step: failed ${((r.failedAt - r.stepEnded.get('cluster-via-worker')!) / 1000).toFixed(2)} s after the step before it ended (limit 1.5 s); whole run ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  },
);

test('a step that declares its time limit a result is stored as timed out, and the run completes', { skip, timeout: 180_000 }, async () => {
  assert.equal(missing, null, `prerequisites: ${missing}`);
  const waits = { ...base, steps: [step('waits-out', 'worker', ['sleep', 'infinity'], { timeoutMs: 800, onTimeout: 'record' }), firstStep] };
  const out = mkdtempSync(join(tmpdir(), 'shice-fault-broken-'));
  const runId = makeRunId(new Date());
  const driver = labRun(waits, runId);
  try {
    const silent: CaptureReporter = { phase() {}, stepStarted() {}, stepFinished() {} };
    await runCapture({
      experiment: waits,
      driver,
      articleDir: ARTICLE,
      kubernetes: HEADLINE_RELEASE,
      target: join(out, 'snapshots'),
      runId,
      signal: new AbortController().signal,
      reporter: silent,
      git: { commit: null, dirty: false },
      host: { os: 'linux', arch: process.arch, kernel: 'test' },
    });
    const stored = loadSnapshots(join(out, 'snapshots')).steps.get('waits-out')!;
    assert.equal(stored.timedOut, true);
    assert.equal(stored.exitCode, 128 + 15, 'ended by SIGTERM, as a shell reports it');
    assert.ok(stored.durationMs >= 800 && stored.durationMs < 5000, `${stored.durationMs} ms`);
    assert.deepEqual(await leftoversOf(runId), []);
  } finally {
    await driver.provider.down({ log: () => {} });
    rmSync(out, { recursive: true, force: true });
  }
});

/** pkill inside a node namespace sees every process of the machine: the pattern names this run's kube-proxy on one node alone. */
const kubeProxyOf = (runId: string, node: string) => `${runFolder(runId)}/kube-proxy/config.conf --hostname-override=kx-main-${node}$`;

test('a kube-proxy frozen (SIGSTOP) during the steps fails the run, naming it and its node; nothing is left', { skip, timeout: 180_000 }, async () => {
  assert.equal(missing, null, `prerequisites: ${missing}`);
  const freezes = (runId: string): Experiment => ({
    ...base,
    steps: [firstStep, step('freeze', 'worker2', ['pkill', '-STOP', '-f', kubeProxyOf(runId, 'worker2')]), base.steps[1]!],
  });
  const r = await broken(freezes);
  assert.ok(r.error, 'the run failed');
  assert.match(
    r.error.message,
    /^the cluster broke during step freeze \(kube-proxy on worker2 did not answer http:\/\/127\.0\.0\.1:10256\/healthz \(curl exit 28: no answer within 2 s, frozen\?\)\): this run is no measurement$/,
  );
  assert.ok(!r.stepEnded.has(base.steps[1]!.id), 'no step ran on the broken cluster');
  assert.deepEqual(r.after, r.before, 'the previous snapshots, byte for byte');
  assert.deepEqual(r.left, [], 'the frozen process was taken down too');
  process.stdout.write(
    `# frozen kube-proxy: the run failed ${((r.failedAt - r.stepEnded.get('cluster-via-worker')!) / 1000).toFixed(2)} s after the step before the freeze ended\n`,
  );
});

test('a component killed (SIGKILL) during the steps fails the run, naming it with the end of its log', { skip, timeout: 180_000 }, async () => {
  assert.equal(missing, null, `prerequisites: ${missing}`);
  const kills = (runId: string): Experiment => ({
    ...base,
    steps: [firstStep, step('kill-scheduler', 'control-plane', ['pkill', '-KILL', '-f', `${runFolder(runId)}/kubeconfig/scheduler.conf`]), base.steps[1]!],
  });
  const r = await broken(kills);
  assert.ok(r.error, 'the run failed');
  assert.match(
    r.error.message,
    /^the cluster broke during step kill-scheduler \(lab: kube-scheduler (exited \(killed by a signal\)|is gone): .+\): this run is no measurement$/,
  );
  assert.deepEqual(r.after, r.before);
  assert.deepEqual(r.left, []);
  process.stdout.write(
    `# killed kube-scheduler: the run failed ${((r.failedAt - r.stepEnded.get('cluster-via-worker')!) / 1000).toFixed(2)} s after the step before the kill ended\n`,
  );
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(
    `${signal} while the control plane starts ends the capture with ${signal === 'SIGINT' ? 130 : 143}, no stack, and nothing left`,
    { skip, timeout: 180_000 },
    async () => {
      assert.equal(missing, null, `prerequisites: ${missing}`);
      const out = mkdtempSync(join(tmpdir(), 'shice-fault-signal-'));
      const child = spawn(
        process.execPath,
        [join(root, 'scripts/capture.ts'), '--driver', 'lab', '--variant', 'iptables', '--k8s', HEADLINE_RELEASE.minor, '--out', out, SLUG],
        {
          cwd: root,
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      let runId = '';
      const reached = new Promise<void>((resolve) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          runId ||= /\(run ([0-9A-Za-z-]+)\)/.exec(stderr)?.[1] ?? '';
          // The controller-manager and scheduler are being started, beside the kubectl calls.
          if (/lab: kube-controller-manager and kube-scheduler/.test(stderr)) resolve();
        });
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await reached;
      child.kill(signal);
      const code = await exited;
      try {
        assert.equal(code, signal === 'SIGINT' ? 130 : 143, stderr.slice(-800));
        assert.doesNotMatch(stderr, /^\s+at /m, 'no stack trace');
        assert.match(stderr, /interrupted; the snapshots were left as they were/);
        assert.ok(runId, 'the run id was printed');
        assert.deepEqual(await leftoversOf(runId), []);
        assert.deepEqual(readdirSync(out), [], 'no snapshots, staging folder or lock in the target');
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
  );
}
