// A kind capture stopped at any moment takes down everything it started, the
// children of its tools included, and --clean does the same for a capture
// killed with kill -9: the half-made cluster (nodes docker was still creating),
// kind's network and its bridge, /lib/modules, the kernel settings, and the
// kind and docker processes the dead capture had running. What the capture
// and --clean say is what happened: an engine that does not answer, a foreign
// cluster (exit 2), a cluster deleted from outside. Each moment is found by
// watching the run (its processes, its containers, its progress), never by the clock.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, type TestContext } from 'node:test';
import { execa } from 'execa';
import { RUN_MARK } from '../../src/capture/kind/settings.ts';
import { processesWithEnv } from '../../src/capture/machine/process-identity.ts';
import { readRecords } from '../../src/capture/recovery/run-registry.ts';
import { journalChanges, readSysctls, undoSysctls } from '../../src/capture/kind/engine/host-state.ts';
import {
  answeringEngine,
  dockerObjects,
  forwardingAsFirstFound,
  kindStateFiles,
  kindTest,
  prepareKind,
  ROOT,
  rootNamespace,
  runCaptureCli,
  stopEngineCli,
  stopKindIfStarted,
  unavailable,
  type KindHost,
} from './support.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const SLUG = '074-external-traffic-policy';
const CLUSTER = 'kx-main';
let host: KindHost | null = null;
const out = mkdtempSync(join(tmpdir(), 'shice-kind-interrupt-'));

before(async () => {
  if (unavailable !== null) return;
  // shice's own engine, left running, is stopped first: one test stops and starts it again.
  const running = await answeringEngine();
  if (running?.own) await stopEngineCli();
  if ((await answeringEngine()) === null) forwardingAsFirstFound(process.env.CI === 'true');
  host = await prepareKind((line) => process.stdout.write(`# ${line}\n`));
});

after(async () => {
  rmSync(out, { recursive: true, force: true });
  await stopKindIfStarted(host);
});

/** A capture of 074 (iptables) under way: its child, what it printed, and its run id once known. */
interface Capture {
  child: ChildProcess;
  stderr: () => string;
  runId: () => string | null;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startCapture(t: TestContext, name: string): Capture {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'scripts/capture.ts'), SLUG, '--k8s', HEADLINE_RELEASE.minor, '--out', join(out, name), '--variant', 'iptables'],
    {
      cwd: ROOT,
      env: host!.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stdout!.resume();
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  void done.then(() => t.diagnostic(stderr.trimEnd().split('\n').slice(-6).join(' | ')));
  return { child, stderr: () => stderr, runId: () => /\(run ([0-9A-Za-z-]+)\) with --driver kind/.exec(stderr)?.[1] ?? null, done };
}

/** Awaits `check` (polled as fast as the machine answers); fails naming `what` if the capture ends first. */
async function until<T>(capture: Capture, what: string, check: () => Promise<T | null> | T | null): Promise<T> {
  let ended = false;
  void capture.done.then(() => (ended = true));
  for (;;) {
    const found = await check();
    if (found !== null && found !== false) return found;
    assert.ok(!ended, `the capture ended before ${what}: ${capture.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The run's processes: every tool the kind driver started and every child of those carries its mark. */
const runProcesses = (runId: string) => processesWithEnv(`${RUN_MARK}=${runId}`);

/** Moments of `kind create`, each a condition on the run. */
const MOMENTS: Record<string, (capture: Capture) => Promise<unknown>> = {
  'kind create has started': (c) =>
    until(c, 'kind create', () => (c.runId() && runProcesses(c.runId()!).some((p) => / create cluster /.test(p.command))) || null),
  "a node's docker run is in flight": (c) =>
    until(c, 'docker run', () => (c.runId() && runProcesses(c.runId()!).some((p) => /^docker run /.test(p.command))) || null),
  'the node containers exist': (c) =>
    until(c, 'the node containers', async () => ((await nodeContainers()).length === 3 && c.runId() && runProcesses(c.runId()!).length > 0) || null),
  'kubeadm runs in the control plane': (c) =>
    until(c, 'kubeadm', () => (c.runId() && runProcesses(c.runId()!).some((p) => /kubeadm (init|join)/.test(p.command))) || null),
};

async function nodeContainers(): Promise<string[]> {
  const run = await execa('docker', ['ps', '--all', '--quiet', '--filter', `label=io.x-k8s.kind.cluster=${CLUSTER}`], { env: host!.env, reject: false });
  return run.stdout.split('\n').filter(Boolean);
}

/** Everything a run could leave on the host, and what of it belongs to run `runId`. */
async function leftovers(runId?: string) {
  const records = readRecords();
  return {
    docker: await dockerObjects(host!.env),
    root: await rootNamespace(),
    state: kindStateFiles(),
    processes: runId ? runProcesses(runId).map((p) => p.command) : [],
    records: runId ? [...records.captures, ...records.runs].filter((r) => r.runId === runId).map((r) => r.kind) : [],
  };
}

/** `npm run capture -- --clean` as a user runs it: the engine and tools are the capture's to find. */
function clean(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCaptureCli(['--clean'], process.env);
}

kindTest('SIGINT or SIGTERM at any moment of kind create: exit 130 or 143 only once every node, even one docker was still creating, is gone', async (t) => {
  const cases: Array<[string, NodeJS.Signals]> = [
    ['kind create has started', 'SIGINT'],
    ["a node's docker run is in flight", 'SIGTERM'],
    ['the node containers exist', 'SIGINT'],
    ['kubeadm runs in the control plane', 'SIGTERM'],
  ];
  for (const [moment, signal] of cases) {
    const before = await leftovers();
    const capture = startCapture(t, `signal-${cases.findIndex(([m]) => m === moment)}`);
    await MOMENTS[moment]!(capture);
    const sentAt = performance.now();
    capture.child.kill(signal);
    const ended = await capture.done;
    t.diagnostic(`${signal} once ${moment}: exit ${ended.code} after ${Math.round(performance.now() - sentAt)} ms`);
    assert.equal(ended.code, signal === 'SIGINT' ? 130 : 143, `${moment}: ${capture.stderr()}`);
    assert.match(
      capture.stderr().trimEnd().split('\n').at(-1)!,
      /^capture: 074-external-traffic-policy variant iptables: interrupted; the snapshots were left as they were$/,
    );
    // Read the moment the capture has ended: nothing of the run may finish after it.
    assert.deepEqual(await leftovers(capture.runId()!), before, `${signal} once ${moment}: nothing of the run is left`);
    assert.deepEqual(await nodeContainers(), [], 'no node is created after the capture ended');
  }
});

kindTest(
  'kill -9 during kind create, then --clean: it stops the kind and docker processes the capture left, removes the cluster, its network, bridge and /lib/modules, and says so',
  async (t) => {
    for (const [index, moment] of ["a node's docker run is in flight", 'kubeadm runs in the control plane'].entries()) {
      const before = await leftovers();
      const capture = startCapture(t, `killed-${index}`);
      await MOMENTS[moment]!(capture);
      capture.child.kill('SIGKILL');
      await capture.done;
      const runId = capture.runId()!;
      assert.ok(runProcesses(runId).length > 0, `${moment}: the killed capture's kind goes on without it`);

      const cleaned = await clean();
      t.diagnostic(cleaned.stderr);
      assert.equal(cleaned.code, 0, cleaned.stderr);
      const said = cleaned.stderr.split('\n').filter((l) => l.startsWith(`capture: dead kind run ${runId}: `));
      assert.match(said[0] ?? '', /: removed the \d+ process\(es\) it still had running \(.*kind create cluster/, `${moment}: ${cleaned.stderr}`);
      assert.match(said[1] ?? '', new RegExp(`: removed kind cluster "${CLUSTER}" \\(`));
      assert.match(said[2] ?? '', /: removed docker network "kind" and its bridge br-[0-9a-f]{12}$/);
      if (before.root.libModules![0] === 'false' && index === 1)
        assert.ok(
          said.some((l) => l.endsWith(`removed the empty /lib/modules docker made for kind's node mounts`)),
          cleaned.stderr,
        );
      assert.deepEqual(await leftovers(runId), before, `${moment}: nothing of the run is left after --clean`);
      const clusters = await execa('kind', ['get', 'clusters'], { env: host!.env });
      assert.doesNotMatch(clusters.stdout + clusters.stderr, new RegExp(`^${CLUSTER}$`, 'm'), 'no cluster left for the next capture to refuse');
    }
  },
);

kindTest('--clean while the Docker engine is down: one line saying so, exit 1, the record kept; with the engine back it removes the cluster', async (t) => {
  if (!host!.startedEngine) {
    t.skip("the host's own Docker engine is never stopped by shice");
    return;
  }
  const before = await leftovers();
  const capture = startCapture(t, 'engine-down');
  // Once the nodes run: an engine stopped while it still creates a node loses that node and leaks its volume.
  await MOMENTS['kubeadm runs in the control plane']!(capture);
  capture.child.kill('SIGKILL');
  await capture.done;
  const runId = capture.runId()!;
  const stopped = await stopEngineCli();
  assert.equal(stopped.code, 0, stopped.stderr);
  host = null;

  const refused = await clean();
  assert.equal(refused.code, 1, `${refused.stdout}${refused.stderr}`);
  assert.doesNotMatch(refused.stdout, /nothing of killed captures or lab runs was left/);
  const lines = refused.stderr.split('\n').filter((l) => l.includes(`kind run ${runId}`));
  assert.equal(lines.length, 1, refused.stderr);
  assert.match(
    lines[0]!,
    /could not remove what it left \(.*the Docker daemon does not answer .*start it \(npm run kind:prepare\) and run --clean again\); its record stays/,
  );
  assert.ok(
    readRecords().runs.some((r) => r.runId === runId && r.kind === 'kind'),
    'the record stays for the next --clean',
  );

  host = await prepareKind((line) => t.diagnostic(line));
  const cleaned = await clean();
  assert.equal(cleaned.code, 0, cleaned.stderr);
  assert.match(cleaned.stderr, new RegExp(`dead kind run ${runId}: removed kind cluster "${CLUSTER}"`));
  assert.deepEqual(await leftovers(runId), before, 'nothing of the run is left');
});

kindTest('a kind cluster of the same name that the capture did not create is refused with exit 2 and one line, and left as it was', async (t) => {
  const before = await leftovers();
  const sysctls = readSysctls();
  // Someone else's cluster, as kind lists it: their `kind create` stopped once its node runs (no kubeconfig or marker of the capture's).
  const kubeconfig = join(out, 'foreign.kubeconfig');
  const image = (await execa('docker', ['images', '--format', '{{.Repository}}:{{.Tag}}', 'shice/kind-node'], { env: host!.env })).stdout.split('\n')[0]!;
  const theirs = execa('kind', ['create', 'cluster', '--name', CLUSTER, '--kubeconfig', kubeconfig, '--image', image], {
    env: host!.env,
    reject: false,
    detached: true,
  });
  try {
    for (;;) {
      const running = await execa('docker', ['ps', '--quiet', '--filter', `label=io.x-k8s.kind.cluster=${CLUSTER}`], { env: host!.env });
      if (running.stdout.trim() !== '') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    process.kill(-theirs.pid!, 'SIGKILL');
    await theirs;
    const foreign = await nodeContainers();
    const run = await runCaptureCli([SLUG, '--k8s', HEADLINE_RELEASE.minor, '--out', join(out, 'foreign'), '--variant', 'iptables'], host!.env, (line) =>
      t.diagnostic(line),
    );
    assert.equal(run.code, 2, run.stderr);
    const errors = run.stderr.split('\n').filter((l) => l.startsWith('capture:'));
    assert.equal(errors.length, 1, run.stderr);
    assert.match(errors[0]!, /a kind cluster named "kx-main" already exists and was not created by this capture/);
    assert.deepEqual(await nodeContainers(), foreign, 'the foreign cluster is left as it was');
  } finally {
    // The test's own cluster, taken down so the host is as the test found it.
    await theirs;
    await execa('kind', ['delete', 'cluster', '--name', CLUSTER, '--kubeconfig', kubeconfig], { env: host!.env });
    if (!before.docker.networks.includes('kind')) await execa('docker', ['network', 'rm', 'kind'], { env: host!.env, reject: false });
    if (before.root.libModules![0] === 'false') rmdirSync('/lib/modules');
    // What the test's own cluster changed, undone where it still holds the value that cluster set.
    undoSysctls(journalChanges(sysctls, readSysctls()));
  }
  assert.deepEqual(await leftovers(), before);
});

kindTest('a kind cluster deleted from outside during the steps: one line saying so, exit 1, nothing left', async (t) => {
  const before = await leftovers();
  const capture = startCapture(t, 'outside');
  await until(capture, 'the second step', () => (/^\[ 2\/\d+\]/m.test(capture.stderr()) ? true : null));
  // The capture is held while someone deletes its cluster, so that it finds the deletion whole.
  capture.child.kill('SIGSTOP');
  await execa('kind', ['delete', 'cluster', '--name', CLUSTER], { env: host!.env });
  capture.child.kill('SIGCONT');
  const ended = await capture.done;
  assert.equal(ended.code, 1, capture.stderr());
  const errors = capture
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('capture:'));
  assert.equal(errors.length, 1, capture.stderr());
  assert.match(errors[0]!, /kind cluster "kx-main" was deleted by something other than this capture \(node container kx-main-control-plane is gone, /);
  assert.doesNotMatch(errors[0]!, /could not delete/);
  assert.deepEqual(await leftovers(capture.runId()!), before, 'nothing of the run is left');
});
