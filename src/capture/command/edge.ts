// What the capture's and verify's commands share at the I/O edge: one-line
// failures and their exit codes, report lines, and the signals that stop a run.
// A command throws its failure; the CLI (runCommand) says it and exits, so the
// cleanup on the way (every finally) runs first.
import { constants } from 'node:os';
import { clip } from '../machine/clip.ts';
import { terminalSafe } from '../../evidence/terminal-text.ts';

/**
 * How a command ends without success: its one line (null when the lines were said already) and its exit code.
 * Exit codes: 2 usage and prerequisites, 1 a failed run (its facts not derived included),
 * EXIT_CLAIMS_BROKEN a run kept aside because a claim broke, 128 + the signal's number for an interrupt.
 */
export class CommandFailure extends Error {
  override name = 'CommandFailure';
  readonly line: string | null;
  readonly code: number;
  constructor(line: string | null, code: number) {
    super(line ?? `exit ${code}`);
    this.line = line;
    this.code = code;
  }
}

/** Ends the command with one line and `code`. */
export function fail(message: string, code: number): never {
  throw new CommandFailure(message, code);
}

/** Ends the command with `code`, its reasons said already. */
export function exitWith(code: number): never {
  throw new CommandFailure(null, code);
}

/** One line, whatever an error carried (a tool's output, a long path), with nothing a terminal would act on. */
export const oneLine = (message: string): string => terminalSafe(clip(message.replaceAll('\n', ' | '), 2000));

/** Runs `step`; an error of `kind` fails the command with its message and `code`, any other goes on up. */
export function failingOn<T>(kind: abstract new (...args: never[]) => Error, code: number, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof kind) fail(error.message, code);
    throw error;
  }
}

/** A complete run on which a claim no longer holds: not swapped in, kept aside for --accept. */
export const EXIT_CLAIMS_BROKEN = 3;

/** Report lines to stderr: values and paths from snapshots, so controls and bidi marks are escaped. */
export function say(lines: readonly string[]): void {
  process.stderr.write(`${terminalSafe(lines.join('\n'))}\n`);
}

/** A line of the capture's own to stderr, as `capture: <line>`. */
export const sayLine = (line: string): void => {
  process.stderr.write(`capture: ${line}\n`);
};

const signalExitCode = (signal: NodeJS.Signals) => 128 + (constants.signals[signal] ?? 0);

/** What a command says when a signal stops its run: the first, and (if a third is needed to quit) the second. */
export interface StopWords {
  command: 'capture' | 'verify';
  stopping: string;
  /** Null: the second signal quits at once. */
  stillStopping: string | null;
}

export const CAPTURE_STOP_WORDS: StopWords = {
  command: 'capture',
  stopping: 'stopping and cleaning up (the snapshots stay as they were)',
  stillStopping: 'still cleaning up; a third signal quits at once and may leave the environment behind (the next capture or --clean removes it)',
};

export const VERIFY_STOP_WORDS: StopWords = { command: 'verify', stopping: "stopping and deleting the run's namespace", stillStopping: null };

/**
 * SIGINT and SIGTERM. Until a run is under way there is nothing to clean up, and a signal
 * ends the command at once with 130 (SIGINT) or 143 (SIGTERM). While one runs, the first
 * signal aborts it (the run cleans up), the second says so (or quits), the third quits at once.
 */
export class Interrupts {
  /** Whether a run is under way, with an environment or a swap to clean up. */
  running = false;
  private readonly controller = new AbortController();
  private first: NodeJS.Signals | null = null;
  private count = 0;

  private readonly words: StopWords;

  constructor(words: StopWords = CAPTURE_STOP_WORDS) {
    this.words = words;
  }

  /** Listens from now on, for the rest of the process. */
  listen(): this {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
    return this;
  }

  /** Aborted by the first signal that came while a run was under way. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The exit code of an interrupted run: 128 + the first signal's number (SIGINT's if none came). */
  exitCode(): number {
    return signalExitCode(this.first ?? 'SIGINT');
  }

  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.count += 1;
    this.first ??= signal;
    if (!this.running) process.exit(signalExitCode(signal));
    const { command, stopping, stillStopping } = this.words;
    if (this.count === 1) {
      process.stderr.write(`\n${command}: ${signal}: ${stopping}\n`);
      this.controller.abort();
    } else if (this.count === 2 && stillStopping !== null) {
      process.stderr.write(`${command}: ${stillStopping}\n`);
    } else {
      process.exit(signalExitCode(this.first));
    }
  };
}

/**
 * A closed pipe (`npm run capture | head`) must not kill the capture before it
 * has taken the environment down: stop writing, keep running, clean up.
 */
export function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

/** What a command needs of the edge: the project it captures, and the signals. */
export interface CaptureContext {
  root: string;
  interrupts: Interrupts;
}
