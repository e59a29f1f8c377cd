// The one process runner of the capture: every external command of a run
// (a step on a node, kubectl, docker, kind, ip, openssl) goes through here.
// Argv arrays only; the child leads a process group of its own, so a time
// limit or an interrupt ends the whole group (SIGTERM, then SIGKILL after a
// grace period), never just the first process, and the call returns only once
// every process of the group has ended: a tool's children (kind's `docker run`)
// outlive it otherwise, and finish their work after the cleanup. Output is kept as bytes, and
// only as much of it as the caller keeps: the rest is counted and hashed as
// it streams by, so a step that prints gigabytes costs its head, not its size.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { constants } from 'node:os';
import { groupAlive, processesWithEnv } from './process-identity.ts';

/** One stream of a finished process: its first bytes, its whole size and hash. */
export interface CapturedStream {
  /** The bytes kept: all of them when `bytes <= keep`, else the first `keep`. */
  head: Buffer;
  /** Every byte the stream carried. */
  bytes: number;
  sha256: string;
}

export interface ProcessResult {
  argv: string[];
  /** The exit code; a death by signal reads 128 + its number, as a shell reports it; null when it never ran. */
  exitCode: number | null;
  /** The signal that ended it, when one did (ours on a timeout, or anyone's). */
  signal: NodeJS.Signals | null;
  stdout: CapturedStream;
  stderr: CapturedStream;
  startedAt: string;
  durationMs: number;
  /** The executable was not found. */
  missing: boolean;
  /** It ran past its time limit and its process group was ended. */
  timedOut: boolean;
  /** The caller's signal aborted it and its process group was ended. */
  canceled: boolean;
  /** Why it could not start (missing, permission), when it did not. */
  spawnError: string | null;
}

export interface ProcessOptions {
  /** Every call has one: there is no default, so no call can hang a capture. */
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  signal?: AbortSignal;
  /** Text or bytes for the child's stdin; stdin is closed at once otherwise. */
  input?: string | Uint8Array;
  /** How many bytes of each stream to keep (the rest is counted and hashed); everything by default. */
  keepBytes?: number;
  /** Also pass the child's output on to this process's stdout and stderr as it arrives (a long build's progress). */
  echo?: boolean;
  /** Between SIGTERM and SIGKILL of the group. */
  graceMs?: number;
}

/** What a caller keeps when it does not say: enough for any API answer, bounded so a runaway tool cannot take the memory. */
export const DEFAULT_KEEP_BYTES = 64 * 1024 * 1024;
const DEFAULT_GRACE_MS = 3000;

class StreamSink {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;
  private readonly hash: Hash = createHash('sha256');
  private readonly keep: number;

  constructor(keep: number) {
    this.keep = keep;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    this.hash.update(chunk);
    if (this.kept >= this.keep) return;
    const room = this.keep - this.kept;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  done(): CapturedStream {
    return { head: Buffer.concat(this.chunks, this.kept), bytes: this.total, sha256: this.hash.digest('hex') };
  }
}

/** Sends `signal` to the process group led by `pid` (and to the leader, should it have left the group). */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Polls until no process of group `pgid` runs; SIGKILLs the group once `graceMs` has passed. A process in uninterruptible sleep cannot hold a capture for ever: gives up after the grace and 10 s more. */
export async function groupEnded(pgid: number, graceMs: number = DEFAULT_GRACE_MS): Promise<boolean> {
  const started = performance.now();
  let killed = false;
  while (groupAlive(pgid)) {
    const waited = performance.now() - started;
    if (!killed && waited >= graceMs) {
      signalGroup(pgid, 'SIGKILL');
      killed = true;
    }
    if (waited >= graceMs + 10_000) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/**
 * Ends every process whose environment holds `entry` (a run's mark, which a killed capture's
 * tools and their children carry): SIGTERM, SIGKILL after `graceMs`, and returns once none
 * runs, with the command line of each it found. A killed capture's `kind create` goes on
 * creating nodes otherwise, after they were removed.
 */
export async function stopProcessesWithEnv(entry: string, graceMs: number = DEFAULT_GRACE_MS): Promise<string[]> {
  const found = processesWithEnv(entry);
  const commands = found.map((p) => p.command);
  const started = performance.now();
  let signal: NodeJS.Signals = 'SIGTERM';
  for (let left = found; left.length > 0; left = processesWithEnv(entry)) {
    const waited = performance.now() - started;
    if (waited >= graceMs + 10_000) throw new Error(`${left.length} process(es) did not end after SIGKILL: ${left.map((p) => p.pid).join(', ')}`);
    if (waited >= graceMs) signal = 'SIGKILL';
    for (const p of left) {
      try {
        process.kill(p.pid, signal);
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return commands;
}

export function runProcess(argv: string[], options: ProcessOptions): Promise<ProcessResult> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('runProcess: empty argv');
  if (!(options.timeoutMs > 0)) throw new Error(`runProcess: a positive time limit is required (${argv[0]})`);
  const keep = options.keepBytes ?? DEFAULT_KEEP_BYTES;
  const grace = options.graceMs ?? DEFAULT_GRACE_MS;
  const startedAt = new Date();
  const started = performance.now();
  const stdout = new StreamSink(keep);
  const stderr = new StreamSink(keep);
  if (options.signal?.aborted) {
    // Interrupted before it started: nothing to run, nothing to end.
    const none = stdout.done();
    return Promise.resolve({
      argv,
      exitCode: null,
      signal: null,
      stdout: none,
      stderr: stderr.done(),
      startedAt: startedAt.toISOString(),
      durationMs: 0,
      missing: false,
      timedOut: false,
      canceled: true,
      spawnError: null,
    });
  }

  return new Promise((resolve) => {
    let timedOut = false;
    let canceled = false;
    let settled = false;
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, spawnError: NodeJS.ErrnoException | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        argv,
        exitCode,
        signal,
        stdout: stdout.done(),
        stderr: stderr.done(),
        startedAt: startedAt.toISOString(),
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        missing: spawnError?.code === 'ENOENT',
        timedOut,
        canceled,
        spawnError: spawnError ? spawnError.message : null,
      });
    };

    const child = spawn(file, args, {
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      // Its own process group: a time limit or an interrupt ends everything it started.
      detached: true,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let killTimer: NodeJS.Timeout | undefined;
    const end = () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
      }, grace);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      end();
    }, options.timeoutMs);
    const onAbort = () => {
      canceled = true;
      end();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout!.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      if (options.echo) process.stdout.write(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      if (options.echo) process.stderr.write(chunk);
    });
    if (options.input !== undefined && child.stdin) {
      // A child that does not read its input must not crash the capture with EPIPE.
      child.stdin.on('error', () => {});
      child.stdin.end(options.input);
    }
    child.once('error', (error: NodeJS.ErrnoException) => {
      // spawn failed (ENOENT, EACCES): there is no process and no exit event to wait for.
      if (child.pid === undefined) finish(null, null, error);
    });
    // 'close': the process has exited and its streams are drained.
    child.once('close', (code, signal) => {
      const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null);
      if (child.pid === undefined || !(timedOut || canceled)) {
        finish(exitCode, signal, null);
        return;
      }
      // The group may still hold children that outlived their leader (kind's `docker run`s): they
      // had the same SIGTERM; wait for them, SIGKILL what is left after the grace period.
      void groupEnded(child.pid, grace).then(() => finish(exitCode, signal, null));
    });
  });
}

/** A stream's kept bytes as text (for the tools' own answers; a step's bytes go to the snapshot untouched). */
export function text(stream: CapturedStream): string {
  return stream.head.toString('utf8');
}

/** The first non-empty line of a text, trimmed: what an error message quotes of a tool's output (some print their version on stderr). */
export function firstLine(value: string): string {
  return (
    value
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Calls `check` every `intervalMs` until it holds (true) or `timeoutMs` has passed (false). */
export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs: number, intervalMs: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() >= deadline) return false;
    await sleep(Math.min(intervalMs, Math.max(1, deadline - performance.now())), signal);
  }
}

/** "2.5 s": a duration as messages say it. */
export const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** A tool's run with its output as text: for the tools whose answers the capture reads (kind, docker, kubectl). */
export interface ToolRun {
  argv: string[];
  /** null when the process did not exit by itself (missing, killed, timed out). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  startedAt: string;
  durationMs: number;
  missing: boolean;
  canceled: boolean;
  timedOut: boolean;
}

export interface ToolOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  input?: string;
}

/** runProcess, its output decoded: a non-zero exit is returned, never thrown. */
export async function runTool(argv: string[], options: ToolOptions): Promise<ToolRun> {
  const run = await runProcess(argv, options);
  return {
    argv,
    exitCode: run.timedOut || run.canceled || run.signal !== null ? null : run.exitCode,
    stdout: text(run.stdout),
    stderr: text(run.stderr),
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    missing: run.missing,
    canceled: run.canceled,
    timedOut: run.timedOut,
  };
}

// --- long-running processes --------------------------------------------------
// The lab's components, the lab kubelet's pods, shice's own dockerd: started
// here too, so that one place knows how a process is started, logged, asked
// after and stopped.

/** A long-running process that could not be started. */
export class DaemonError extends Error {
  override name = 'DaemonError';
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
  /** The same moment, with the signal that ended it, when one did (a runtime reports a container's end so). */
  ended: Promise<DaemonExit>;
  hasExited: () => boolean;
}

/** How a long-running process ended: its exit code, or the signal that ended it. */
export interface DaemonExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Starts a process that outlives this one if the lab is kept: detached (a
 * Ctrl-C on the terminal does not reach it), not killed when Node exits, not
 * holding Node's event loop open. Its output goes to `logFile` (appended), so
 * no pipe ties it to this process.
 */
export async function startDaemon(label: string, argv: string[], logFile: string, options: { env?: NodeJS.ProcessEnv } = {}): Promise<Daemon> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('startDaemon: empty argv');
  const log = openSync(logFile, 'a');
  let child;
  try {
    child = spawn(file, args, { detached: true, stdio: ['ignore', log, log], ...(options.env ? { env: options.env } : {}) });
  } finally {
    closeSync(log);
  }
  const spawned = await new Promise<Error | null>((resolve) => {
    child.once('spawn', () => resolve(null));
    child.once('error', (error) => resolve(error));
  });
  if (spawned !== null || child.pid === undefined) {
    throw new DaemonError(`${label}: could not start ${argv.join(' ')}: ${spawned?.message ?? 'no pid'}`);
  }
  child.unref();
  let done = false;
  const ended = new Promise<DaemonExit>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  const exited = ended.then((exit) => exit.code);
  return { label, argv, pid: child.pid, logFile, exited, ended, hasExited: () => done };
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
