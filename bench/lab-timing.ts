// Where the lab capture's wall time goes, from the clock around the process and
// the timestamps in its snapshots. The floor is what no implementation can
// avoid: every curl that timed out (exit 28) waited its full --max-time.
import { basename } from 'node:path';
import { STEPS_PHASE_LINE } from '../src/capture/session/runner.ts';

/** curl's exit code for "operation timed out". */
export const CURL_TIMED_OUT = 28;

export interface TimedStep {
  id: string;
  /** The command as the experiment states it (not the wrapping argv). */
  command: readonly string[];
  exitCode: number;
  startedAt: string;
  durationMs: number;
}

/** curl's --max-time in milliseconds, or null when the command is not curl or sets none. */
export function curlMaxTimeMs(command: readonly string[]): number | null {
  if (command.length === 0 || basename(command[0]!) !== 'curl') return null;
  let value: string | undefined;
  for (let i = 1; i < command.length; i++) {
    const arg = command[i]!;
    if (arg === '--max-time' || arg === '-m') value = command[i + 1];
    else if (arg.startsWith('--max-time=')) value = arg.slice('--max-time='.length);
    else if (/^-m\d/.test(arg)) value = arg.slice(2);
  }
  if (value === undefined) return null;
  const seconds = Number(value);
  if (!/^\d+(?:\.\d+)?$/.test(value) || !Number.isFinite(seconds)) {
    throw new Error(`curl --max-time: expected seconds (e.g. 3 or 2.5), got ${JSON.stringify(value)} in ${command.join(' ')}`);
  }
  return seconds * 1000;
}

export interface Wait {
  step: string;
  ms: number;
}

/** The waits the steps had to make: each curl that timed out waited its --max-time. */
export function requiredWaits(steps: readonly TimedStep[]): Wait[] {
  return steps.flatMap((step) => {
    if (step.exitCode !== CURL_TIMED_OUT) return [];
    const ms = curlMaxTimeMs(step.command);
    return ms === null ? [] : [{ step: step.id, ms }];
  });
}

export interface LabTimings {
  wallMs: number;
  floorMs: number;
  waits: Wait[];
  /** Sum of the steps' own durations. */
  stepsMs: number;
  /** From the process start to the first step: Node, preflight, namespaces, nginx, rules. */
  setupMs: number;
  /** From the end of the last step to the process exit: snapshots written, lab taken down. */
  teardownMs: number;
  /** What lies between steps (writing each snapshot): wall - setup - steps - teardown. */
  betweenStepsMs: number;
}

function epochMs(iso: string, what: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`${what}: expected an ISO 8601 time, got ${JSON.stringify(iso)}`);
  return ms;
}

/** Splits one capture's wall time (process start and exit, epoch ms) by what its snapshots say. */
export function labTimings(process: { startMs: number; endMs: number }, steps: readonly TimedStep[]): LabTimings {
  if (steps.length === 0) throw new Error('lab timings: the capture recorded no steps');
  if (process.endMs < process.startMs) throw new Error(`lab timings: the process ended (${process.endMs}) before it started (${process.startMs})`);
  const starts = steps.map((s) => epochMs(s.startedAt, `step "${s.id}" startedAt`));
  const firstStart = Math.min(...starts);
  const lastEnd = Math.max(...steps.map((s, i) => starts[i]! + s.durationMs));
  const wallMs = process.endMs - process.startMs;
  const stepsMs = steps.reduce((sum, s) => sum + s.durationMs, 0);
  const setupMs = firstStart - process.startMs;
  const teardownMs = process.endMs - lastEnd;
  if (setupMs < 0 || teardownMs < 0) {
    throw new Error(
      `lab timings: the steps (${new Date(firstStart).toISOString()} to ${new Date(lastEnd).toISOString()}) lie outside the process's run; are the clocks the same?`,
    );
  }
  const waits = requiredWaits(steps);
  return {
    wallMs,
    floorMs: waits.reduce((sum, w) => sum + w.ms, 0),
    waits,
    stepsMs,
    setupMs,
    teardownMs,
    betweenStepsMs: Math.max(0, wallMs - setupMs - stepsMs - teardownMs),
  };
}

/** A progress line and when it arrived, in milliseconds since the capture started. */
export interface ArrivedLine {
  atMs: number;
  text: string;
}

/** The line the lab prints once its nodes are up (phases.ts phaseLine('up')). */
const LAB_UP = /^· lab: up in \d+ ms$/;

/**
 * The Kubernetes platform's part of a lab run, from the lab's `up` line to the line that opens the steps
 * (the manifests applied, the pods Ready, kube-proxy synced): the first run's. Null without both. Pure.
 */
export function platformPartMs(lines: readonly ArrivedLine[]): number | null {
  const up = lines.findIndex((l) => LAB_UP.test(l.text));
  if (up < 0) return null;
  const steps = lines.findIndex((l, i) => i > up && STEPS_PHASE_LINE.test(l.text));
  return steps < 0 ? null : lines[steps]!.atMs - lines[up]!.atMs;
}
