// The swap of several targets, all or none (src/capture/snapshots/swap-together.ts): a
// failure midway puts back the targets already swapped and says so; a kill -9
// midway is finished or undone for every target by recovery, from the journal
// written beside each target before the first rename.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { journalPath, swapInTogether, SwapTogetherError, type StagedRun } from '../../src/capture/snapshots/swap-together.ts';
import { settleSwap } from '../../src/capture/recovery/recover.ts';
import { swapPaths } from '../../src/capture/snapshots/snapshot-writer.ts';

/** Two targets with their old runs and two staged new ones beside them. */
function scene() {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-swap-together-'));
  const runs = ['a', 'b'].map((name) => {
    const target = join(tmp, name, 'snapshots');
    const runId = `run-${name}`;
    const paths = swapPaths(target, runId);
    for (const [dir, text] of [
      [target, 'old'],
      [paths.staging, 'new'],
    ] as const) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'run.yaml'), `${text} ${name}\n`);
    }
    const run: StagedRun = { runId, dir: paths.staging, target, previous: paths.previous, mayReplace: () => true };
    return run;
  });
  const held = (i: number) => readFileSync(join(runs[i]!.target, 'run.yaml'), 'utf8');
  const beside = () => ['a', 'b'].flatMap((n) => readdirSync(join(tmp, n)).filter((f) => f.startsWith('.')));
  return { tmp, runs, held, beside };
}

test('a target refused when judged again: nothing is renamed, and the message says nothing was swapped in', async () => {
  const { tmp, runs, held, beside } = scene();
  try {
    runs[1] = { ...runs[1]!, mayReplace: () => false };
    await assert.rejects(swapInTogether(runs), (error: SwapTogetherError) => {
      assert.ok(error instanceof SwapTogetherError && error.settled);
      assert.match(
        error.message,
        /b\/snapshots no longer holds only a snapshot folder of this article; nothing was swapped in, all 2 target\(s\) as they were$/,
      );
      return true;
    });
    assert.deepEqual([held(0), held(1)], ['old a\n', 'old b\n']);
    assert.deepEqual(beside().sort(), ['.snapshots.staging-run-a', '.snapshots.staging-run-b']);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the second rename fails: the first target is put back, and the message says exactly that', async () => {
  const { tmp, runs, held, beside } = scene();
  try {
    // Its staged run vanishes once judged: the rename into the second target fails midway.
    const second = runs[1]!;
    runs[1] = { ...second, mayReplace: () => (rmSync(second.dir, { recursive: true }), true) };
    await assert.rejects(swapInTogether(runs), (error: SwapTogetherError) => {
      assert.ok(error instanceof SwapTogetherError && error.settled);
      assert.match(
        error.message,
        /b\/snapshots: could not be swapped in \(ENOENT\); the 1 target\(s\) swapped before it were put back, so nothing was swapped in, all 2 target\(s\) as they were$/,
      );
      return true;
    });
    assert.deepEqual([held(0), held(1)], ['old a\n', 'old b\n']);
    // The first staged run is back beside its target for the caller to discard; no journal, nothing set aside.
    assert.deepEqual(beside(), ['.snapshots.staging-run-a']);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a kill -9 between two targets: recovery finishes every target from the journal while it says swapping, and undoes every one once it says undoing', () => {
  for (const state of ['swapping', 'undoing'] as const) {
    const { tmp, runs, held, beside } = scene();
    try {
      const entries = runs.map((r) => ({ runId: r.runId, target: r.target, staging: r.dir, previous: r.previous, hadTarget: true }));
      for (const r of runs) writeFileSync(journalPath(r.target, r.runId), JSON.stringify({ journal: 'shice-swap', state, entries }));
      // Killed after the first target was swapped and the second set aside.
      renameSync(runs[0]!.target, runs[0]!.previous);
      renameSync(runs[0]!.dir, runs[0]!.target);
      renameSync(runs[1]!.target, runs[1]!.previous);
      // Recovery finds the second run's record first.
      const lines = settleSwap({ ...runs[1]!, staging: runs[1]!.dir }, runs[1]!.runId);
      assert.equal(lines.length, 1);
      if (state === 'swapping') {
        assert.match(
          lines[0]!,
          /^finished the interrupted swap of run run-b, run run-a \(2 target\(s\) together\)|^finished the interrupted swap of run run-a, run run-b \(2 target\(s\) together\): .*now hold the new runs$/,
        );
        assert.deepEqual([held(0), held(1)], ['new a\n', 'new b\n']);
      } else {
        assert.match(lines[0]!, /^undid the interrupted swap of run run-a, run run-b \(2 target\(s\) together\): .*hold the previous snapshots again$/);
        assert.deepEqual([held(0), held(1)], ['old a\n', 'old b\n']);
      }
      assert.deepEqual(beside(), [], 'no journal, staging or set-aside folder left');
      // The first run's record then finds nothing left to do.
      assert.deepEqual(settleSwap({ ...runs[0]!, staging: runs[0]!.dir }, runs[0]!.runId), []);
      assert.ok(!existsSync(journalPath(runs[0]!.target, runs[0]!.runId)));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
});
