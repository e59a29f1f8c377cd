// The lock beside a target and the registry of runs: who holds what, told by
// pid and start time, and what happens when the holder is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, LockHeld, type LockInfo } from '../../src/capture/recovery/lock.ts';
import { currentOwner, forgetRecord, ownerAlive, readRecords, recordCapture, recordRun } from '../../src/capture/recovery/run-registry.ts';
import { processGroup, processStartTime, stillRunning } from '../../src/capture/machine/process-identity.ts';
import { clip } from '../../src/capture/machine/clip.ts';

const temp = () => mkdtempSync(join(tmpdir(), 'shice-lock-'));
/** A pid that has just ended. */
const deadPid = () => spawnSync('true').pid!;

function info(dir: string, runId: string, owner = currentOwner()): LockInfo {
  return {
    pid: owner.pid,
    startTime: owner.startTime,
    runId,
    startedAt: '2026-12-02T00:00:00.000Z',
    target: join(dir, 's'),
    staging: join(dir, `.s.staging-${runId}`),
    previous: join(dir, `.s.previous-${runId}`),
  };
}

test('a lock held by a live process is refused, naming its pid, run and start', () => {
  const dir = temp();
  try {
    const lockFile = join(dir, '.s.lock');
    const first = acquireLock(lockFile, info(dir, 'run-a'));
    assert.equal(first.tookOver, null);
    assert.throws(
      () => acquireLock(lockFile, info(dir, 'run-b')),
      (error: unknown) => {
        assert.ok(error instanceof LockHeld);
        assert.equal(
          error.message,
          `another capture is writing this target: pid ${process.pid}, run run-a, started 2026-12-02T00:00:00.000Z; wait for it to end (or stop it) and try again`,
        );
        return true;
      },
    );
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).runId, 'run-a', 'the refused capture did not touch the lock');
    first.release();
    assert.equal(existsSync(lockFile), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the lock of a dead owner (or an unreadable one) is taken over and reported; release removes only one's own lock", () => {
  const dir = temp();
  try {
    const lockFile = join(dir, '.s.lock');
    const dead = info(dir, 'dead-run', { pid: deadPid(), startTime: '1' });
    writeFileSync(lockFile, JSON.stringify(dead));
    const lock = acquireLock(lockFile, info(dir, 'run-c'));
    assert.deepEqual(lock.tookOver, dead);
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).runId, 'run-c');
    assert.deepEqual(readdirSync(dir), ['.s.lock'], 'nothing set aside is left');
    // A pid that lives but started at another time is another process: its lock is dead too.
    lock.release();
    writeFileSync(lockFile, JSON.stringify(info(dir, 'reused-pid', { pid: process.pid, startTime: 'not-this-one' })));
    const second = acquireLock(lockFile, info(dir, 'run-d'));
    assert.equal(second.tookOver?.runId, 'reused-pid');
    // Someone else's lock is not released by us.
    writeFileSync(lockFile, JSON.stringify(info(dir, 'someone-else')));
    second.release();
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).runId, 'someone-else');
    writeFileSync(lockFile, '{"half');
    const third = acquireLock(lockFile, info(dir, 'run-e'));
    assert.equal(third.tookOverUnreadable, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('records: written before use, read back validated, a bad file named and never acted on, removed when done', () => {
  const dir = temp();
  try {
    const owner = currentOwner();
    assert.equal(owner.pid, process.pid);
    assert.equal(owner.startTime, processStartTime(process.pid));
    assert.equal(ownerAlive(owner), true);
    assert.equal(ownerAlive({ pid: deadPid(), startTime: owner.startTime }), false);
    recordCapture(
      {
        kind: 'capture',
        runId: 'r1',
        slug: 'a',
        owner,
        startedAt: 'now',
        target: '/x/s',
        staging: '/x/.s.staging-r1',
        previous: '/x/.s.previous-r1',
        lock: '/x/.s.lock',
      },
      dir,
    );
    recordRun(
      { runId: 'r1', namespaces: ['shice-lab-r1.bridge'], processes: [{ pid: 5, startTime: '9', label: 'nginx' }], folders: ['/tmp/shice-lab-r1'] },
      dir,
    );
    writeFileSync(join(dir, 'r2.lab.json'), '{"kind":"lab","runId":"r2"}');
    const records = readRecords(dir);
    assert.equal(records.captures[0]!.target, '/x/s');
    assert.deepEqual(
      records.runs.map((r) => [r.runId, r.owner.pid, r.kind === 'lab' ? r.namespaces : r.kind]),
      [['r1', process.pid, ['shice-lab-r1.bridge']]],
    );
    assert.deepEqual(records.unreadable, [join(dir, 'r2.lab.json')]);
    assert.throws(() => recordRun({ runId: 'bad id', namespaces: [], processes: [], folders: [] }, dir));
    assert.throws(() => recordRun({ runId: 'r3', namespaces: [], processes: [], folders: ['relative/path'] }, dir));
    forgetRecord('capture', 'r1', dir);
    forgetRecord('lab', 'r1', dir);
    assert.deepEqual(readdirSync(dir), ['r2.lab.json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('clip keeps short values and cuts long ones, saying how long they were', () => {
  assert.equal(clip('short'), 'short');
  assert.equal(clip('x'.repeat(100_000), 10), 'xxxxxxxxxx… (100000 characters)');
});

test('a process is known by pid and start time: this one runs, a changed start time or no start time is another', () => {
  const me = { pid: process.pid, startTime: processStartTime(process.pid) };
  assert.equal(stillRunning(me), true);
  assert.equal(stillRunning({ ...me, startTime: `${me.startTime}0` }), false);
  assert.equal(stillRunning({ ...me, startTime: null }), false);
  assert.equal(
    processGroup(process.pid),
    Number(spawnSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8' }).stdout.trim()),
    'as ps reports it',
  );
  assert.equal(processGroup(2 ** 22 + 1), null, 'beyond pid_max: no such process');
});
