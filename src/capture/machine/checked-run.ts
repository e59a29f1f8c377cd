// A tool's run judged for the capture: a missing program, an interrupt, a time
// limit reached or a kill is a DriverError naming what was being done; so is a
// non-zero exit when the call must succeed. One shape of error for every call.
import { DriverError, type ProviderContext as DriverContext } from '../provider/node-provider.ts';
import { firstLine, runTool, seconds, text, type ProcessResult, type ToolOptions, type ToolRun } from './process.ts';

function problem(run: { argv: string[]; missing: boolean; canceled: boolean; timedOut: boolean }, what: string, timeoutMs: number): DriverError | null {
  if (run.missing) return new DriverError(`could not ${what}: \`${run.argv[0]}\` is not on PATH`);
  if (run.canceled) return new DriverError(`interrupted while: ${what}`);
  if (run.timedOut) return new DriverError(`could not ${what}: \`${run.argv.join(' ')}\` did not finish within ${seconds(timeoutMs)}`);
  return null;
}

/** A finished process judged; with `mustSucceed`, a non-zero exit is a DriverError too. */
export function judged(run: ProcessResult, what: string, timeoutMs: number, mustSucceed = true): ProcessResult {
  const error = problem(run, what, timeoutMs);
  if (error) throw error;
  if (run.spawnError !== null) throw new DriverError(`could not ${what}: \`${run.argv[0]}\`: ${run.spawnError}`);
  if (mustSucceed && run.exitCode !== 0) {
    throw new DriverError(`could not ${what}: \`${run.argv.join(' ')}\` exited ${run.exitCode}: ${firstLine(text(run.stderr)) || firstLine(text(run.stdout))}`);
  }
  return run;
}

/** Runs a command whose exit code is the caller's to judge; missing tools, timeouts and interrupts are DriverErrors. */
export async function runJudged(argv: string[], options: ToolOptions, what: string, ctx?: Pick<DriverContext, 'signal'>): Promise<ToolRun> {
  if (ctx?.signal.aborted) throw new DriverError(`interrupted before: ${what}`);
  const run = await runTool(argv, { ...options, ...(ctx ? { signal: ctx.signal } : {}) });
  const error = problem(run, what, options.timeoutMs);
  if (error) throw error;
  if (run.exitCode === null) throw new DriverError(`could not ${what}: \`${argv.join(' ')}\` was killed before it exited`);
  return run;
}

/** Runs a command that must succeed; any failure is a DriverError naming what and why. */
export async function runOrThrow(argv: string[], options: ToolOptions, what: string, ctx?: Pick<DriverContext, 'signal'>): Promise<ToolRun> {
  const run = await runJudged(argv, options, what, ctx);
  if (run.exitCode !== 0) {
    throw new DriverError(`could not ${what}: \`${argv.join(' ')}\` exited ${run.exitCode}: ${firstLine(run.stderr) || firstLine(run.stdout)}`);
  }
  return run;
}
