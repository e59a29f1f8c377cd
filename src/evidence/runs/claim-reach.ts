// Where the article's claims held beyond its own run, for the one sentence that
// sends a reader to the evidence page: the other runs, and each claim that broke
// in one of them. Read from the claim matrix; pure.
import type { ClaimMatrix, MeasuredRun } from './environments.ts';
import type { Lang } from '../template.ts';

export interface ClaimReach {
  /** Every measured run but the article's own, in the matrix's order. */
  others: MeasuredRun[];
  /** Claims that broke in some other run, with the runs they broke in. */
  broken: Array<{ id: string; statement: Record<Lang, string>; runs: MeasuredRun[] }>;
}

export function claimReach(matrix: ClaimMatrix, ownRunId: string): ClaimReach {
  const others = matrix.columns.filter((c) => c.runId !== ownRunId);
  const broken = matrix.rows
    .map((row) => ({ id: row.id, statement: row.statement, runs: row.brokenIn.filter((r) => r.runId !== ownRunId) }))
    .filter((row) => row.runs.length > 0);
  return { others, broken };
}
