import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readdir, readFile, rename, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { experiment074 as article074 } from '../support/articles.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { CaptureAborted, runCapture, type CaptureReporter } from '../../src/capture/session/runner.ts';
import { openStaging, swapPaths } from '../../src/capture/snapshots/snapshot-writer.ts';
import { settleSwap } from '../../src/capture/recovery/recover.ts';
import { runSchema, stepSchema } from '../../src/evidence/schema.ts';
import { scriptedProvider, type Script, type ScriptedProvider } from '../fixtures/capture/scripted-driver.ts';
import { ARTICLE_DIR, FAKE_KIND_RELEASE } from '../fixtures/fake-bin/harness.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074, 'iptables');

const silent: CaptureReporter = { phase() {}, stepStarted() {}, stepFinished() {} };
const base = {
  experiment,
  kubernetes: FAKE_KIND_RELEASE,
  articleDir: ARTICLE_DIR,
  runId: 'test-run',
  reporter: silent,
  git: { commit: 'abc', dirty: false },
  host: { os: 'linux', arch: 'x64', kernel: '6.1' },
};

/** A temp folder removed when the test ends, passed or not. */
async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'shice-engine-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The old snapshots folder, with content we can compare byte for byte. */
async function oldSnapshots(parent: string): Promise<{ target: string; files: Record<string, string> }> {
  const target = join(parent, 'snapshots');
  await mkdir(target);
  const files = { 'run.yaml': 'runId: the-old-run\n', 'cluster-via-worker.yaml': 'stdout: "client=10.244.1.1\\n"\n' };
  for (const [name, text] of Object.entries(files)) await writeFile(join(target, name), text);
  return { target, files };
}

/** A scripted provider for one test, removed (with its fake kubectl's folder) whatever the test did. */
async function withProvider(script: Script, body: (provider: ScriptedProvider) => Promise<void>): Promise<void> {
  const provider = await scriptedProvider(script);
  try {
    await body(provider);
  } finally {
    await provider.cleanup();
  }
}

/** The health check's one curl on a node (health.ts, between steps): it asks kube-proxy's health server among others. */
const kubeProxyHealthz = (node: string) => (call: string) =>
  call.startsWith(`exec ${node} curl `) && call.includes(' --parallel ') && call.includes(' http://127.0.0.1:10256/healthz');

async function readAll(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) out[name] = await readFile(join(dir, name), 'utf8');
  return out;
}

test('a complete run replaces the snapshots with run.yaml and one valid file per step, in order', async (t) => {
  const parent = await tempDir(t);
  const { target } = await oldSnapshots(parent);
  await withProvider({ answer: () => ({ stdout: 'client=10.244.1.1\n' }) }, async (provider) => {
    const started: string[] = [];
    const reporter: CaptureReporter = { phase() {}, stepStarted: (step) => started.push(step.id), stepFinished() {} };
    const result = await runCapture({ ...base, reporter, driver: provider, target, signal: new AbortController().signal });

    const files = await readAll(target);
    assert.deepEqual(Object.keys(files).sort(), ['run.yaml', ...experiment.steps.map((s) => `${s.id}.yaml`)].sort());
    const run = runSchema.parse(load(files['run.yaml']!));
    assert.deepEqual(
      run.steps,
      experiment.steps.map((s) => s.id),
    );
    assert.equal(run.runId, 'test-run');
    // The nodes as the (fake) API reported them, not the article's.
    assert.deepEqual(
      run.nodes.map((n) => [n.name, n.internalIP]),
      [
        ['control-plane', '172.19.0.4'],
        ['worker', '172.19.0.2'],
        ['worker2', '172.19.0.3'],
      ],
    );
    assert.equal(run.versions.scripted, '1', "the provider's own facts");
    assert.equal(run.versions['kube-proxy-mode'], 'iptables', "kube-proxy's answer on /proxyMode");
    const step = stepSchema.parse(load(files['cluster-via-worker.yaml']!));
    assert.deepEqual(step.command, ['curl', '--silent', '--show-error', '--max-time', '3', 'http://172.19.0.2:30917/']);
    assert.deepEqual(step.argv, ['scripted', 'control-plane', ...step.command]);
    assert.equal(step.stdout, 'client=10.244.1.1\n');
    assert.equal(result.steps.length, experiment.steps.length);
    assert.deepEqual(
      started,
      experiment.steps.map((s) => s.id),
      "every step in the experiment's order",
    );
    // The delete went through the API; the step returned once kube-proxy reported no local endpoint.
    const deleted = stepSchema.parse(load(files['delete-backend.yaml']!));
    assert.equal(deleted.stdout, 'pod "backend" deleted\n');
    assert.match(deleted.settle!.answer, /"localEndpoints": 0,/);
    assert.ok((await provider.harness.calls()).some((c) => c.argv.join(' ').includes('delete pod backend --namespace default')));
    // up first, down last; kube-proxy asked on every node before the first step and after each one.
    assert.equal(provider.calls[0], 'up');
    assert.equal(provider.calls.at(-1), 'down');
    for (const node of ['control-plane', 'worker', 'worker2']) {
      assert.equal(provider.calls.filter(kubeProxyHealthz(node)).length, experiment.steps.length + 1, node);
    }
    assert.deepEqual((await readdir(parent)).sort(), ['snapshots'], 'no staging folder is left');
  });
});

test('a failing step leaves the old snapshots byte for byte, removes the staging folder and takes the environment down', async (t) => {
  const parent = await tempDir(t);
  const { target, files } = await oldSnapshots(parent);
  await withProvider({ answer: (node, command) => (node === 'worker2' && command[0] === 'iptables-save' ? 'throw' : undefined) }, async (provider) => {
    await assert.rejects(runCapture({ ...base, driver: provider, target, signal: new AbortController().signal }), /scripted failure on worker2/);
    assert.deepEqual(await readAll(target), files);
    assert.deepEqual(await readdir(parent), ['snapshots']);
    assert.equal(provider.calls.at(-1), 'down');
  });
});

test('a cluster that reports another Kubernetes minor than the run was to measure is no measurement: no step runs, the old snapshots stay', async (t) => {
  const parent = await tempDir(t);
  const { target, files } = await oldSnapshots(parent);
  await withProvider({}, async (provider) => {
    // The scripted API answers v1.32.2 (kubectl-version.json); this run was to measure the headline.
    const run = runCapture({ ...base, kubernetes: HEADLINE_RELEASE, driver: provider, target, signal: new AbortController().signal });
    await assert.rejects(run, (error: Error) => {
      assert.equal(
        error.message,
        `the API server reports Kubernetes v1.32.2, the run was to measure ${HEADLINE_RELEASE.release}: this run is no measurement of it`,
      );
      return true;
    });
    assert.deepEqual(await readAll(target), files);
    assert.ok(!provider.calls.some((c) => c.includes('curl --silent --show-error --max-time 3 http://')), 'no step ran');
    assert.equal(provider.calls.at(-1), 'down');
  });
});

test('a cluster whose kube-proxy runs another mode than the run was to measure (a kept cluster of the other variant) is no measurement: no step runs', async (t) => {
  const parent = await tempDir(t);
  const { target, files } = await oldSnapshots(parent);
  const script: Script = { probe: (_node, command) => (command.at(-1) === 'http://127.0.0.1:10249/proxyMode' ? { stdout: 'nftables' } : undefined) };
  await withProvider(script, async (provider) => {
    await assert.rejects(runCapture({ ...base, driver: provider, target, signal: new AbortController().signal }), (error: Error) => {
      assert.equal(error.message, 'kube-proxy reports mode nftables, the run was to measure iptables: this run is no measurement of it');
      return true;
    });
    assert.deepEqual(await readAll(target), files);
    assert.ok(!provider.calls.some((c) => c.includes('curl --silent --show-error --max-time 3 http://')), 'no step ran');
    assert.equal(provider.calls.at(-1), 'down');
  });
});

test('a component that breaks under a step fails the run with its name, and the old snapshots stay', async (t) => {
  const parent = await tempDir(t);
  const { target, files } = await oldSnapshots(parent);
  let calls: string[] = [];
  const script: Script = {
    // The provider notices after conntrack-worker2 that worker2's kubelet died.
    problems: () => (calls.some((c) => c.startsWith('exec worker2 conntrack')) ? ['lab-kubelet on worker2 exited (code 1)'] : []),
  };
  await withProvider(script, async (provider) => {
    calls = provider.calls;
    await assert.rejects(runCapture({ ...base, driver: provider, target, signal: new AbortController().signal }), (error: Error) => {
      assert.equal(error.message, 'the cluster broke during step conntrack-worker2 (lab-kubelet on worker2 exited (code 1)): this run is no measurement');
      return true;
    });
    assert.deepEqual(await readAll(target), files);
    assert.deepEqual(await readdir(parent), ['snapshots']);
    assert.equal(provider.calls.at(-1), 'down');
  });
});

test("a step whose time limit is part of the experiment (onTimeout: 'record') is stored as timed out", async (t) => {
  const parent = await tempDir(t);
  const { target } = await oldSnapshots(parent);
  const limited = {
    ...experiment,
    steps: experiment.steps.map((s) => (s.id === 'conntrack-worker2' && s.kind === 'exec' ? { ...s, timeoutMs: 200, onTimeout: 'record' as const } : s)),
  };
  await withProvider({ answer: (_node, command) => (command[0] === 'conntrack' ? 'hang' : undefined) }, async (provider) => {
    await runCapture({ ...base, experiment: limited, driver: provider, target, signal: new AbortController().signal });
    const step = stepSchema.parse(load(await readFile(join(target, 'conntrack-worker2.yaml'), 'utf8')));
    assert.equal(step.timedOut, true);
    assert.equal(step.exitCode, 143, 'ended by SIGTERM');
    assert.ok(step.durationMs >= 190, `it ran to its limit (${step.durationMs} ms)`);
    assert.equal(stepSchema.parse(load(await readFile(join(target, 'iptables-worker2.yaml'), 'utf8'))).timedOut, undefined);
  });
});

test('an interrupted capture (abort signal mid-step) keeps the old snapshots and still cleans up', async (t) => {
  const parent = await tempDir(t);
  const { target, files } = await oldSnapshots(parent);
  const controller = new AbortController();
  const script: Script = {
    answer: (_node, command) => {
      if (command[0] === 'conntrack') {
        setTimeout(() => controller.abort(), 5);
        return 'hang';
      }
      return undefined;
    },
  };
  await withProvider(script, async (provider) => {
    await assert.rejects(runCapture({ ...base, driver: provider, target, signal: controller.signal }), (e) => e instanceof CaptureAborted);
    assert.deepEqual(await readAll(target), files);
    assert.deepEqual(await readdir(parent), ['snapshots']);
    assert.equal(provider.calls.at(-1), 'down');
  });
});

test(
  'a capture process killed midway (SIGKILL) leaves the old snapshots unchanged; the next capture clears its staging folder',
  { timeout: 20_000 },
  async (t) => {
    const parent = await tempDir(t);
    const { target, files } = await oldSnapshots(parent);
    // The child's own temp folder (its fake kubectl's): nothing in the child can remove it once killed.
    const childTmp = await mkdtemp(join(tmpdir(), 'shice-engine-child-'));
    const child = spawn(process.execPath, [fileURLToPath(new URL('../fixtures/capture/killable-capture.ts', import.meta.url)), target], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TMPDIR: childTmp },
      // A process group of its own: the fake tools it had in flight outlive its kill -9, and are ended with the group below.
      detached: true,
    });
    t.after(async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
      // A killed tool may still be writing into the folder as it goes: retry until it is empty.
      await rm(childTmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('done iptables-worker2')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the capture exited (${code}) before it reached the hanging step`)));
    });
    // The child now hangs in a later step with most steps staged.
    child.kill('SIGKILL');
    await exited;
    assert.deepEqual(await readAll(target), files, 'the old snapshots are untouched');
    const staged = (await readdir(parent)).filter((n) => n.startsWith('.snapshots.staging-'));
    assert.equal(staged.length, 1, 'the killed run left its staging folder (nothing could remove it)');

    // Nothing is removed by the look of its name: a second capture's staging stands beside the killed one's.
    const staging = await openStaging(target, 'next-run');
    assert.deepEqual((await readdir(parent)).sort(), [staged[0], '.snapshots.staging-next-run', 'snapshots'].sort());
    await staging.discard();
    // Recovery by the killed run's record (its paths) removes its staging folder and keeps the snapshots.
    const killedRun = staged[0]!.slice('.snapshots.staging-'.length);
    const done = settleSwap(swapPaths(target, killedRun), killedRun);
    assert.deepEqual(done, [`removed the staging folder ${join(parent, staged[0]!)} of run ${killedRun}`]);
    assert.deepEqual(await readdir(parent), ['snapshots']);
    assert.deepEqual(await readAll(target), files);
  },
);

test('a swap interrupted between its two renames is undone when the staged run is incomplete: the old run comes back', async (t) => {
  const parent = await tempDir(t);
  const { files } = await oldSnapshots(parent);
  const target = join(parent, 'snapshots');
  const paths = swapPaths(target, 'crashed');
  await rename(target, paths.previous);
  await mkdir(paths.staging);
  await writeFile(join(paths.staging, 'a-step.yaml'), 'id: a-step\n');
  const done = settleSwap(paths, 'crashed');
  assert.match(done[0]!, /^undid the interrupted swap of run crashed/);
  assert.deepEqual(await readAll(target), files);
  assert.deepEqual(await readdir(parent), ['snapshots']);
});

test('a swap interrupted between its two renames is finished when the staged run is complete', async (t) => {
  const parent = await tempDir(t);
  await oldSnapshots(parent);
  const target = join(parent, 'snapshots');
  const paths = swapPaths(target, 'crashed');
  await rename(target, paths.previous);
  await mkdir(paths.staging);
  await writeFile(join(paths.staging, 'run.yaml'), 'runId: crashed\n');
  const done = settleSwap(paths, 'crashed');
  assert.match(done[0]!, /^finished the interrupted swap of run crashed/);
  assert.match(done[1]!, /^removed the folder .*\.snapshots\.previous-crashed/);
  assert.equal(await readFile(join(target, 'run.yaml'), 'utf8'), 'runId: crashed\n');
  assert.deepEqual(await readdir(parent), ['snapshots']);
});

test('the writer refuses to swap in a run whose run.yaml lists a step it never wrote, or an invalid snapshot', async (t) => {
  const parent = await tempDir(t);
  const { target, files } = await oldSnapshots(parent);
  const staging = await openStaging(target, 'bad-run');
  await assert.rejects(
    staging.writeStep({
      id: 'x',
      kind: 'exec',
      node: 'worker',
      title: '',
      command: [],
      argv: ['a'],
      exitCode: 0,
      startedAt: 'now',
      durationMs: 1,
      stdout: '',
      stderr: '',
    }),
    /command|startedAt/,
  );
  await assert.rejects(staging.commit(), /has no run\.yaml/);
  await staging.discard();
  assert.deepEqual(await readAll(target), files);
});
