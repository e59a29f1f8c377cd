// Durations as a page shows them: seconds with one decimal, or two under a
// second (a 30 ms step is "0.03", not "0.0"). The exact value is kept as raw,
// so a reader (and a test) can see what was rounded.
import { ExtractError, describeValue } from '../errors.ts';

export function durationSeconds(durationMs: number): { value: string; raw: string } {
  if (!Number.isFinite(durationMs) || durationMs < 0) {
    throw new ExtractError(`expected a duration in milliseconds >= 0, got ${describeValue(durationMs)}`);
  }
  const seconds = durationMs / 1000;
  const value = seconds < 0.995 ? seconds.toFixed(2) : (Math.round(durationMs / 100) / 10).toFixed(1);
  return { value, raw: String(durationMs) };
}
