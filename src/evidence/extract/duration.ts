// Durations as a page shows them: seconds with one decimal. The exact value is
// kept as raw, so a reader (and a test) can see what was rounded.
import { ExtractError, describeValue } from '../errors.ts';

export function durationSeconds(durationMs: number): { value: string; raw: string } {
  if (!Number.isFinite(durationMs) || durationMs < 0) {
    throw new ExtractError(`expected a duration in milliseconds >= 0, got ${describeValue(durationMs)}`);
  }
  return { value: (Math.round(durationMs / 100) / 10).toFixed(1), raw: String(durationMs) };
}
