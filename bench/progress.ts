// Progress while the bench runs (it takes minutes): a line when a task starts
// and ends, and a line every so often while a long one is still going. To
// stderr, so stdout holds the figures only.

export interface Progress {
  /** Starts a task; returns its result and prints how long it took. */
  task<T>(label: string, work: () => Promise<T>): Promise<T>;
  note(line: string): void;
}

export function formatClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

export function createProgress(out: { write(chunk: string): unknown }, options: { heartbeatMs?: number; now?: () => number } = {}): Progress {
  const now = options.now ?? (() => performance.now());
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const started = now();
  const line = (text: string) => out.write(`[bench ${formatClock(now() - started).padStart(5)}] ${text}\n`);
  return {
    note: line,
    async task(label, work) {
      const t0 = now();
      line(`${label} …`);
      const timer = setInterval(() => line(`  … ${label}: ${((now() - t0) / 1000).toFixed(0)} s so far`), heartbeatMs);
      timer.unref?.();
      try {
        const result = await work();
        line(`  done in ${((now() - t0) / 1000).toFixed(1)} s: ${label}`);
        return result;
      } catch (error) {
        const [first, ...rest] = (error instanceof Error ? error.message : String(error)).split('\n');
        line(`  failed after ${((now() - t0) / 1000).toFixed(1)} s: ${label}: ${first}`);
        // The rest (a failed build's last lines) under it, so the failure can be read here.
        for (const more of rest) if (more.trim()) line(`    │ ${more}`);
        throw error;
      } finally {
        clearInterval(timer);
      }
    },
  };
}
