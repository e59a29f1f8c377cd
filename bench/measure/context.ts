// What every measuring phase gets: the project, the options, progress output,
// the interrupt signal, and a place to register what must be removed on exit.
import type { BenchArgs } from '../cli-args.ts';
import type { Progress } from '../progress.ts';

export interface BenchContext {
  root: string;
  args: BenchArgs;
  progress: Progress;
  cancelSignal: AbortSignal;
  /** Removers of temporary folders still in use; run on exit, interrupted or not. */
  cleanups: Set<() => Promise<void>>;
}

/** Runs `work` with a temporary thing that is removed afterwards, or on exit if the run is cut short. */
export async function withTemporary<T extends { remove(): Promise<void> }, R>(
  ctx: BenchContext,
  create: () => Promise<T>,
  work: (thing: T) => Promise<R>,
): Promise<R> {
  const thing = await create();
  const remove = () => thing.remove();
  ctx.cleanups.add(remove);
  try {
    return await work(thing);
  } finally {
    ctx.cleanups.delete(remove);
    await remove();
  }
}

/** The first line of what went wrong, for a figure's one-line reason: never empty (an error without a message is named by its kind). */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const first = text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
  return first ?? (error instanceof Error ? `${error.name} without a message` : 'an empty error');
}
