// Where a claim's evidence is: the first step whose output the claim reads (its
// values in the order it read them), so a link about the claim lands on that
// output in the run's record instead of on the record's top. Pure.
import type { ClaimValue } from '../../evidence/claims.ts';

/** The first step of `steps` a claim's values came from; undefined when it read only the run's own facts or declared ones. */
export function decidingStep(values: readonly ClaimValue[], steps: readonly string[]): string | undefined {
  return values.map((v) => v.step).find((step): step is string => step !== undefined && steps.includes(step));
}
