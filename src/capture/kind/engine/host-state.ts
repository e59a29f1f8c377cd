// What shice's own Docker engine may change in the host's root namespace
// beyond the links it creates: the network sysctls (dockerd turns on IPv4
// forwarding when it starts and IPv6 forwarding when kind's IPv6-enabled
// network is made; the kernel then adds subnet-router anycast routes to the
// local table) and the routes. The engine reads them before it starts and
// writes back, when it stops, every sysctl that differs; the first reading on
// a machine is kept as the machine's baseline, so that a later run is checked
// against the host as shice first found it, not as an earlier run left it.
// Reading and writing /proc/sys are the edges; the rest is pure.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Folders of /proc/sys whose writable entries are recorded: global and default settings, never a single interface's. */
export const SYSCTL_DIRS: readonly string[] = [
  'net/ipv4',
  'net/ipv4/conf/all',
  'net/ipv4/conf/default',
  'net/ipv6/conf/all',
  'net/ipv6/conf/default',
  'net/bridge',
  'net/netfilter',
];

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

/** The writable settings of SYSCTL_DIRS as they are now (those the kernel will not read, such as stable_secret, left out). */
export function readSysctls(dirs: readonly string[] = SYSCTL_DIRS): Sysctls {
  const values: Sysctls = {};
  for (const dir of dirs) {
    let entries: string[];
    try {
      entries = readdirSync(join('/proc/sys', dir));
    } catch {
      continue; // not in this kernel (bridge netfilter before the bridge is used, say)
    }
    for (const entry of entries.sort()) {
      const path = join('/proc/sys', dir, entry);
      try {
        const stat = statSync(path);
        if (!stat.isFile() || (stat.mode & 0o200) === 0) continue;
        values[sysctlName(`${dir}/${entry}`)] = fold(readFileSync(path, 'utf8'));
      } catch {
        // unreadable by design (stable_secret) or gone meanwhile
      }
    }
  }
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

/** One line per change, for kind:prepare --stop: `net.ipv6.conf.all.forwarding 1 -> 0`. */
export const changeText = (c: SysctlChange): string => `${c.name} ${c.after} -> ${c.before}`;
