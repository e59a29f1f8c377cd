// How much CPU a build used and how busy the machine was meanwhile, so a slow
// wall time on a loaded machine is not read as a slow build. Linux: the CPU time
// of reaped children from /proc/self/stat (fields cutime and cstime, in clock
// ticks), which includes every process the build started; elsewhere, unknown.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** Ticks per second of /proc's times (sysconf(_SC_CLK_TCK); 100 on Linux). */
export const CLOCK_TICKS = 100;

/** cutime + cstime of a /proc/<pid>/stat line, in seconds. The command name may hold spaces and parentheses. */
export function childCpuSeconds(stat: string, ticksPerSecond = CLOCK_TICKS): number {
  const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after "(comm)": state is field 3, so cutime (16) and cstime (17) sit at 13 and 14.
  const cutime = Number(afterName[13]);
  const cstime = Number(afterName[14]);
  if (!Number.isFinite(cutime) || !Number.isFinite(cstime)) throw new Error(`childCpuSeconds: not a /proc stat line: "${stat.slice(0, 60)}"`);
  return (cutime + cstime) / ticksPerSecond;
}

export interface MachineSample {
  /** CPU seconds of all reaped children so far, or null where /proc is missing. */
  childCpu: number | null;
  /** One-minute load average. */
  load: number;
}

export function sampleMachine(): MachineSample {
  let childCpu: number | null = null;
  try {
    childCpu = childCpuSeconds(readFileSync('/proc/self/stat', 'utf8'));
  } catch {
    childCpu = null;
  }
  return { childCpu, load: loadavg()[0]! };
}

export interface BuildCost {
  /** CPU seconds (user + system) the build's processes used, or null where unknown. */
  cpuSeconds: number | null;
  /** One-minute load average before and after. */
  loadBefore: number;
  loadAfter: number;
}

export function buildCost(before: MachineSample, after: MachineSample): BuildCost {
  const cpuSeconds = before.childCpu === null || after.childCpu === null ? null : after.childCpu - before.childCpu;
  return { cpuSeconds, loadBefore: before.load, loadAfter: after.load };
}

/** "12.3 s wall, 15.1 s CPU, load 0.4→1.9": a build's time beside what the machine was doing. */
export function describeBuild(wallSeconds: number, cost: BuildCost): string {
  const cpu = cost.cpuSeconds === null ? 'CPU unknown' : `${cost.cpuSeconds.toFixed(1)} s CPU`;
  return `${wallSeconds.toFixed(1)} s wall, ${cpu}, load ${cost.loadBefore.toFixed(1)}→${cost.loadAfter.toFixed(1)}`;
}

/** True when other work competed with a build: a load above the cores the build could use. */
export function wasBusy(cost: BuildCost, cores = availableParallelism()): boolean {
  return Math.max(cost.loadBefore, cost.loadAfter) > cores;
}
