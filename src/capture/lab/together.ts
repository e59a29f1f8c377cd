// Independent pieces of the lab's setup and teardown, run side by side.

/** A piece of work that stops (rejects) when its signal aborts. */
export type Task = (signal: AbortSignal) => Promise<unknown>;

/**
 * Runs the tasks concurrently. The first failure aborts the others (their
 * signal's reason is that failure), every task is waited for, and then the
 * first failure is thrown: nothing a task started is still starting when the
 * caller sees the error and cleans up.
 */
export async function runTogether(tasks: Task[], signal: AbortSignal): Promise<void> {
  const stop = new AbortController();
  const shared = AbortSignal.any([signal, stop.signal]);
  let failure: { error: unknown } | null = null;
  await Promise.all(
    tasks.map(async (task) => {
      try {
        await task(shared);
      } catch (error) {
        if (failure === null) {
          failure = { error };
          stop.abort(error);
        }
      }
    }),
  );
  if (failure !== null) throw (failure as { error: unknown }).error;
}

/** Waits for every promise, then throws the first failure (in the given order), if any. */
export async function settleAll(promises: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}
