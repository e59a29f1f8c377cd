// What the kernel tests share: a test that runs only where the lab can (and
// fails on CI where it cannot), and the checks that nothing of a run is left.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { test, type TestContext } from 'node:test';
import { execa } from 'execa';
import { LAB_PREFIX, runFolder } from '../../src/capture/lab/names.ts';
import { isAlive, waitUntil } from '../../src/capture/machine/process.ts';
import { labUnavailable } from '../../src/capture/lab/tools.ts';

export const unavailable = labUnavailable();
const onCI = process.env.CI === 'true';

export function kernelTest(name: string, body: (t: TestContext) => Promise<void>, timeoutMs = 180_000): void {
  const skip = unavailable !== null && !onCI ? `lab prerequisites missing: ${unavailable}` : false;
  test(name, { skip, timeout: timeoutMs }, async (t) => {
    if (unavailable !== null) assert.fail(`CI=true and the lab cannot run here: ${unavailable}`);
    await body(t);
  });
}

/** Names from `ip netns list` (`name` or `name (id: N)` per line): the tests read the tool itself, not the driver's way. */
export const netnsNames = (output: string): string[] =>
  output
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');

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

/** The inode of a network namespace file (`/proc/<pid>/ns/net`, `/run/netns/<name>`), or null when it is gone. */
function netnsInode(path: string): number | null {
  try {
    return statSync(path).ino;
  } catch {
    return null;
  }
}

/** What a process runs, from its command line: the lab kubelet by its folder, nginx as it renames itself ("nginx: worker process"), else argv[0]'s name. */
function programOf(argv: string[]): string {
  if (argv.some((a) => a.includes('/lab/kubelet/'))) return 'lab-kubelet';
  return basename(argv[0]!.split(' ')[0]!.replace(/:$/, ''));
}

const readArgv = (pid: number): string[] | null => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return null;
  }
};

/** The parent of a process, from /proc/<pid>/stat (its fourth field, after the command in parentheses). */
const parentOf = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
};

/** What kube-proxy runs for a moment at each sync (iptables-restore, nft, conntrack, ...): its own, never a component. */
const isKubeProxyTool = (pid: number): boolean => {
  const parent = parentOf(pid);
  const argv = parent === null ? null : readArgv(parent);
  return argv !== null && argv.length > 0 && programOf(argv) === 'kube-proxy';
};

/**
 * Every process of the run as `<program> in <namespace>`, sorted: those inside
 * its namespaces (read from /proc/<pid>/ns/net against /run/netns, named after
 * the run's prefix) and those elsewhere whose command line names the run ("in
 * another namespace"). What runs where, as the kernel sees it.
 */
export async function runComponents(runId: string): Promise<string[]> {
  const prefix = `${LAB_PREFIX}${runId}.`;
  const byInode = new Map<number, string>();
  for (const ns of await labNamespaces(runId)) {
    const inode = netnsInode(`/run/netns/${ns}`);
    if (inode !== null) byInode.set(inode, ns.slice(prefix.length));
  }
  const found: string[] = [];
  for (const pid of readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)) {
    const argv = readArgv(pid);
    if (argv === null || argv.length === 0 || !isAlive(pid) || isKubeProxyTool(pid)) continue;
    const inside = byInode.get(netnsInode(`/proc/${pid}/ns/net`) ?? -1);
    if (inside !== undefined) found.push(`${programOf(argv)} in ${inside}`);
    else if (argv.join(' ').includes(`${LAB_PREFIX}${runId}`)) found.push(`${programOf(argv)} in another namespace`);
  }
  return found.sort();
}

/** Mount points of the run (ip netns's bind mounts under /run/netns), as this process's mount table shows them. */
export function runMounts(runId: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line.includes(`${LAB_PREFIX}${runId}`));
}

/**
 * The root network namespace's whole listening set as `ss -Hltunp` prints it
 * (TCP listening, UDP bound; owners named where ss can), keyed by protocol and
 * local address: `tcp 127.0.0.1:2379`.
 */
export async function rootListeners(): Promise<Map<string, string>> {
  const { stdout } = await execa('ss', ['-H', '-l', '-t', '-u', '-n', '-p']);
  const listening = new Map<string, string>();
  for (const line of stdout.split('\n').filter((l) => l.trim() !== '')) {
    const [netid, , , , local] = line.trim().split(/\s+/);
    listening.set(`${netid} ${local}`, line.trim().replace(/\s+/g, ' '));
  }
  return listening;
}

/** Listening sockets of the root namespace that were not there `before` (ss's lines, owners included). */
export async function newRootListeners(before: Map<string, string>): Promise<string[]> {
  return [...(await rootListeners())]
    .filter(([key]) => !before.has(key))
    .map(([, line]) => line)
    .sort();
}

/**
 * What the lab runs, by program and namespace (as runComponents reads it): the
 * control plane on the control-plane node, kube-proxy and the lab kubelet on
 * every node, nginx (its master and one worker) in every pod's namespace.
 */
export function expectedComponents(nodes: string[], pods: string[]): string[] {
  return [
    ...['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((program) => `${program} in node.control-plane`),
    ...nodes.flatMap((node) => [`kube-proxy in node.${node}`, `lab-kubelet in node.${node}`]),
    ...pods.flatMap((pod) => [`nginx in pod.${pod}`, `nginx in pod.${pod}`]),
  ].sort();
}

/** The versions of kube/go.mod's modules the lab binaries are built from: `k8s.io/kubernetes` -> `v1.37.2`. */
export function kubeModuleVersions(): Map<string, string> {
  const goMod = readFileSync(new URL('../../kube/go.mod', import.meta.url), 'utf8');
  return new Map([...goMod.matchAll(/^\s+(\S+) (v\S+)(?: \/\/.*)?$/gm)].map((m) => [m[1]!, m[2]!]));
}

/**
 * Resolves once process `pid` runs `argv` (it has exec'd) inside network
 * namespace `netns` (null: this process's own); fails naming what it saw at the deadline.
 */
export async function untilRunning(pid: number, argv: string[], netns: string | null, timeoutMs = 10_000): Promise<void> {
  const wanted = netnsInode(netns === null ? '/proc/self/ns/net' : `/run/netns/${netns}`);
  assert.notEqual(wanted, null, `namespace ${netns} exists`);
  const seen = () => `${JSON.stringify(readArgv(pid))} in namespace inode ${netnsInode(`/proc/${pid}/ns/net`)}`;
  const ran = await waitUntil(() => JSON.stringify(readArgv(pid)) === JSON.stringify(argv) && netnsInode(`/proc/${pid}/ns/net`) === wanted, timeoutMs, 5);
  assert.ok(
    ran,
    `process ${pid} did not come to run ${argv.join(' ')} in ${netns ?? 'the root namespace'} (inode ${wanted}) within ${timeoutMs} ms: ${seen()}`,
  );
}

export async function assertNothingLeft(runId: string): Promise<void> {
  assert.deepEqual(await labNamespaces(runId), [], 'namespaces left behind');
  assert.deepEqual(runProcesses(runId), [], 'processes left behind');
  assert.deepEqual(runMounts(runId), [], 'mounts left behind');
  assert.equal(existsSync(runFolder(runId)), false, 'run folder left behind');
}
