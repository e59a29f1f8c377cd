// What a kind cluster on this machine may change of the host beyond the
// links and mounts it creates: kernel settings that are not namespaced. dockerd
// turns on IPv4 forwarding when it starts and IPv6 forwarding with kind's
// IPv6-enabled network (the kernel then adds anycast routes to the local
// table); in a privileged node container, kubelet sets kernel.panic,
// kernel.panic_on_oops and vm.overcommit_memory, and systemd fs.file-max and
// fs.protected_*, all of them the host's own. A restore is an undo of the
// project's own change, never a return to an earlier reading: the settings are
// read before (by the engine as it starts, by the kind driver before it creates
// a cluster), what the engine's start or the cluster's create changed is kept
// as a journal (setting, value before, value the project's change set) in the
// engine's or the run's record, written durably as soon as it is seen, and the
// undo writes a setting back only where its value is still the one the project
// set. A setting changed since by someone else (an administrator's sysctl -w)
// is left and said. The engine's first reading on a machine is kept as the
// machine's baseline, so that a later run is checked against the host as shice
// first found it, not as an earlier run left it. Reading and writing /proc/sys
// are the edges; the rest is pure.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Parts of /proc/sys that are not the host's settings: one interface's own (kept
 * are conf/all, conf/default and neigh/default), devices, binfmt_misc, the
 * entropy pool, and the last pid handed out, which moves all the time.
 */
export function isRecordedSysctl(path: string): boolean {
  const perInterface = /^net\/ipv[46]\/(conf|neigh)\/([^/]+)/.exec(path);
  if (perInterface && perInterface[2] !== 'all' && perInterface[2] !== 'default') return false;
  return !/^(dev|fs\/binfmt_misc|kernel\/random)(\/|$)/.test(path) && path !== 'kernel/ns_last_pid';
}

/** The two settings an engine is known to change, named in the docs and checked by the kind suite. */
export const FORWARDING_SYSCTLS = ['net.ipv4.ip_forward', 'net.ipv6.conf.all.forwarding'] as const;

/** sysctl name → value as the kernel prints it (whitespace folded). */
export type Sysctls = Record<string, string>;

export interface HostNetwork {
  sysctls: Sysctls;
  /** `ip -4 route show table all` and `ip -6 route show table all`, each line once, sorted. */
  routes: string[];
}

export interface SysctlChange {
  name: string;
  before: string;
  after: string;
}

/** `net/ipv4/ip_forward` → `net.ipv4.ip_forward`. */
export const sysctlName = (path: string): string => path.replaceAll('/', '.');
const sysctlPath = (name: string): string => join('/proc/sys', name.replaceAll('.', '/'));

/** What differs between two readings: settings whose value changed (a setting that came or went is not one the engine can write back). */
export function sysctlChanges(before: Sysctls, after: Sysctls): SysctlChange[] {
  return Object.keys(before)
    .filter((name) => name in after && after[name] !== before[name])
    .sort()
    .map((name) => ({ name, before: before[name]!, after: after[name]! }));
}

/** Routes in one reading and not the other. */
export function routeChanges(before: readonly string[], after: readonly string[]): { added: string[]; removed: string[] } {
  const had = new Set(before);
  const has = new Set(after);
  return { added: after.filter((r) => !had.has(r)), removed: before.filter((r) => !has.has(r)) };
}

/** `ip route show table all` output as a sorted set of lines (whitespace folded). */
export function routeLines(output: string): string[] {
  return [
    ...new Set(
      output
        .split('\n')
        .map((l) => l.trim().replace(/\s+/g, ' '))
        .filter(Boolean),
    ),
  ].sort();
}

const fold = (text: string) => text.trim().replace(/\s+/g, ' ');

/** Every writable setting of /proc/sys that isRecordedSysctl keeps, as it is now (those the kernel will not read, such as stable_secret, left out). */
export function readSysctls(): Sysctls {
  const values: Sysctls = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join('/proc/sys', dir)).sort()) {
      const path = dir === '' ? entry : `${dir}/${entry}`;
      if (!isRecordedSysctl(path)) continue;
      try {
        const stat = statSync(join('/proc/sys', path));
        if (stat.isDirectory()) walk(path);
        else if (stat.mode & 0o200) values[sysctlName(path)] = fold(readFileSync(join('/proc/sys', path), 'utf8'));
      } catch {
        // unreadable by design (stable_secret, write-only entries) or gone meanwhile
      }
    }
  };
  walk('');
  return values;
}

/** One change of the project's, journalled before it is undone: the setting, its value before and the value the project's change set. */
export interface SysctlUndo {
  name: string;
  before: string;
  set: string;
}

/**
 * The journal of a change seen between a reading `before` it and one `after`: every setting
 * whose value differs. An entry already journalled keeps its value before (the first reading
 * is the host's) and takes the newest value set; one back at its value before leaves the journal.
 */
export function journalChanges(before: Sysctls, after: Sysctls, journal: readonly SysctlUndo[] = []): SysctlUndo[] {
  const entries = new Map(journal.map((e) => [e.name, e]));
  for (const { name, before: was, after: now } of sysctlChanges(before, after)) entries.set(name, { name, before: entries.get(name)?.before ?? was, set: now });
  for (const entry of journal) if (after[entry.name] === entry.before) entries.delete(entry.name);
  return [...entries.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** What an undo does with one entry, given the setting's value now: write it back only while it is still the value the project set. */
export function undoAction(entry: SysctlUndo, now: string | undefined): 'undo' | 'already back' | 'leave' {
  if (now === entry.set) return 'undo';
  if (now === entry.before) return 'already back';
  return 'leave';
}

export interface UndoResult {
  /** Written back (or put back by another undo of the same journal: ip_forward is conf.all.forwarding). */
  restored: SysctlUndo[];
  /** Changed by someone else since the project set it: left as it is. */
  left: { entry: SysctlUndo; now: string | undefined }[];
  /** Still the project's value after the write: the undo is not done. */
  failed: { entry: SysctlUndo; error: string }[];
}

export interface SysctlIo {
  read: (name: string) => string | undefined;
  write: (name: string, value: string) => void;
}

/** /proc/sys itself. */
export const procSysctls: SysctlIo = {
  read: (name) => {
    try {
      return fold(readFileSync(sysctlPath(name), 'utf8'));
    } catch {
      return undefined;
    }
  },
  write: (name, value) => writeSysctl(name, value),
};

/**
 * Undoes a journal. Each setting is judged by its value before any write (so that a setting one
 * write moves, as net.ipv4.ip_forward moves conf.all.forwarding, is not taken for someone
 * else's), then written back where that value is the one the project set, and read again.
 */
export function undoSysctls(journal: readonly SysctlUndo[], io: SysctlIo = procSysctls): UndoResult {
  const result: UndoResult = { restored: [], left: [], failed: [] };
  const todo: SysctlUndo[] = [];
  for (const entry of journal) {
    const now = io.read(entry.name);
    const action = undoAction(entry, now);
    if (action === 'undo') todo.push(entry);
    if (action === 'leave') result.left.push({ entry, now });
  }
  const errors = new Map<string, string>();
  // Some settings move others (all.forwarding sets every interface's): a second pass catches one put back by a later write.
  for (let round = 0; round < 3; round++) {
    let wrote = false;
    for (const entry of todo) {
      if (io.read(entry.name) !== entry.set) continue;
      try {
        io.write(entry.name, entry.before);
        errors.delete(entry.name);
      } catch (error) {
        errors.set(entry.name, (error as Error).message);
      }
      wrote = true;
    }
    if (!wrote) break;
  }
  for (const entry of todo) {
    const now = io.read(entry.name);
    if (now === entry.before) result.restored.push(entry);
    else if (now === entry.set) result.failed.push({ entry, error: errors.get(entry.name) ?? `still ${entry.set}` });
    else result.left.push({ entry, now });
  }
  return result;
}

/** Writes one setting; for the kind suite, which puts forwarding back where an earlier run of an older shice left it on. */
export function writeSysctl(name: string, value: string): void {
  writeFileSync(sysctlPath(name), `${value}\n`);
}

/** One line per change written back: `net.ipv6.conf.all.forwarding 1 -> 0`. */
export const changeText = (c: SysctlChange): string => `${c.name} ${c.after} -> ${c.before}`;

/** `net.ipv6.conf.all.forwarding 1 -> 0` for an undo. */
export const undoText = (e: SysctlUndo): string => `${e.name} ${e.set} -> ${e.before}`;

/** `left vm.swappiness at 33: changed by someone else since` (the project had set it to 60). */
export const leftText = ({ entry, now }: { entry: SysctlUndo; now: string | undefined }): string =>
  `left ${entry.name} at ${now ?? '(gone)'}: changed by someone else since (set to ${entry.set}, ${entry.before} before)`;

/**
 * The settings a kind cluster changed on the kernel its nodes share with the host, as a real
 * teardown wrote them back (tests/fixtures/samples/host/kind-teardown-wrote-back.txt). Three are the
 * nodes' kubelet's, by its source at the release that ran: setupKernelTunables in
 * pkg/kubelet/cm/container_manager_linux.go (v1.37.2) sets kernel.panic to 10, kernel.panic_on_oops
 * and vm.overcommit_memory to 1. Which part of a node sets fs.file-max and fs.protected_*, and what
 * turns IPv6 forwarding on, was not traced here: the sample alone says the cluster's run changed them.
 * The journal is read every few seconds while kind creates; a change it had not seen yet when a
 * kill -9 came is still the cluster's when it is one of these.
 */
export const CLUSTER_SETTINGS: readonly string[] = [
  'fs.file-max',
  'fs.protected_fifos',
  'fs.protected_regular',
  'fs.protected_symlinks',
  'kernel.panic',
  'kernel.panic_on_oops',
  'net.ipv6.conf.all.forwarding',
  'net.ipv6.conf.default.forwarding',
  'vm.overcommit_memory',
];

/** A journal completed with the changes of CLUSTER_SETTINGS it had not seen yet: each set to its value now. */
export function withClusterSettings(before: Sysctls, now: Sysctls, journal: readonly SysctlUndo[]): SysctlUndo[] {
  const journalled = new Set(journal.map((e) => e.name));
  const unseen = sysctlChanges(before, now)
    .filter((c) => !journalled.has(c.name) && CLUSTER_SETTINGS.includes(c.name))
    .map((c) => ({ name: c.name, before: c.before, set: c.after }));
  return [...journal, ...unseen].sort((a, b) => a.name.localeCompare(b.name));
}

/** Settings that differ from `before` and that no journal entry covers: seen, never written (not known to be the project's). */
export function unjournalled(before: Sysctls, now: Sysctls, journal: readonly SysctlUndo[]): SysctlChange[] {
  const journalled = new Set(journal.map((e) => e.name));
  return sysctlChanges(before, now).filter((c) => !journalled.has(c.name));
}

/**
 * The settings a cluster or the engine is known to change that differ from the machine's baseline
 * once every journal has been undone: a change whose journal went with its run's record (a capture
 * killed and its folder removed). Never written back, as no journal says the project made it (an
 * administrator may have): said, with the command that would put it back.
 */
export function driftFromBaseline(baseline: Sysctls, now: Sysctls): string[] {
  return sysctlChanges(baseline, now)
    .filter((c) => CLUSTER_SETTINGS.includes(c.name) || (FORWARDING_SYSCTLS as readonly string[]).includes(c.name))
    .map(
      (c) =>
        `${c.name} is ${c.after}, ${c.before} when shice first found this machine, and no journal says shice set it (a capture killed whose record is gone?): sysctl -w ${c.name}=${c.before} puts it back`,
    );
}
