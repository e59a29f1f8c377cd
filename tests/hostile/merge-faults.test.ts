// capture:merge killed and interrupted, on a copy of the project: a kill -9
// between the two renames of a swap, or between the swaps of two targets, is
// finished by `capture --clean` from the merge's records and journal; a SIGTERM while the runs are judged leaves every target as it
// was and nothing beside it. The run merged is the lab run recorded as a fixture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { projectCopy } from '../support/project-copy.ts';
import { treeDigest } from '../support/tree-digest.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const SLUG = '074-external-traffic-policy';
const SAMPLE = join(root, 'tests/fixtures/snapshots/074-sample');

function scene() {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-merge-fault-'));
  const project = projectCopy(root, tmp);
  const runs = join(tmp, 'runs/run-074-lab-iptables');
  mkdirSync(runs, { recursive: true });
  cpSync(SAMPLE, join(runs, `${SLUG}.lab`), { recursive: true });
  const env = { ...process.env, SHICE_RUN_REGISTRY: join(tmp, 'registry'), SHICE_KEPT_RUNS: join(tmp, 'kept') };
  const start = (script: string, args: string[], extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [join(project, 'scripts', script), ...args], { cwd: project, env: { ...env, ...extra } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stderr })),
    );
    const until = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const check = () => (pattern.test(stderr) ? resolve() : undefined);
        child.stderr.on('data', check);
        child.on('close', () => reject(new Error(`ended before ${pattern}: ${stderr}`)));
        check();
      });
    return { child, done, until };
  };
  const article = join(project, 'content/articles', SLUG);
  return { tmp, project, runs, article, start };
}

test(
  'kill -9 between the two renames of a merge: capture --clean finishes the swap from the record, nothing is left beside it',
  { timeout: 120_000 },
  async () => {
    const { tmp, runs, article, start } = scene();
    try {
      const merge = start('capture-merge.ts', [runs, '--variant', 'iptables'], { SHICE_TEST_PAUSE_IN_SWAP: '1' });
      await merge.until(/swap: paused between the two renames/);
      merge.child.kill('SIGKILL');
      const killed = await merge.done;
      assert.equal(killed.signal, 'SIGKILL');
      assert.ok(
        readdirSync(article).some((n) => n.startsWith('.snapshots.lab.previous-')),
        'the kill left the swap half done',
      );

      const clean = await start('capture.ts', ['--clean']).done;
      assert.equal(clean.code, 0, clean.stderr);
      assert.match(clean.stderr, /finished the interrupted swap of run 20261206T144026Z-8bcb7d/);
      assert.equal(loadSnapshots(join(article, 'snapshots.lab')).run.runId, '20261206T144026Z-8bcb7d', 'the run the merge was putting in place is there');
      assert.deepEqual(treeDigest(join(article, 'snapshots.lab')), treeDigest(SAMPLE));
      assert.deepEqual(
        readdirSync(article).filter((n) => n.startsWith('.')),
        [],
        'no staging, previous or lock left',
      );
      assert.deepEqual(readdirSync(join(tmp, 'registry')), [], 'no record left');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
);

test(
  'kill -9 between the swaps of two targets: capture --clean finishes both from the journal, none is left new beside one left old',
  { timeout: 120_000 },
  async () => {
    const { tmp, runs, article, start } = scene();
    try {
      cpSync(join(article, 'snapshots.lab.nftables'), join(runs, `${SLUG}.lab.nftables`), { recursive: true });
      const nftables = treeDigest(join(article, 'snapshots.lab.nftables'));
      const merge = start('capture-merge.ts', [runs], { SHICE_TEST_PAUSE_IN_SWAP: 'between-targets' });
      await merge.until(/swap: paused between two targets/);
      merge.child.kill('SIGKILL');
      assert.equal((await merge.done).signal, 'SIGKILL');
      const beside = readdirSync(article).filter((n) => n.startsWith('.'));
      assert.ok(
        beside.some((n) => n.startsWith('.snapshots.lab.previous-')) && beside.some((n) => n.startsWith('.snapshots.lab.nftables.swap-')),
        beside.join(' '),
      );

      const clean = await start('capture.ts', ['--clean']).done;
      assert.equal(clean.code, 0, clean.stderr);
      assert.match(clean.stderr, /finished the interrupted swap of run 20261206T144026Z-8bcb7d, run \S+ \(2 target\(s\) together\)/);
      assert.deepEqual(treeDigest(join(article, 'snapshots.lab')), treeDigest(SAMPLE), 'the first target holds its new run');
      assert.deepEqual(treeDigest(join(article, 'snapshots.lab.nftables')), nftables, 'the second target holds its new run (the same run merged again)');
      assert.deepEqual(
        readdirSync(article).filter((n) => n.startsWith('.')),
        [],
        'no journal, staging, previous or lock left',
      );
      assert.deepEqual(readdirSync(join(tmp, 'registry')), [], 'no record left');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
);

test('SIGTERM before the swap: the merge ends at once and touches nothing', { timeout: 120_000 }, async () => {
  const { tmp, project, runs, start } = scene();
  try {
    const before = treeDigest(join(project, 'content'));
    const merge = start('capture-merge.ts', [runs, '--variant', 'iptables']);
    // The signal lands while Node starts or the runs are judged: 143 from the merge's handler, or Node's own death by SIGTERM before it is set.
    merge.child.kill('SIGTERM');
    const ended = await merge.done;
    assert.ok(ended.code === 143 || ended.signal === 'SIGTERM', `${ended.code} ${ended.signal} ${ended.stderr}`);
    assert.deepEqual(treeDigest(join(project, 'content')), before, 'every target as it was, nothing beside it');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a step file of the input replaced the moment the target's lock appears: what is swapped in is what was judged", { timeout: 180_000 }, async () => {
  const outcomes: string[] = [];
  for (let round = 0; round < 3; round += 1) {
    const { tmp, project, runs, article, start } = scene();
    try {
      const before = treeDigest(join(project, 'content'));
      const step = join(runs, `${SLUG}.lab`, 'cluster-via-worker.yaml');
      const lock = join(article, '.snapshots.lab.lock');
      // Watched before the merge starts, so the lock's creation cannot be missed.
      const locked = new Promise<void>((resolve) => {
        const watcher = watch(article, () => {
          if (existsSync(lock)) {
            watcher.close();
            resolve();
          }
        });
      });
      const merge = start('capture-merge.ts', [runs, '--variant', 'iptables']);
      await Promise.race([locked, merge.done]);
      // The backend now "sees" the client itself: claim cluster-hides-client breaks.
      writeFileSync(step, readFileSync(step, 'utf8').replace('client=10.245.2.1', 'client=172.20.0.3'));
      const ended = await merge.done;
      assert.ok(ended.code === 0 || ended.code === 3, ended.stderr);
      if (ended.code === 3) {
        assert.match(ended.stderr, /on the copy beside the target \d+ claim\(s\) no longer hold: .*cluster-hides-client/);
        assert.deepEqual(treeDigest(join(project, 'content')), before, 'refused: every target as it was, nothing beside it');
      } else {
        // Copied before the change: what was judged (the fixture) is what is there.
        assert.deepEqual(treeDigest(join(article, 'snapshots.lab')), treeDigest(SAMPLE));
      }
      outcomes.push(ended.code === 3 ? 'refused' : 'copied first');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  assert.ok(outcomes.includes('refused'), `the change landed before the copy at least once: ${outcomes.join(', ')}`);
});

test(
  'hostile merge inputs are refused before anything is touched: a kind run relabelled as the lab, a YAML alias, a committed run id, a report aimed at a snapshot, a folder, a device or a file that is no report',
  { timeout: 180_000 },
  async () => {
    const { tmp, project, runs, article, start } = scene();
    try {
      const before = treeDigest(join(project, 'content'));
      const input = join(runs, `${SLUG}.lab`);
      const reset = () => {
        rmSync(input, { recursive: true, force: true });
        cpSync(SAMPLE, input, { recursive: true });
      };
      const edit = (file: string, change: (text: string) => string) => writeFileSync(join(input, file), change(readFileSync(join(input, file), 'utf8')));
      const refused = async (what: string, args: string[], code: number, line: RegExp) => {
        const ended = await start('capture-merge.ts', [runs, '--variant', 'iptables', ...args]).done;
        assert.equal(ended.code, code, `${what}: ${ended.stderr}`);
        assert.match(ended.stderr, line, what);
        assert.deepEqual(treeDigest(join(project, 'content')), before, `${what}: every target as it was, nothing beside it`);
        reset();
      };
      // The committed kind run, relabelled as the lab's (with a run id of its own, so only what it holds gives it away).
      rmSync(input, { recursive: true });
      cpSync(join(article, 'snapshots'), input, { recursive: true });
      edit('run.yaml', (t) => t.replace('driver: kind', 'driver: lab').replace(/^runId: (\S+)-\w{6}$/m, 'runId: $1-fa1ce0'));
      await refused('a kind run relabelled as the lab', [], 1, /field "argv": expected a command entered by ip netns exec shice-lab-/);
      edit('cluster-via-worker.yaml', (t) =>
        t.replace(/^title: .*$/m, `title: &big ${'x'.repeat(1000)}`).replace(/^argv:\n/m, `argv:\n${'  - *big\n'.repeat(100)}`),
      );
      await refused('a YAML alias', [], 1, /a YAML alias \(\*name\); expected none/);
      const committedId = /^runId: (\S+)$/m.exec(readFileSync(join(article, 'snapshots.lab.nftables', 'run.yaml'), 'utf8'))![1]!;
      edit('run.yaml', (t) => t.replace(/^runId: \S+$/m, `runId: ${committedId}`));
      await refused(
        'a committed run id',
        [],
        2,
        new RegExp(`run id ${committedId} is also the run id of the committed run in content/articles/${SLUG}/snapshots\\.lab\\.nftables`),
      );
      writeFileSync(join(tmp, 'notes.md'), 'not a report\n');
      for (const [what, report, line] of [
        ['a snapshot', join(article, 'snapshots', 'run.yaml'), /is inside content\/ of the checkout/],
        ['a folder', tmp, /is a folder; expected a new file or a regular file/],
        ['a device', '/dev/full', /is not a regular file/],
        ['a file that is no report', join(tmp, 'notes.md'), /exists and is not a report this command wrote/],
      ] as const) {
        await refused(`--report on ${what}`, ['--report', report], 2, line);
      }
      assert.equal(readFileSync(join(tmp, 'notes.md'), 'utf8'), 'not a report\n');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
);
