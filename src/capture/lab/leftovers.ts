// Finding and removing what a lab run left behind (killed, or kept with --keep),
// by its record (run-registry.ts): the namespaces it names, every process
// inside them, the processes it recorded, its folders. Nothing is found by the
// look of a name; a run whose owner is alive is never touched (recover.ts).
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir as osTmpdir } from 'node:os';
import { DriverError, type ProviderLeftovers } from '../provider/node-provider.ts';
import { runIpBatch } from './ip-batch.ts';
import { runIdOfNamespace, runNamespacePrefix } from './names.ts';
import { stopProcess } from '../machine/process.ts';
import { processStartTime, stillRunning } from '../machine/process-identity.ts';
import type { RunRecord } from '../recovery/run-registry.ts';

import { NETNS_RUN_DIR } from './network.ts';
import { releaseNetnsMount } from './netns-mount.ts';

export { NETNS_RUN_DIR };

export { processStartTime };

/** The named namespaces, as `ip netns list` finds them: the entries of NETNS_RUN_DIR (none before the first `ip netns add`). */
export async function listNamespaces(runDir: string = NETNS_RUN_DIR): Promise<string[]> {
  try {
    return readdirSync(runDir).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new DriverError(`${runDir}: ${(error as Error).message}`);
  }
}

/** A namespace's identity: the device and inode of its nsfs file (what `ip netns pids` compares). */
function namespaceId(path: string): string | null {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
}

/**
 * The processes inside each named namespace, found the way `ip netns pids`
 * finds them (a process's /proc/<pid>/ns/net is the namespace's nsfs inode),
 * in one pass over /proc for all of them.
 */
export function namespaceProcesses(names: string[], runDir: string = NETNS_RUN_DIR): Map<string, number[]> {
  const byId = new Map<string, string>();
  const found = new Map<string, number[]>(names.map((name) => [name, []]));
  for (const name of names) {
    const id = namespaceId(`${runDir}/${name}`);
    if (id !== null) byId.set(id, name);
  }
  if (byId.size === 0) return found;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // A process may end between the listing and the stat: then it is in no namespace.
    const name = byId.get(namespaceId(`/proc/${entry}/ns/net`) ?? '');
    if (name !== undefined) found.get(name)?.push(Number(entry));
  }
  return found;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** Stops every process inside the namespaces, side by side (SIGTERM, then SIGKILL); returns what it stopped. */
export async function stopNamespaceProcesses(namespaces: string[]): Promise<string[]> {
  const inside = [...namespaceProcesses(namespaces)].flatMap(([netns, pids]) => pids.map((pid) => ({ netns, pid, what: commandLine(pid) || 'process' })));
  await Promise.all(inside.map(({ pid }) => stopProcess(pid, 'SIGTERM', 2000)));
  return inside.map(({ netns, pid, what }) => `process ${pid} (${what}) in ${netns}`);
}

/**
 * Deletes the namespaces with one `ip -batch`; returns those it deleted (one
 * already gone is not among them). Throws when one is still there afterwards.
 */
export async function deleteNamespaces(namespaces: string[]): Promise<string[]> {
  const present = new Set(await listNamespaces());
  const targets = namespaces.filter((ns) => present.has(ns));
  if (targets.length === 0) return [];
  let failure: unknown = null;
  try {
    await runIpBatch({ netns: null, commands: targets.map((ns) => ['netns', 'del', ns]) }, { signal: new AbortController().signal });
  } catch (error) {
    failure = error;
  }
  // What ip managed before a failure is deleted all the same; whatever remains is the error.
  const left = new Set(await listNamespaces());
  const remaining = targets.filter((ns) => left.has(ns));
  if (remaining.length > 0) {
    throw new DriverError(`could not delete namespace ${remaining.join(', ')}${failure instanceof Error ? `: ${failure.message}` : ''}`);
  }
  return targets;
}

function rank(netns: string): number {
  if (netns.includes('.pod.')) return 0;
  if (netns.includes('.node.')) return 1;
  return 2;
}

/** A folder a record may name for removal: absolute, at least two levels deep, not a system folder. */
export function removableFolder(path: string): boolean {
  const parts = path.split('/').filter(Boolean);
  if (!path.startsWith('/') || parts.length < 2 || parts.includes('..')) return false;
  return (
    !['/proc', '/sys', '/dev', '/etc', '/usr', '/bin', '/sbin', '/lib', '/boot'].some((t) => path === t || path.startsWith(`${t}/`)) && path !== osTmpdir()
  );
}

/**
 * Removes what a dead lab run's record lists, in the order a run takes itself
 * down: every process inside its namespaces (recorded or not: a control plane,
 * kubelets, nginx, health servers), the recorded processes still alive with
 * the recorded start time (one whose namespace is already gone), then the
 * namespaces, then the folders. Returns one line per thing removed.
 */
export async function removeLabRun(record: RunRecord): Promise<string[]> {
  const removed: string[] = [];
  const listed = await listNamespaces();
  const present = new Set(listed);
  // Only the run's own prefix is honoured: a record cannot claim another run's namespaces.
  const prefix = record.namespacePrefix === runNamespacePrefix(record.runId) ? record.namespacePrefix : null;
  const made = prefix === null ? [] : listed.filter((ns) => ns.startsWith(prefix));
  const namespaces = [...new Set([...record.namespaces.filter((ns) => present.has(ns)), ...made])].sort((a, b) => rank(a) - rank(b));
  removed.push(...(await stopNamespaceProcesses(namespaces)));
  const recorded = record.processes.filter(stillRunning);
  await Promise.all(recorded.map((p) => stopProcess(p.pid, 'SIGTERM', 2000)));
  removed.push(...recorded.map((p) => `process ${p.pid} (${p.label})`));
  removed.push(...(await deleteNamespaces(namespaces)).map((ns) => `namespace ${ns}`));
  for (const folder of record.folders) {
    if (!removableFolder(folder) || !existsSync(folder)) continue;
    rmSync(folder, { recursive: true, force: true });
    removed.push(`folder ${folder}`);
  }
  const unmounted = await releaseNetnsMount(record.runId);
  if (unmounted !== null) removed.push(unmounted);
  return removed;
}

/** The lab's answer to the capture's recovery (ProviderLeftovers): by its records, nothing else. */
export const labLeftovers: ProviderLeftovers = {
  kind: 'lab',
  remove: (record) => (record.kind === 'lab' ? removeLabRun(record) : Promise.resolve([])),
  async unrecorded(records, wanted) {
    const recorded = new Set(records.flatMap((r) => (r.kind === 'lab' ? r.namespaces : [])));
    const unrecorded = new Map<string, number>();
    for (const ns of await listNamespaces()) {
      const runId = runIdOfNamespace(ns);
      if (runId !== null && !recorded.has(ns) && wanted(runId)) unrecorded.set(runId, (unrecorded.get(runId) ?? 0) + 1);
    }
    return [...unrecorded].map(
      ([runId, count]) =>
        `left ${count} namespace(s) of lab run ${runId} alone: no record of this checkout names them (a run of another checkout, or from before records)`,
    );
  },
};
