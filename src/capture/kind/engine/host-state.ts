// What a kind cluster on this machine may change of the host beyond the
// links and mounts it creates: kernel settings that are not namespaced. dockerd
// turns on IPv4 forwarding when it starts and IPv6 forwarding with kind's
// IPv6-enabled network (the kernel then adds anycast routes to the local
// table); in a privileged node container, kubelet sets kernel.panic,
// kernel.panic_on_oops and vm.overcommit_memory, and systemd fs.file-max and
// fs.protected_*, all of them the host's own. So the settings are read before
// (by the engine as it starts, by the kind driver before it creates a cluster)
// and every one that differs is written back after (--stop, the cluster's
// teardown). The engine's first reading on a machine is kept as the machine's
// baseline, so that a later run is checked against the host as shice first
// found it, not as an earlier run left it. Reading and writing /proc/sys are
// the edges; the rest is pure.
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

/**
 * Writes back every recorded setting that differs now. Some settings move others
 * (net.ipv4.ip_forward is conf.all.forwarding; all.forwarding sets every
 * interface's), so it reads again and repeats while that changes something.
 * Returns what it restored and what it could not.
 */
export function restoreSysctls(before: Sysctls): { restored: SysctlChange[]; failed: { change: SysctlChange; error: string }[] } {
  const restored = new Map<string, SysctlChange>();
  let failed: { change: SysctlChange; error: string }[] = [];
  for (let round = 0; round < 3; round++) {
    const changes = sysctlChanges(before, readSysctls());
    if (changes.length === 0) break;
    failed = [];
    for (const change of changes) {
      try {
        writeFileSync(sysctlPath(change.name), `${change.before}\n`);
        if (!restored.has(change.name)) restored.set(change.name, change);
      } catch (error) {
        failed.push({ change, error: (error as Error).message });
      }
    }
  }
  const still = new Set(sysctlChanges(before, readSysctls()).map((c) => c.name));
  return { restored: [...restored.values()].filter((c) => !still.has(c.name)), failed };
}

/** Writes one setting; for the kind suite, which puts forwarding back where an earlier run of an older shice left it on. */
export function writeSysctl(name: string, value: string): void {
  writeFileSync(sysctlPath(name), `${value}\n`);
}

/** One line per change written back: `net.ipv6.conf.all.forwarding 1 -> 0`. */
export const changeText = (c: SysctlChange): string => `${c.name} ${c.after} -> ${c.before}`;
