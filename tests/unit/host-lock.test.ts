// The lock for a moment's work on something the whole host shares: holders take
// turns, a dead holder's lock is taken over, a live one is waited for and named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withHostLock } from '../../src/capture/recovery/host-lock.ts';
import { processStartTime } from '../../src/capture/machine/process-identity.ts';

const temp = () => mkdtempSync(join(tmpdir(), 'shice-host-lock-'));

test('two holders take turns: the second starts only after the first has ended, and nothing is left', async () => {
  const dir = temp();
  try {
    const lock = join(dir, 'x.lock');
    const events: string[] = [];
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    const first = withHostLock(lock, async () => {
      events.push('first in');
      await firstMayEnd;
      events.push('first out');
    });
    const second = withHostLock(lock, async () => {
      events.push('second in');
      return 7;
    });
    // The second waits on the lock file, which is the first's until it ends.
    assert.ok(existsSync(lock));
    releaseFirst();
    assert.equal(await second, 7);
    await first;
    assert.deepEqual(events, ['first in', 'first out', 'second in']);
    assert.deepEqual(readdirSync(dir), [], 'the lock and its drafts are gone');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a killed holder (or unreadable) is taken over; a live holder is waited for, then named', async () => {
  const dir = temp();
  try {
    const lock = join(dir, 'x.lock');
    writeFileSync(lock, JSON.stringify({ pid: spawnSync('true').pid, startTime: '1' }));
    assert.equal(await withHostLock(lock, async () => 'after a dead holder'), 'after a dead holder');
    writeFileSync(lock, '{"pid":');
    assert.equal(await withHostLock(lock, async () => 'after an unreadable lock'), 'after an unreadable lock');
    assert.deepEqual(readdirSync(dir), []);

    // The parent process (the test runner) lives for the whole test: a holder that is alive.
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, startTime: processStartTime(process.ppid) }));
    await assert.rejects(
      withHostLock(lock, async () => 'never', 200),
      new RegExp(`^DriverError: ${lock.replaceAll('.', '\\.')}: held by pid ${process.ppid} for more than 0\\.2 s$`),
    );
    assert.ok(existsSync(lock), 'a live holder’s lock stays');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
