// The one call a command's CLI makes: the signals listened to from the first
// line, closed pipes ignored, and however the command ends, one line and an
// exit code. A command throws its failure (edge.ts), so its cleanup has run by
// the time the line is said.
import { CommandFailure, ignoreClosedPipes, Interrupts, oneLine, type StopWords } from './edge.ts';

type ErrorKind = abstract new (...args: never[]) => Error;

export interface CommandEdge {
  words: StopWords;
  /** Errors that refuse the command before it did anything (usage, prerequisites): their message, exit 2. */
  refusals: readonly ErrorKind[];
  /** The line for any other error, exit 1. */
  unexpected: (message: string) => string;
}

/** Runs `main`, whose result is the exit code (0 when all is well), and ends the process with it or with its failure's. */
export async function runCommand(edge: CommandEdge, main: (interrupts: Interrupts) => Promise<number>): Promise<void> {
  const interrupts = new Interrupts(edge.words).listen();
  ignoreClosedPipes();
  const say = (line: string) => process.stderr.write(`${edge.words.command}: ${oneLine(line)}\n`);
  try {
    // Success and a verdict end as the event loop drains, so nothing written is cut short.
    process.exitCode = await main(interrupts);
    return;
  } catch (error) {
    if (error instanceof CommandFailure) {
      if (error.line !== null) say(error.line);
      process.exit(error.code);
    }
    if (edge.refusals.some((kind) => error instanceof kind)) {
      say((error as Error).message);
      process.exit(2);
    }
    say(edge.unexpected((error as Error)?.message ?? String(error)));
    process.exit(1);
  }
}
