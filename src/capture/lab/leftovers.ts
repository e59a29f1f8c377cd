// Finding and removing what earlier lab runs left behind (`--driver lab --clean`,
// or a run kept with --keep). Only names with the lab's prefix are touched, and
// a run whose capture process is still alive is left alone.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';
import { isRunId, LAB_PREFIX, runFolder, runIdOfNamespace } from './names.ts';
import { isAlive, runCommand, stopProcess } from './processes.ts';

const OWNER_FILE = 'owner.json';

export interface RunOwner {
  runId: string;
  pid: number;
  /** /proc/<pid>/stat start time: tells the owner from a later process that got the same pid. */
  startTime: string;
  /** Processes the run started, so they can be found even after their namespace is gone. */
  processes: { pid: number; label: string }[];
}

export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces); starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

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

/** Names from `ip netns list` (`name` or `name (id: N)` per line). */
export function parseNetnsList(output: string): string[] {
  return output
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((name) => name !== '');
}

export function parsePids(output: string): number[] {
  return output
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

export async function listNamespaces(): Promise<string[]> {
  const result = await runCommand(['ip', 'netns', 'list']);
  if (result.exitCode !== 0) throw new DriverError(`ip netns list exited ${result.exitCode}: ${result.stderr.trim()}`);
  return parseNetnsList(result.stdout);
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** Stops every process inside `netns` (SIGTERM, then SIGKILL); returns what it stopped. */
export async function stopNamespaceProcesses(netns: string): Promise<string[]> {
  const result = await runCommand(['ip', 'netns', 'pids', netns]);
  if (result.exitCode !== 0) return [];
  const stopped: string[] = [];
  for (const pid of parsePids(result.stdout)) {
    const what = commandLine(pid) || 'process';
    await stopProcess(pid, 'SIGTERM', 2000);
    stopped.push(`process ${pid} (${what}) in ${netns}`);
  }
  return stopped;
}

/** Deletes a namespace; one that is already gone counts as deleted. */
export async function deleteNamespace(netns: string): Promise<boolean> {
  const result = await runCommand(['ip', 'netns', 'del', netns]);
  if (result.exitCode === 0) return true;
  if (/No such file or directory|not found/i.test(result.stderr)) return false;
  throw new DriverError(`ip netns del ${netns} exited ${result.exitCode}: ${result.stderr.trim()}`);
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
    for (const netns of namespaces) {
      for (const line of await stopNamespaceProcesses(netns)) note(line);
      if (await deleteNamespace(netns)) note(`namespace ${netns}`);
    }
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
