// What the kernel tests share: a test that runs only where the lab can (and
// fails on CI where it cannot), and the checks that nothing of a run is left.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test, type TestContext } from 'node:test';
import { execa } from 'execa';
import { LAB_PREFIX, runFolder } from '../../src/capture/lab/names.ts';
import { isAlive } from '../../src/capture/lab/processes.ts';
import { labUnavailable } from '../../src/capture/lab/tools.ts';

export const unavailable = labUnavailable();
const onCI = process.env.CI === 'true';

export function kernelTest(name: string, body: (t: TestContext) => Promise<void>): void {
  const skip = unavailable !== null && !onCI ? `lab prerequisites missing: ${unavailable}` : false;
  test(name, { skip, timeout: 180_000 }, async (t) => {
    if (unavailable !== null) assert.fail(`CI=true and the lab cannot run here: ${unavailable}`);
    await body(t);
  });
}

/** Names from `ip netns list` (`name` or `name (id: N)` per line): the tests read the tool itself, not the driver's way. */
export const netnsNames = (output: string): string[] => output.split('\n').map((line) => line.trim().split(/\s+/)[0] ?? '').filter((name) => name !== '');

export const newRunId = (what: string): string => `test-${what}-${randomBytes(3).toString('hex')}`;

export async function labNamespaces(runId: string): Promise<string[]> {
  const { stdout } = await execa('ip', ['netns', 'list']);
  return netnsNames(stdout).filter((ns) => ns.startsWith(`${LAB_PREFIX}${runId}.`));
}

/** Live processes whose command line mentions the run (its folder or its namespaces). */
export function runProcesses(runId: string): number[] {
  const marker = `${LAB_PREFIX}${runId}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && isAlive(pid);
      } catch {
        return false;
      }
    });
}

/** Mount points of the run (ip netns's bind mounts under /run/netns), as this process's mount table shows them. */
export function runMounts(runId: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((line) => line.includes(`${LAB_PREFIX}${runId}`));
}

/**
 * The root namespace's listening sockets (TCP and UDP) whose owner is a
 * process of the run, as `ss -p` names the owners: none may exist, since
 * everything of the lab listens inside its own namespaces.
 */
export async function runListenersInRoot(runId: string): Promise<string[]> {
  const { stdout } = await execa('ss', ['-H', '-l', '-t', '-u', '-n', '-p']);
  const ours = new Set(runProcesses(runId));
  return stdout.split('\n').filter((line) => [...line.matchAll(/pid=(\d+)/g)].some((m) => ours.has(Number(m[1]))));
}

export async function assertNothingLeft(runId: string): Promise<void> {
  assert.deepEqual(await labNamespaces(runId), [], 'namespaces left behind');
  assert.deepEqual(runProcesses(runId), [], 'processes left behind');
  assert.deepEqual(runMounts(runId), [], 'mounts left behind');
  assert.equal(existsSync(runFolder(runId)), false, 'run folder left behind');
}

