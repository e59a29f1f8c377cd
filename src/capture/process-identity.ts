// Who a process is: its pid alone may be reused; pid plus the kernel's start
// time (/proc/<pid>/stat field 22) names one process for the machine's uptime.
import { readFileSync } from 'node:fs';

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
