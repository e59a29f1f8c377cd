// The capture under fault, for real, on this kernel: kill -9 at several phases
// of a real lab capture (detected from its progress lines, never by sleeping),
// two captures started together, SIGTERM during a step, and a step printing
// bytes that are not UTF-8 and more than the limit. Each asserts that the
// previous snapshots are byte-identical (or replaced by a complete run), that
// nothing foreign was deleted, and that nothing of any run is left behind:
// namespaces, every process that was inside them, temporary folders, staging
// folders, locks, records. Needs Linux, root and the lab's Debian tools; in CI
// (CI=true) a missing prerequisite fails, it never skips.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { experiment074 as experiment } from '../support/articles.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { evidenceFromDisk } from '../../src/evidence/runs/from-disk.ts';
import { loadArticle } from '../../src/authoring/load.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import { readableStep, STREAM_LIMIT_BYTES } from '../../src/evidence/raw-stream.ts';
import { outputBlocks, streamNoteText } from '../../src/article/render/raw-output.ts';
import { labUnavailable } from '../../src/capture/lab/tools.ts';
import { LAB_PREFIX, runFolder } from '../../src/capture/lab/names.ts';
import { listNamespaces, namespaceProcesses } from '../../src/capture/lab/leftovers.ts';
import { labDriver } from '../../src/capture/lab/index.ts';
import { defaultVariant, experimentForVariant } from '../../src/experiment/variants.ts';
import { processGroup, processStartTime, stillRunning } from '../../src/capture/machine/process-identity.ts';
import { waitUntil } from '../../src/capture/machine/process.ts';
import { readRecords } from '../../src/capture/recovery/run-registry.ts';
import { runCapture, type CaptureReporter } from '../../src/capture/session/runner.ts';
import { makeRunId } from '../../src/capture/recovery/run-id.ts';
import { treeDigest } from '../support/tree-digest.ts';
import { expectedComponents, runComponents } from '../lab/support.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const SLUG = '074-external-traffic-policy';
const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where `--out` puts the lab's runs: the lab is the article's second environment. */
const FOLDER = `${SLUG}.lab`;
const COMMITTED = join(root, 'content/articles', SLUG, 'snapshots.lab');

const missing = labUnavailable();
const skip = missing && process.env.CI !== 'true' ? `fault suite not run: ${missing}` : false;

// A run registry of this file's own, for it and the captures it starts: the suite runs its files side by
// side, and another file's capture must not recover a run this file killed before this file's --clean does.
const registry = mkdtempSync(join(tmpdir(), 'shice-fault-registry-'));
process.env.SHICE_RUN_REGISTRY = registry;
after(() => rmSync(registry, { recursive: true, force: true }));

/**
 * Phases of a lab capture, as its progress shows them. Setup: the lab has
 * printed its second line (its namespaces exist, its first processes start).
 * Step: step 4 has finished, so step 5 (curl waiting 3 s at the DROP) runs.
 */
const IN_SETUP = /^· lab: (?!namespaces for).+$/m;
const IN_STEP = /^\[ ?4\/\d+\] .+: exit \d+/m;
const IN_SWAP = /^swap: paused between the two renames/m;

interface Capture {
  child: ChildProcess;
  stderr: () => string;
  /** Resolves once stderr matches; rejects if the capture ends first. */
  reached: (mark: RegExp) => Promise<void>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function capture(args: string[], env: Record<string, string> = {}): Capture {
  const child = spawn(process.execPath, [join(root, 'scripts/capture.ts'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const waiters: Array<{ mark: RegExp; resolve: () => void; reject: (e: Error) => void }> = [];
  const check = () => {
    for (const w of [...waiters])
      if (w.mark.test(stderr)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  };
  child.stdout!.on('data', () => {});
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    check();
  });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on('exit', (code, signal) => {
      // Let the last output arrive.
      setImmediate(() => {
        for (const w of waiters) w.reject(new Error(`the capture ended (${code ?? signal}) before ${w.mark}: ${stderr.slice(-600)}`));
        resolve({ code, signal, stderr });
      });
    });
  });
  return {
    child,
    stderr: () => stderr,
    reached: (mark) =>
      new Promise((resolve, reject) => {
        waiters.push({ mark, resolve, reject });
        check();
      }),
    done,
  };
}

// One run (the default variant): the faults of a single swap; the variants' common swap is tested in tests/lab/capture.test.ts.
const labCapture = (out: string, env: Record<string, string> = {}) =>
  capture([SLUG, '--variant', 'iptables', '--k8s', HEADLINE_RELEASE.minor, '--driver', 'lab', '--out', out], env);

function runIdOf(stderr: string): string {
  const id = /capture \S+(?: variant \S+)? \(run ([0-9A-Za-z-]+)\)/.exec(stderr)?.[1];
  assert.ok(id, `the capture names its run: ${stderr.slice(0, 300)}`);
  return id;
}

/** An --out folder holding the committed snapshots of the article and a file of someone else's. */
function prepareOut(): { out: string; target: string; digest: () => Record<string, string> } {
  const out = mkdtempSync(join(tmpdir(), 'shice-fault-out-'));
  const target = join(out, FOLDER);
  cpSync(COMMITTED, target, { recursive: true });
  writeFileSync(join(out, 'notes-of-someone-else.txt'), "not the capture's\n");
  return { out, target, digest: () => treeDigest(out) };
}

interface RunTrace {
  runId: string;
  /** Every process inside the run's namespaces when it was killed, with its start time and process group. */
  processes: Array<{ pid: number; startTime: string | null; group?: number | null }>;
}

/** What a run has on the machine right now: its namespaces, processes inside them, its temp folder. */
async function traceRun(runId: string): Promise<RunTrace & { namespaces: string[]; recorded: number[]; components: string[] }> {
  const namespaces = (await listNamespaces()).filter((ns) => ns.startsWith(`${LAB_PREFIX}${runId}.`));
  const processes = [...namespaceProcesses(namespaces).values()].flat().map((pid) => ({ pid, startTime: processStartTime(pid), group: processGroup(pid) }));
  const record = readRecords().runs.find((r) => r.kind === 'lab' && r.runId === runId);
  const recorded = record && record.kind === 'lab' ? record.processes.map((p) => p.pid) : [];
  return { runId, namespaces, processes, recorded, components: await runComponents(runId) };
}

/** Everything of a run still on the machine; empty when it is all gone. */
async function leftovers(trace: RunTrace, out: string): Promise<string[]> {
  const { runId } = trace;
  const left: string[] = [];
  for (const ns of await listNamespaces()) if (ns.startsWith(`${LAB_PREFIX}${runId}.`)) left.push(`namespace ${ns}`);
  for (const p of trace.processes) if (stillRunning(p)) left.push(`process ${p.pid}`);
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes(`${LAB_PREFIX}${runId}`)) left.push(`process ${entry} (${cmdline.replaceAll('\0', ' ').slice(0, 80)})`);
  }
  if (existsSync(runFolder(runId))) left.push(`folder ${runFolder(runId)}`);
  for (const name of readdirSync(out)) if (name.includes(runId) || name.endsWith('.lock')) left.push(`${name} in --out`);
  const records = readRecords();
  for (const r of [...records.captures, ...records.runs]) if (r.runId === runId) left.push(`record ${r.kind} ${runId}`);
  return left;
}

/**
 * What is left of a killed run once the commands it had in flight have ended: an `ip netns exec`
 * or a kubectl started just before the kill, unseen when the kill was traced, ends within its own
 * time limit. Namespaces, folders, records and the run's daemons never end by themselves, so
 * waiting for the processes hides none of them.
 */
async function settledLeftovers(trace: RunTrace, out: string): Promise<string[]> {
  let left = await leftovers(trace, out);
  const deadline = Date.now() + 15_000;
  while (left.some((l) => l.startsWith('process ')) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await leftovers(trace, out);
  }
  return left;
}

/**
 * Kills the capture with SIGKILL once `mark` shows in its progress and, with
 * `withDaemons`, once a component the run recorded runs inside its namespaces
 * (watched, not waited for by the clock); returns what the run had on
 * the machine then, and the capture's process group.
 */
async function killAt(
  run: Capture,
  mark: RegExp,
  withDaemons = false,
): Promise<RunTrace & { namespaces: string[]; recorded: number[]; components: string[]; progress: string; captureGroup: number | null }> {
  const captureGroup = processGroup(run.child.pid!);
  await run.reached(mark);
  let trace = await traceRun(runIdOf(run.stderr()));
  while (withDaemons && !trace.processes.some((p) => trace.recorded.includes(p.pid)) && !/^\[ ?1\//m.test(run.stderr())) {
    await new Promise((resolve) => setImmediate(resolve));
    trace = await traceRun(trace.runId);
  }
  const progress = run.stderr();
  run.child.kill('SIGKILL');
  const ended = await run.done;
  assert.equal(ended.signal, 'SIGKILL');
  return { ...trace, progress, captureGroup };
}

test('kill -9 during setup leaves the lab behind; --clean finds it by its records and removes all of it', { skip, timeout: 120_000 }, async () => {
  assert.equal(missing, null, `prerequisites: ${missing}`);
  const { out, target, digest } = prepareOut();
  const before = digest();
  try {
    const trace = await killAt(labCapture(out), IN_SETUP, true);
    assert.doesNotMatch(trace.progress, /^\[ ?1\//m, 'killed during setup, before the first step');
    assert.ok(trace.namespaces.length > 0, 'the killed run had created namespaces');
    assert.ok(trace.processes.length > 0, 'processes of the killed run were running inside them');
    const dirty = await leftovers(trace, out);
    assert.ok(
      dirty.some((l) => l.startsWith('namespace ')),
      `the kill left namespaces: ${dirty.join(', ')}`,
    );
    assert.ok(
      dirty.some((l) => l.includes('.staging-')),
      'the kill left the staging folder',
    );
    assert.ok(
      dirty.some((l) => l.startsWith('record ')),
      'the kill left the records',
    );

    // The components are the daemons the run recorded; every other process is a command it had in
    // flight (each in a process group of its own, as the one process runner starts them: kubectl,
    // ip, a readiness probe's curl --max-time 2), which --clean removes if it still runs and which
    // otherwise ends by itself, within its own time limit.
    const daemons = trace.processes.filter((p) => trace.recorded.includes(p.pid));
    const inFlight = trace.processes.filter((p) => !trace.recorded.includes(p.pid));
    assert.ok(daemons.length > 0, `daemons of the killed run were running: ${JSON.stringify(trace.processes)}`);
    const clean = capture(['--clean']);
    const result = await clean.done;
    assert.equal(result.code, 0, result.stderr);
    for (const ns of trace.namespaces) assert.match(result.stderr, new RegExp(`dead lab run ${trace.runId}: removed namespace ${ns.replaceAll('.', '\\.')}`));
    for (const p of daemons) assert.match(result.stderr, new RegExp(`dead lab run ${trace.runId}: removed process ${p.pid} `));
    const ended = await waitUntil(() => !inFlight.some(stillRunning), 10_000, 50);
    assert.ok(
      ended,
      `the killed capture's in-flight commands ended: ${inFlight
        .filter(stillRunning)
        .map((p) => p.pid)
        .join(', ')}`,
    );
    assert.match(result.stderr, new RegExp(`dead capture ${trace.runId} of ${SLUG}: removed the staging folder`));
    assert.match(result.stderr, new RegExp(`dead capture ${trace.runId} of ${SLUG}: removed the lock`));
    assert.deepEqual(await settledLeftovers(trace, out), [], 'nothing of the killed run is left');
    assert.deepEqual(digest(), before, 'the previous snapshots and the foreign file are byte-identical');
    loadSnapshots(target);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test(
  'kill -9 during a step: the next capture recovers the dead run, says what it removed, and compares with the previous snapshots',
  { skip, timeout: 120_000 },
  async () => {
    assert.equal(missing, null, `prerequisites: ${missing}`);
    const { out, target, digest } = prepareOut();
    const before = digest();
    const previousRun = (load(readFileSync(join(target, 'run.yaml'), 'utf8')) as { runId: string }).runId;
    try {
      const trace = await killAt(labCapture(out), IN_STEP);
      // Killed during step 5: the whole lab ran, each component in its namespace, beside the capture's own
      // commands in flight: the step's curl, or the health check between steps, which curls kube-proxy's
      // /healthz on every node at once and reads the API server's pods with kubectl in the control plane's
      // namespace. Each `ip netns exec` is seen inside its node or, caught before it entered it, outside.
      const lab = trace.components.filter((c) => !/^(?:(?:curl|ip) in node\.[a-z0-9-]+|kubectl in node\.control-plane|ip in another namespace)$/.test(c));
      assert.deepEqual(lab, expectedComponents(['control-plane', 'worker', 'worker2'], ['default.backend']), trace.components.join(', '));
      assert.deepEqual(digest().hasOwnProperty(FOLDER) && treeDigest(target), treeDigest(COMMITTED), 'the kill left the previous snapshots as they were');
      assert.notDeepEqual(await leftovers(trace, out), []);

      const next = labCapture(out);
      const result = await next.done;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, new RegExp(`recovered: dead lab run ${trace.runId}: removed namespace `));
      assert.match(result.stderr, new RegExp(`recovered: dead lab run ${trace.runId}: removed process \\d+`));
      assert.match(result.stderr, new RegExp(`recovered: dead capture ${trace.runId} of ${SLUG}: removed the staging folder`));
      assert.doesNotMatch(result.stderr, /nothing to compare with/);
      assert.match(result.stderr, /what changed/);
      assert.deepEqual(await settledLeftovers(trace, out), [], 'nothing of the killed run is left');
      const nextTrace = { runId: runIdOf(result.stderr), processes: [] };
      assert.deepEqual(await leftovers(nextTrace, out), [], 'nothing of the next run is left');
      const snapshots = loadSnapshots(target);
      assert.equal(snapshots.run.runId, nextTrace.runId);
      assert.notEqual(snapshots.run.runId, previousRun);
      assert.equal(digest()['notes-of-someone-else.txt'], before['notes-of-someone-else.txt'], 'the foreign file is byte-identical');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);

test('kill -9 between the two renames of the swap: the build says how to recover; --clean finishes the swap', { skip, timeout: 120_000 }, async () => {
  assert.equal(missing, null, `prerequisites: ${missing}`);
  const { out, target, digest } = prepareOut();
  const foreign = digest()['notes-of-someone-else.txt'];
  try {
    const run = labCapture(out, { SHICE_TEST_PAUSE_IN_SWAP: '1' });
    const trace = await killAt(run, IN_SWAP);
    assert.equal(existsSync(target), false, 'the kill left no snapshot folder');
    // What the build's check calls for the article (integration.ts), not the loader alone.
    const defs = await loadArticle(root, SLUG);
    assert.throws(
      () => evidenceFromDisk(SLUG, target, defs, { variants: true }),
      (error: unknown) => {
        assert.ok(error instanceof EvidenceError);
        assert.match(
          error.message,
          new RegExp(
            `snapshot folder not found;.*\\.${FOLDER.replaceAll('.', '\\.')}\\.previous-${trace.runId}.*run \`npm run capture -- --clean\` \\(or the next capture\\) to finish or undo the swap`,
          ),
        );
        return true;
      },
    );
    const clean = await capture(['--clean']).done;
    assert.equal(clean.code, 0, clean.stderr);
    assert.match(clean.stderr, new RegExp(`finished the interrupted swap of run ${trace.runId}`));
    assert.equal(loadSnapshots(target).run.runId, trace.runId, 'the complete run the swap was putting in place is there');
    assert.deepEqual(await settledLeftovers(trace, out), []);
    assert.equal(digest()['notes-of-someone-else.txt'], foreign);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test(
  'two captures started together into a target locked by a dead capture: one takes the lock over and says so, the other refuses at once naming it',
  { skip, timeout: 120_000 },
  async () => {
    assert.equal(missing, null, `prerequisites: ${missing}`);
    const { out, target } = prepareOut();
    // The lock of a capture that is gone (its record lost): a pid that has ended.
    const gone = spawnSync('true');
    const deadLock = {
      pid: gone.pid,
      startTime: '1',
      runId: 'the-dead-run',
      startedAt: '2026-12-01T00:00:00.000Z',
      target,
      staging: join(out, `.${FOLDER}.staging-the-dead-run`),
      previous: join(out, `.${FOLDER}.previous-the-dead-run`),
    };
    writeFileSync(join(out, `.${FOLDER}.lock`), JSON.stringify(deadLock));
    try {
      const [a, b] = [labCapture(out), labCapture(out)];
      const [ra, rb] = await Promise.all([a.done, b.done]);
      const [winner, loser, winnerChild] = ra.code === 0 ? [ra, rb, a.child] : [rb, ra, b.child];
      assert.equal(winner.code, 0, winner.stderr);
      assert.equal(loser.code, 2, loser.stderr);
      const lines = loser.stderr
        .trimEnd()
        .split('\n')
        .filter((l) => l.startsWith('capture: ') && !l.includes('recovered'));
      assert.equal(lines.length, 1, loser.stderr);
      assert.match(lines[0]!, new RegExp(`another capture is writing this target: pid ${winnerChild.pid}, run ${runIdOf(winner.stderr)}, started `));
      // Exactly one of the two says it removed the dead capture's lock: the winner, or the loser that removed it and then lost the race for the new one.
      const dead = `pid ${gone.pid}, run the-dead-run, started 2026-12-01T00:00:00.000Z`;
      const tookOver = winner.stderr.includes(`took over the lock of a capture that is gone (${dead})`);
      const removedFirst = lines[0]!.includes(`this capture first removed the lock of a capture that is gone: ${dead}`);
      assert.ok(tookOver !== removedFirst, `${winner.stderr}\n---\n${loser.stderr}`);
      assert.doesNotMatch(loser.stderr, /\(run [0-9A-Za-z-]+\) with --driver/, 'the refused capture started nothing');
      assert.equal(loadSnapshots(target).run.runId, runIdOf(winner.stderr));
      assert.deepEqual(await leftovers({ runId: runIdOf(winner.stderr), processes: [] }, out), []);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  },
);

test('SIGTERM during a step exits 143, keeps the previous snapshots and takes the lab down', { skip, timeout: 120_000 }, async () => {
  assert.equal(missing, null, `prerequisites: ${missing}`);
  const { out, digest } = prepareOut();
  const before = digest();
  try {
    const run = labCapture(out);
    await run.reached(IN_STEP);
    const trace = await traceRun(runIdOf(run.stderr()));
    run.child.kill('SIGTERM');
    const result = await run.done;
    assert.equal(result.code, 143, result.stderr);
    assert.match(result.stderr, /interrupted; the snapshots were left as they were/);
    assert.deepEqual(digest(), before);
    assert.deepEqual(await settledLeftovers(trace, out), []);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('--out into a folder holding other files, and into content/articles, is refused before any work; nothing is touched', { timeout: 60_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'shice-fault-foreign-'));
  const articles = join(root, 'content/articles');
  try {
    const target = join(out, FOLDER);
    cpSync(COMMITTED, target, { recursive: true });
    writeFileSync(join(target, 'my-notes.txt'), 'mine\n');
    const beforeOut = treeDigest(out);
    const beforeArticles = treeDigest(articles);
    const registryBefore = readRecords();
    for (const [dir, expected] of [
      [out, /holds what a capture did not write \(my-notes\.txt\)/],
      [articles, /is the articles folder, where the committed snapshots live/],
      [join(articles, SLUG), /is inside the articles folder \(074-external-traffic-policy\)/],
    ] as const) {
      const result = await capture([SLUG, '--driver', 'lab', '--out', dir]).done;
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, expected);
      assert.match(result.stderr, /nothing was touched$/m);
    }
    assert.deepEqual(treeDigest(out), beforeOut);
    assert.deepEqual(treeDigest(articles), beforeArticles);
    assert.deepEqual(readRecords(), registryBefore, 'no run was recorded: none started');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test(
  'a real lab step printing bytes that are not UTF-8 and 3 MiB of output: stored losslessly and cut, shown escaped with a note',
  { skip, timeout: 120_000 },
  async () => {
    assert.equal(missing, null, `prerequisites: ${missing}`);
    const out = mkdtempSync(join(tmpdir(), 'shice-fault-bytes-'));
    const runId = makeRunId(new Date());
    const articleDir = join(root, 'content/articles', SLUG);
    const silent: CaptureReporter = { phase() {}, stepStarted() {}, stepFinished() {} };
    const hostile = {
      ...experiment,
      steps: [
        {
          kind: 'exec' as const,
          id: 'binary-output',
          node: 'worker',
          title: 'bytes that are not UTF-8',
          command: () => ['sh', '-c', "printf 'client=\\377\\376 ok\\n'; printf '\\300 err' >&2"],
        },
        { kind: 'exec' as const, id: 'huge-output', node: 'worker', title: '3 MiB of output', command: () => ['sh', '-c', 'yes 实测 | head -c 3145728'] },
      ],
    };
    // The run's driver is built for the variant the capture runs: the default one.
    const driver = labDriver.create(experimentForVariant(hostile, defaultVariant(hostile)), {
      runId,
      kubernetes: HEADLINE_RELEASE,
      articleDir,
      root,
      keep: false,
      flags: {},
    });
    try {
      const started = performance.now();
      await runCapture({
        experiment: hostile,
        driver,
        articleDir,
        kubernetes: HEADLINE_RELEASE,
        target: join(out, SLUG),
        runId,
        signal: new AbortController().signal,
        reporter: silent,
        git: { commit: null, dirty: false },
        host: { os: 'linux', arch: process.arch, kernel: 'test' },
      });
      const ms = performance.now() - started;
      const snapshots = loadSnapshots(join(out, SLUG));
      const binary = snapshots.steps.get('binary-output')!;
      assert.equal(binary.stdoutEncoding, 'base64');
      assert.deepEqual(Buffer.from(binary.stdout, 'base64'), Buffer.from([...Buffer.from('client='), 0xff, 0xfe, ...Buffer.from(' ok\n')]));
      assert.equal(binary.stderrEncoding, 'base64');
      assert.equal(readableStep(binary).stdout, 'client=\\xff\\xfe ok\n');
      assert.equal(outputBlocks(binary)[0]!.code, 'client=\\xff\\xfe ok');
      assert.match(streamNoteText(binary, 'stdout', 'zh')!, /非 UTF-8/);
      assert.ok(!JSON.stringify(binary).includes('\uFFFD'), 'no replacement character anywhere');

      const huge = snapshots.steps.get('huge-output')!;
      assert.equal(huge.stdoutCut?.bytes, 3145728);
      assert.match(huge.stdoutCut!.sha256, /^[0-9a-f]{64}$/);
      assert.ok(Buffer.byteLength(huge.stdout) <= STREAM_LIMIT_BYTES && Buffer.byteLength(huge.stdout) > STREAM_LIMIT_BYTES - 4);
      assert.ok(
        huge.stdout.endsWith('测\n') || huge.stdout.endsWith('实') || huge.stdout.endsWith('测') || huge.stdout.endsWith('\n'),
        'cut between characters',
      );
      assert.throws(() => readableStep(huge).stdout, /huge-output's stdout was cut by the capture: \d+ of 3145728 bytes kept/);
      assert.match(streamNoteText(huge, 'stdout', 'en')!, /of 3145728 bytes are kept and shown/);
      const fileSize = readFileSync(join(out, SLUG, 'huge-output.yaml')).length;
      assert.ok(fileSize < 2 * STREAM_LIMIT_BYTES, `the step file is ${fileSize} bytes`);
      process.stdout.write(`# hostile-output capture: ${(ms / 1000).toFixed(2)} s, huge-output.yaml ${fileSize} bytes\n`);
      assert.deepEqual(await leftovers({ runId, processes: [] }, out), []);
    } finally {
      await driver.provider.down({ log: () => {} });
      rmSync(out, { recursive: true, force: true });
    }
  },
);
