// Commands and long-running processes of the lab (the I/O edge). Commands run
// through the capture's one process runner with argv arrays and a time limit;
// a non-zero exit is returned, not thrown.
import { DriverError } from '../driver.ts';
import { runProcess, text } from '../process.ts';

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
