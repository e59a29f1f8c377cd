// Commands and long-running processes of the lab (the I/O edge). Commands run
// through execa with argv arrays; a non-zero exit is returned, not thrown.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { execa } from 'execa';
import { DriverError, type ExecOutcome } from '../driver.ts';

/** What a command may print on one stream before it is stopped (the snapshot keeps 1 MiB of it, and its size and hash). */
export const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** A command the lab ran: the same record a step's outcome is. */
export type CommandResult = ExecOutcome;

export interface RunOptions {
  input?: string;
  signal?: AbortSignal;
}

/** Runs argv; output is kept byte for byte (no trimming). Throws only when aborted or the program is missing. */
export async function runCommand(argv: string[], options: RunOptions = {}): Promise<CommandResult> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('runCommand: empty argv');
  const startedAt = new Date().toISOString();
  const start = performance.now();
  const result = await execa(file, args, {
    reject: false,
    stripFinalNewline: false,
    // Bytes, not text: a step's output is stored as it came (raw-stream.ts), even when it is not UTF-8.
    encoding: 'buffer',
    maxBuffer: MAX_OUTPUT_BYTES,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  const durationMs = performance.now() - start;
  if (result.isCanceled) throw options.signal?.reason ?? new Error(`${argv.join(' ')}: cancelled`);
  // The snapshot keeps 1 MiB per stream with the whole stream's size and hash; past execa's buffer there is no whole stream to count.
  if (result.isMaxBuffer) throw new DriverError(`${argv.join(' ')}: printed more than ${MAX_OUTPUT_BYTES} bytes on one stream; make the step print less`);
  if (result.exitCode === undefined && result.signal === undefined) {
    // It never ran (e.g. the program is missing): there is no result to report.
    throw new DriverError(`${argv.join(' ')}: ${result.shortMessage}`);
  }
  const stdoutBytes = result.stdout ?? new Uint8Array();
  const stderrBytes = result.stderr ?? new Uint8Array();
  return {
    argv,
    // A death by signal reads as 128 + its number, as a shell reports it.
    exitCode: result.exitCode ?? 128 + (result.signal === undefined ? 0 : constants.signals[result.signal]),
    stdout: Buffer.from(stdoutBytes).toString('utf8'),
    stderr: Buffer.from(stderrBytes).toString('utf8'),
    stdoutBytes,
    stderrBytes,
    startedAt,
    durationMs,
  };
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

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns whether it did. */
export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs: number, intervalMs: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() >= deadline) return false;
    await sleep(intervalMs, signal);
  }
}

/** Sends `signal`, waits up to `graceMs`, then SIGKILL; resolves once the process is gone. */
export async function stopProcess(pid: number, signal: NodeJS.Signals, graceMs: number, exited?: Promise<unknown>): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, signal);
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
