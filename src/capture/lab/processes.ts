// Commands and long-running processes of the lab (the I/O edge). Commands run
// through the capture's one process runner with argv arrays and a time limit;
// a non-zero exit is returned, not thrown.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { DriverError } from '../driver.ts';
import { runProcess, sleep, text, waitUntil } from '../process.ts';

export { sleep, waitUntil };

/** A lab command's bound when its caller names none: every one of them is local and quick. */
const COMMAND_TIMEOUT_MS = 60_000;

/** A command the lab ran, its output as text. */
export interface CommandResult {
  argv: string[];
  exitCode: number;
  stdout: string;
  stderr: string;
  startedAt: string;
  durationMs: number;
}

export interface RunOptions {
  input?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Runs argv under a time limit. Throws when aborted, timed out, or the program is missing. */
export async function runCommand(argv: string[], options: RunOptions = {}): Promise<CommandResult> {
  const timeoutMs = options.timeoutMs ?? COMMAND_TIMEOUT_MS;
  const run = await runProcess(argv, {
    timeoutMs,
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (run.canceled) throw options.signal?.reason ?? new Error(`${argv.join(' ')}: cancelled`);
  if (run.timedOut) throw new DriverError(`${argv.join(' ')}: did not finish within ${timeoutMs / 1000} s`);
  // It never ran (e.g. the program is missing): there is no result to report.
  if (run.exitCode === null) throw new DriverError(`${argv.join(' ')}: ${run.spawnError ?? 'did not start'}`);
  return { argv, exitCode: run.exitCode, stdout: text(run.stdout), stderr: text(run.stderr), startedAt: run.startedAt, durationMs: run.durationMs };
}

/** Runs argv and throws a DriverError naming the command and its stderr when it fails. */
export async function runChecked(argv: string[], options: RunOptions = {}): Promise<CommandResult> {
  const result = await runCommand(argv, options);
  if (result.exitCode !== 0) {
    const detail = (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' | ');
    throw new DriverError(`${argv.join(' ')} exited ${result.exitCode}${detail ? `: ${detail}` : ''}`);
  }
  return result;
}

export interface Daemon {
  /** What it is, for messages ("nginx of default/backend"). */
  label: string;
  argv: string[];
  pid: number;
  /** Where its standard output and error go. */
  logFile: string;
  /** Resolves with the exit code (null after a signal) once the process has gone. */
  exited: Promise<number | null>;
  hasExited: () => boolean;
}

/**
 * Starts a process that outlives this one if the lab is kept: detached (a
 * Ctrl-C on the terminal does not reach it), not killed when Node exits, not
 * holding Node's event loop open. Its output goes to `logFile` (appended), so
 * no pipe ties it to this process.
 */
export async function startDaemon(label: string, argv: string[], logFile: string): Promise<Daemon> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('startDaemon: empty argv');
  const log = openSync(logFile, 'a');
  let child;
  try {
    child = spawn(file, args, { detached: true, stdio: ['ignore', log, log] });
  } finally {
    closeSync(log);
  }
  const spawned = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (error) => resolve(error));
  });
  if (spawned !== null || child.pid === undefined) {
    throw new DriverError(`${label}: could not start ${argv.join(' ')}: ${spawned?.message ?? 'no pid'}`);
  }
  child.unref();
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      done = true;
      resolve(code);
    });
  });
  return { label, argv, pid: child.pid, logFile, exited, hasExited: () => done };
}

export function readLogTail(file: string, lines = 5): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join(' | ');
  } catch {
    return '';
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers kill(0): it is gone for every purpose here.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Sends `signal`, waits up to `graceMs`, then SIGKILL; resolves once the process is gone. */
export async function stopProcess(pid: number, signal: NodeJS.Signals, graceMs: number, exited?: Promise<unknown>): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, signal);
    // A stopped process (SIGSTOP, a frozen component) handles its signal only once it runs again.
    process.kill(pid, 'SIGCONT');
  } catch {
    return;
  }
  const gone = (): boolean => !isAlive(pid);
  if (exited !== undefined) {
    // The grace timer must not outlive the race, or it holds Node's event loop open.
    const grace = new AbortController();
    await Promise.race([exited, sleep(graceMs, grace.signal).catch(() => {})]);
    grace.abort();
  }
  if (await waitUntil(gone, exited === undefined ? graceMs : 0, 20)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitUntil(gone, 2000, 20);
}
