import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readdir, readFile, rename, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { experiment as article074 } from '../../content/articles/074-external-traffic-policy/experiment.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { CaptureAborted, runCapture, type CaptureReporter } from '../../src/capture/runner.ts';
import { openStaging, swapPaths } from '../../src/capture/snapshot-writer.ts';
import { settleSwap } from '../../src/capture/recover.ts';
import { runSchema, stepSchema } from '../../src/evidence/schema.ts';
import { scriptedDriver, sampleTopology } from '../fixtures/capture/scripted-driver.ts';

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074, 'iptables');

const silent: CaptureReporter = { phase() {}, stepStarted() {}, stepFinished() {} };
const base = {
  experiment,
  runId: 'test-run',
  reporter: silent,
  git: { commit: 'abc', dirty: false },
  host: { os: 'linux', arch: 'x64', kernel: '6.1' },
};

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'shice-engine-'));
}

/** The old snapshots folder, with content we can compare byte for byte. */
async function oldSnapshots(parent: string): Promise<{ target: string; files: Record<string, string> }> {
  const target = join(parent, 'snapshots');
  await mkdir(target);
  const files = { 'run.yaml': 'runId: the-old-run\n', 'cluster-via-worker.yaml': 'stdout: "client=10.244.1.1\\n"\n' };
  for (const [name, text] of Object.entries(files)) await writeFile(join(target, name), text);
  return { target, files };
}

async function readAll(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) out[name] = await readFile(join(dir, name), 'utf8');
  return out;
}

test('a complete run replaces the snapshots with run.yaml and one valid file per step, in order', async () => {
  const parent = await tempDir();
  const { target } = await oldSnapshots(parent);
  const driver = scriptedDriver({ topology: sampleTopology, answer: () => ({ stdout: 'client=10.244.1.1\n' }) });
  const result = await runCapture({ ...base, driver, target, signal: new AbortController().signal });

  const files = await readAll(target);
  assert.deepEqual(Object.keys(files).sort(), ['run.yaml', ...experiment.steps.map((s) => `${s.id}.yaml`)].sort());
  const run = runSchema.parse(load(files['run.yaml']!));
  assert.deepEqual(run.steps, experiment.steps.map((s) => s.id));
  assert.equal(run.runId, 'test-run');
  assert.deepEqual(run.nodes, sampleTopology.nodes);
  const step = stepSchema.parse(load(files['cluster-via-worker.yaml']!));
  assert.deepEqual(step.command, ['curl', '--silent', '--show-error', '--max-time', '3', 'http://172.18.0.2:31575/']);
  assert.equal(step.stdout, 'client=10.244.1.1\n');
  assert.equal(result.steps.length, experiment.steps.length);
  // up, every step in the experiment's order, then down
  assert.equal(driver.calls[0], 'up');
  assert.equal(driver.calls.at(-1), 'down');
  assert.ok(driver.calls.indexOf('delete backend') < driver.calls.findLastIndex((c) => c.includes(':31273')));
  assert.deepEqual((await readdir(parent)).sort(), ['snapshots'], 'no staging folder is left');
  await rm(parent, { recursive: true });
});

test('a failing step leaves the old snapshots byte for byte, removes the staging folder and takes the environment down', async () => {
  const parent = await tempDir();
  const { target, files } = await oldSnapshots(parent);
  const driver = scriptedDriver({
    topology: sampleTopology,
    answer: (node, command) => (node === 'worker2' && command[0] === 'iptables-save' ? 'throw' : {}),
  });
  await assert.rejects(runCapture({ ...base, driver, target, signal: new AbortController().signal }), /scripted failure on worker2/);
  assert.deepEqual(await readAll(target), files);
  assert.deepEqual(await readdir(parent), ['snapshots']);
  assert.equal(driver.calls.at(-1), 'down');
  await rm(parent, { recursive: true });
});

test('an interrupted capture (abort signal mid-step) keeps the old snapshots and still cleans up', async () => {
  const parent = await tempDir();
  const { target, files } = await oldSnapshots(parent);
  const controller = new AbortController();
  const driver = scriptedDriver({
    topology: sampleTopology,
    answer: (_node, command) => {
      if (command[0] === 'conntrack') {
        setTimeout(() => controller.abort(), 5);
        return 'hang';
      }
      return {};
    },
  });
  await assert.rejects(runCapture({ ...base, driver, target, signal: controller.signal }), (e) => e instanceof CaptureAborted);
  assert.deepEqual(await readAll(target), files);
  assert.deepEqual(await readdir(parent), ['snapshots']);
  assert.equal(driver.calls.at(-1), 'down');
  await rm(parent, { recursive: true });
});

test('a capture process killed midway (SIGKILL) leaves the old snapshots unchanged; the next capture clears its staging folder', { timeout: 20_000 }, async () => {
  const parent = await tempDir();
  const { target, files } = await oldSnapshots(parent);
  const child = spawn(process.execPath, [fileURLToPath(new URL('../fixtures/capture/killable-capture.ts', import.meta.url)), target], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('done filter-worker2')) resolve();
    });
  });
  // The child now hangs in a later step with most steps staged.
  child.kill('SIGKILL');
  await new Promise((resolve) => child.on('exit', resolve));
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
  await rm(parent, { recursive: true });
});

test('a swap interrupted between its two renames is undone when the staged run is incomplete: the old run comes back', async () => {
  const parent = await tempDir();
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
  await rm(parent, { recursive: true });
});

test('a swap interrupted between its two renames is finished when the staged run is complete', async () => {
  const parent = await tempDir();
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
  await rm(parent, { recursive: true });
});

test('the writer refuses to swap in a run whose run.yaml lists a step it never wrote, or an invalid snapshot', async () => {
  const parent = await tempDir();
  const { target, files } = await oldSnapshots(parent);
  const staging = await openStaging(target, 'bad-run');
  await assert.rejects(
    staging.writeStep({ id: 'x', kind: 'exec', node: 'worker', title: '', command: [], argv: ['a'], exitCode: 0, startedAt: 'now', durationMs: 1, stdout: '', stderr: '' }),
    /command|startedAt/,
  );
  await assert.rejects(staging.commit(), /has no run\.yaml/);
  await staging.discard();
  assert.deepEqual(await readAll(target), files);
  await rm(parent, { recursive: true });
});
