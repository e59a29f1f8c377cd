// Who a process is: its pid alone may be reused; pid plus the kernel's start
// time (/proc/<pid>/stat field 22) names one process for the machine's uptime.
import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses), from the state on; null when there is no such process. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The start time of `pid` in clock ticks since boot, or null when there is no such process (or it is a zombie). */
export function processStartTime(pid: number): string | null {
  const fields = statFields(pid);
  if (fields === null || fields[0] === 'Z') return null;
  return fields[19] ?? null;
}

/** Whether the process known by pid and start time still runs (a reused pid is another process). */
export function stillRunning(p: { pid: number; startTime: string | null }): boolean {
  return p.startTime !== null && processStartTime(p.pid) === p.startTime;
}

/** The process group of `pid` (field 5), or null when there is no such process. */
export function processGroup(pid: number): number | null {
  const group = Number(statFields(pid)?.[2]);
  return Number.isInteger(group) ? group : null;
}

/** The pids /proc lists now, or null where there is no /proc. */
function allPids(): number[] | null {
  try {
    return readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e))
      .map(Number);
  } catch {
    return null;
  }
}

/**
 * Whether any process of group `pgid` still runs. A zombie does not: it has ended and only
 * waits to be reaped (by an init that may reap slowly). Without /proc, kill(-pgid, 0) answers
 * for the group as a whole, zombies included.
 */
export function groupAlive(pgid: number): boolean {
  const pids = allPids();
  if (pids === null) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return pids.some((pid) => {
    const fields = statFields(pid);
    return fields !== null && fields[0] !== 'Z' && Number(fields[2]) === pgid;
  });
}

/**
 * The live processes whose environment holds `entry` (NAME=value) exactly: a run's mark,
 * which every child it started and every child of those inherits, whatever group it is in.
 */
export function processesWithEnv(entry: string): Array<{ pid: number; group: number; command: string }> {
  const found: Array<{ pid: number; group: number; command: string }> = [];
  for (const pid of allPids() ?? []) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry)) continue;
      const fields = statFields(pid);
      if (fields === null || fields[0] === 'Z') continue;
      found.push({ pid, group: Number(fields[2]), command: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}
