// The one process runner: time limits end the whole process group, interrupts
// do too, output beyond what is kept is counted and hashed, not held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { runProcess, text, waitUntil } from '../../src/capture/machine/process.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
};

test('a command runs with its exit code and its bytes as they came', async () => {
  const run = await runProcess(['sh', '-c', 'printf "a\\377b"; printf err >&2; exit 3'], { timeoutMs: 5000 });
  assert.equal(run.exitCode, 3);
  assert.deepEqual([...run.stdout.head], [0x61, 0xff, 0x62]);
  assert.equal(text(run.stderr), 'err');
  assert.equal(run.timedOut, false);
  assert.equal(run.canceled, false);
});

test('echo passes the output on to this process as it arrives, and keeps it all the same', async () => {
  const runner = JSON.stringify(new URL('../../src/capture/machine/process.ts', import.meta.url).href);
  const script = `import { runProcess, text } from ${runner};
const r = await runProcess(['sh', '-c', 'printf out; printf err >&2'], { timeoutMs: 5000, echo: true });
process.stdout.write('|kept:' + text(r.stdout) + text(r.stderr));`;
  const run = await runProcess([process.execPath, '--input-type=module', '-e', script], { timeoutMs: 30_000 });
  assert.equal(text(run.stdout), 'out|kept:outerr');
  assert.equal(text(run.stderr), 'err');
});

test('a missing program is reported as missing, not thrown', async () => {
  const run = await runProcess(['shice-no-such-program'], { timeoutMs: 5000 });
  assert.equal(run.missing, true);
  assert.equal(run.exitCode, null);
  assert.match(run.spawnError ?? '', /ENOENT/);
});

test('input reaches the child on stdin', async () => {
  const run = await runProcess(['cat'], { timeoutMs: 5000, input: 'from stdin' });
  assert.equal(text(run.stdout), 'from stdin');
});

test('a time limit ends the whole process group, children included', async () => {
  // The shell starts a grandchild that would outlive a kill of the shell alone.
  const run = await runProcess(['sh', '-c', 'sleep 30 & echo $!; wait'], { timeoutMs: 300, graceMs: 200 });
  assert.equal(run.timedOut, true);
  assert.equal(run.signal, 'SIGTERM');
  assert.equal(run.exitCode, 128 + 15);
  const grandchild = Number(text(run.stdout).trim());
  assert.ok(grandchild > 0);
  assert.ok(await waitUntil(() => !alive(grandchild), 2000, 20), `sleep ${grandchild} still runs after the time limit`);
});

test('a process that ignores SIGTERM is killed after the grace period', async () => {
  const started = performance.now();
  const run = await runProcess(['sh', '-c', 'trap "" TERM; sleep 30'], { timeoutMs: 200, graceMs: 300 });
  assert.equal(run.timedOut, true);
  assert.equal(run.signal, 'SIGKILL');
  assert.ok(performance.now() - started < 5000);
});

test('an abort ends the process group and says it was canceled', async () => {
  const controller = new AbortController();
  const pending = runProcess(['sleep', '30'], { timeoutMs: 60_000, signal: controller.signal });
  setImmediate(() => controller.abort());
  const run = await pending;
  assert.equal(run.canceled, true);
  assert.equal(run.timedOut, false);
  const before = await runProcess(['true'], { timeoutMs: 1000, signal: controller.signal });
  assert.equal(before.canceled, true, 'a call after the abort does not start');
  assert.equal(before.exitCode, null);
});

test('output past keepBytes is counted and hashed, not kept', async () => {
  const bytes = 3 * 1024 * 1024;
  const run = await runProcess(['head', '-c', String(bytes), '/dev/zero'], { timeoutMs: 10_000, keepBytes: 1000 });
  assert.equal(run.exitCode, 0);
  assert.equal(run.stdout.head.length, 1000);
  assert.equal(run.stdout.bytes, bytes);
  assert.equal(run.stdout.sha256, createHash('sha256').update(Buffer.alloc(bytes)).digest('hex'));
});

test('a call without a time limit is refused', () => {
  assert.throws(() => runProcess(['true'], { timeoutMs: 0 }), /positive time limit/);
});
