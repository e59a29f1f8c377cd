// Finding and removing what earlier lab runs left behind (`--driver lab --clean`,
// or a run kept with --keep). Only names with the lab's prefix are touched, and
// a run whose capture process is still alive is left alone.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';
import { isRunId, LAB_PREFIX, runFolder, runIdOfNamespace } from './names.ts';
import { runIpBatch } from './ip-batch.ts';
import { isAlive, stopProcess } from './processes.ts';
import { processStartTime } from '../process-identity.ts';
import { tmpdir as osTmpdir } from 'node:os';
import type { RunRecord } from '../run-registry.ts';

const OWNER_FILE = 'owner.json';
/** Where `ip netns add` mounts a named namespace (iproute2's NETNS_RUN_DIR). */
export const NETNS_RUN_DIR = '/var/run/netns';

export interface RunOwner {
  runId: string;
  pid: number;
  /** /proc/<pid>/stat start time: tells the owner from a later process that got the same pid. */
  startTime: string;
  /** Processes the run started, so they can be found even after their namespace is gone. */
  processes: { pid: number; label: string }[];
}

export { processStartTime };

export function writeRunOwner(folder: string, owner: RunOwner): void {
  writeFileSync(join(folder, OWNER_FILE), `${JSON.stringify(owner, null, 2)}\n`);
}

export function readRunOwner(folder: string): RunOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(join(folder, OWNER_FILE), 'utf8')) as RunOwner;
    return typeof parsed.pid === 'number' && Array.isArray(parsed.processes) ? parsed : null;
  } catch {
    return null;
  }
}

function ownerIsRunning(owner: RunOwner | null): boolean {
  return owner !== null && isAlive(owner.pid) && processStartTime(owner.pid) === owner.startTime;
}

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

export interface CleanOptions {
  /** Where run folders live (the OS temp folder). */
  tempBase?: string;
  /** Limits the cleaning to some runs (tests use it to leave other runs' labs alone). */
  onlyRuns?: (runId: string) => boolean;
}

/**
 * Removes the namespaces, processes and folders of lab runs whose capture is
 * no longer running, and only those. Returns one line per thing removed.
 */
export async function cleanLabLeftovers(log: (line: string) => void, options: CleanOptions = {}): Promise<string[]> {
  const tempBase = options.tempBase ?? tmpdir();
  const wanted = options.onlyRuns ?? (() => true);
  const namespacesByRun = new Map<string, string[]>();
  for (const name of await listNamespaces()) {
    const runId = runIdOfNamespace(name);
    if (runId === null) continue;
    namespacesByRun.set(runId, [...(namespacesByRun.get(runId) ?? []), name]);
  }
  const folderRuns = readdirSync(tempBase, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.startsWith(LAB_PREFIX))
    .map((entry) => entry.name.slice(LAB_PREFIX.length))
    .filter(isRunId);
  const removed: string[] = [];
  const note = (line: string): void => {
    removed.push(line);
    log(`removed ${line}`);
  };

  for (const runId of [...new Set([...namespacesByRun.keys(), ...folderRuns])].filter(wanted).sort()) {
    const folder = runFolder(runId, tempBase);
    const owner = readRunOwner(folder);
    if (ownerIsRunning(owner)) {
      log(`left lab run ${runId} alone: its capture (pid ${owner?.pid}) is still running`);
      continue;
    }
    // Pods first, the bridge last: the same order a run tears itself down in.
    const namespaces = (namespacesByRun.get(runId) ?? []).sort((a, b) => rank(a) - rank(b));
    for (const line of await stopNamespaceProcesses(namespaces)) note(line);
    for (const netns of await deleteNamespaces(namespaces)) note(`namespace ${netns}`);
    // Processes whose namespace is already gone still name the run folder on their command line.
    for (const started of owner?.processes ?? []) {
      if (isAlive(started.pid) && commandLine(started.pid).includes(folder)) {
        await stopProcess(started.pid, 'SIGTERM', 2000);
        note(`process ${started.pid} (${started.label})`);
      }
    }
    if (existsSync(folder)) {
      rmSync(folder, { recursive: true, force: true });
      note(`folder ${folder}`);
    }
  }
  if (removed.length === 0) log('no lab leftovers found');
  return removed;
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
  return !['/proc', '/sys', '/dev', '/etc', '/usr', '/bin', '/sbin', '/lib', '/boot'].some((t) => path === t || path.startsWith(`${t}/`)) && path !== osTmpdir();
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
  const present = new Set(await listNamespaces());
  const namespaces = record.namespaces.filter((ns) => present.has(ns)).sort((a, b) => rank(a) - rank(b));
  removed.push(...(await stopNamespaceProcesses(namespaces)));
  const recorded = record.processes.filter((p) => p.startTime !== null && processStartTime(p.pid) === p.startTime);
  await Promise.all(recorded.map((p) => stopProcess(p.pid, 'SIGTERM', 2000)));
  removed.push(...recorded.map((p) => `process ${p.pid} (${p.label})`));
  removed.push(...(await deleteNamespaces(namespaces)).map((ns) => `namespace ${ns}`));
  for (const folder of record.folders) {
    if (!removableFolder(folder) || !existsSync(folder)) continue;
    rmSync(folder, { recursive: true, force: true });
    removed.push(`folder ${folder}`);
  }
  return removed;
}
