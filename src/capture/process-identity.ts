// Who a process is: its pid alone may be reused; pid plus the kernel's start
// time (/proc/<pid>/stat field 22) names one process for the machine's uptime.
import { readFileSync } from 'node:fs';

/** The start time of `pid` in clock ticks since boot, or null when there is no such process (or it is a zombie). */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return null;
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
