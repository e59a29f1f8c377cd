// Where a claim's evidence is: the facts it read in a run, in the order it read
// them, each with the step whose output it came from (a run record lists them,
// each linked to that output). Pure.
import type { ClaimValue } from '../../evidence/claims.ts';

/** Each fact a claim read, once, in the order it first read it. */
export function claimReadings(values: readonly ClaimValue[]): ClaimValue[] {
  const seen = new Set<string>();
  return values.filter((v) => !seen.has(v.id) && seen.add(v.id));
}
