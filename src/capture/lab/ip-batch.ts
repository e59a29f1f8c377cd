// Many commands, one process: `ip -batch` reads one ip command a line and stops
// at the first that fails. A root-level batch can also run any program inside
// a namespace (`netns exec NS argv...`: ip forks it and waits), including a
// nested `ip -batch FILE` for that namespace's own ip commands. Starting a
// process from Node costs this capture 10-20 ms of its event loop; ip forks
// the same work in about a millisecond each.
import { runJudged } from '../machine/checked-run.ts';
import { DriverError } from '../provider/node-provider.ts';

/** One batch's bound: a few hundred ip commands take milliseconds; namespaces' deletion waits on the kernel. */
const BATCH_TIMEOUT_MS = 60_000;

/** ip commands run by one ip process, in order. */
export interface IpBatch {
  /** Where the commands apply (`ip -n <netns>`); null for the root-level batch, whose commands name their namespace. */
  netns: string | null;
  /** Each command as it follows `ip -n <netns>` (`['link', 'set', 'lo', 'up']`). */
  commands: string[][];
}

/** What ip's batch reader would split, quote or cut at: nothing the lab generates contains it. */
const UNSAFE_WORD = /[\s"'\\#]/;

/** One command of a batch as a command line of its own. */
export function ipArgv(netns: string | null, command: string[]): string[] {
  return netns === null ? ['ip', ...command] : ['ip', '-n', netns, ...command];
}

/** The process that runs a batch read from `file` (`-`: stdin). */
export function batchArgv(batch: IpBatch, file = '-'): string[] {
  return ipArgv(batch.netns, ['-batch', file]);
}

/** A root-level batch command that runs `argv` inside `netns`. */
export function netnsExecCommand(netns: string, argv: string[]): string[] {
  return ['netns', 'exec', netns, ...argv];
}

/** The batch's commands as standalone argvs, in order: what --dry-run prints and a reader can run one by one. */
export function batchCommands(batch: IpBatch): string[][] {
  return batch.commands.map((command) => ipArgv(batch.netns, command));
}

/** ip's input for a batch: one command a line. Throws on a word ip's batch reader would not keep as one word. */
export function batchInput(batch: IpBatch): string {
  for (const command of batch.commands) {
    const bad = command.find((word) => word === '' || UNSAFE_WORD.test(word));
    if (bad !== undefined) {
      throw new Error(
        `ip batch for ${batch.netns ?? 'the root namespace'}: ${JSON.stringify(command.join(' '))}: expected words without spaces, quotes, backslashes or #, got ${JSON.stringify(bad)}`,
      );
    }
  }
  return batch.commands.map((command) => `${command.join(' ')}\n`).join('');
}

export interface BatchFailure {
  /** The command that failed, as a standalone argv (inside a nested batch file when that is where it stopped). */
  argv: string[];
  /** What the failing program printed, without ip's `Command failed` lines. */
  detail: string;
}

/**
 * The command a failed batch stopped at, from ip's `Command failed <file>:<line>`
 * lines; `nested` maps the files of nested batches to their commands. Null when
 * stderr names no line of a known batch.
 */
export function batchFailure(batch: IpBatch, stderr: string, nested: ReadonlyMap<string, IpBatch> = new Map()): BatchFailure | null {
  const failedAt = [...stderr.matchAll(/^Command failed (.+):(\d+)$/gm)].map((m) => ({ file: m[1] as string, line: Number(m[2]) }));
  const detail = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Command failed .+:\d+$/.test(line))
    .join(' | ');
  // A nested batch reports first, so its line is the more precise one.
  for (const { file, line } of failedAt) {
    const inner = nested.get(file);
    const command = inner?.commands[line - 1];
    if (inner !== undefined && command !== undefined) return { argv: ipArgv(inner.netns, command), detail };
  }
  const outer = failedAt.find((f) => f.file === '-');
  const command = outer === undefined ? undefined : batch.commands[outer.line - 1];
  if (command === undefined) return null;
  return { argv: ipArgv(batch.netns, command), detail };
}

/** Runs the batch from stdin; a failure is a DriverError naming the command it stopped at. Returns ip's stdout. */
export async function runIpBatch(batch: IpBatch, options: { signal: AbortSignal; nested?: ReadonlyMap<string, IpBatch> }): Promise<string> {
  options.signal.throwIfAborted();
  const argv = batchArgv(batch);
  const result = await runJudged(argv, { input: batchInput(batch), timeoutMs: BATCH_TIMEOUT_MS }, `run ${argv.join(' ')}`, { signal: options.signal });
  if (result.exitCode === 0) return result.stdout;
  const failed = batchFailure(batch, result.stderr, options.nested);
  if (failed === null) throw new DriverError(`${argv.join(' ')} exited ${result.exitCode}: ${result.stderr.trim()}`);
  throw new DriverError(`${failed.argv.join(' ')} failed (in ${argv.join(' ')}): ${failed.detail || `exit ${result.exitCode}`}`);
}
