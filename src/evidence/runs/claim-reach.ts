// Where the article's claims held beyond its own run, for the one sentence that
// sends a reader to the evidence page: the other runs, each claim that broke
// in one of them, and, measured on several Kubernetes versions, each version
// with its own run and the versions declared but not measured. Read from the
// claim matrix; pure.
import type { ClaimMatrix, MeasuredRun } from './environments.ts';
import type { Lang } from '../template.ts';

export interface ClaimReach {
  /** Every measured run but the article's own, in the matrix's order. */
  others: MeasuredRun[];
  /** Claims that broke in some other run, with the runs they broke in. */
  broken: Array<{ id: string; statement: Record<Lang, string>; runs: MeasuredRun[] }>;
  /** Every measured Kubernetes version, the headline first, with its own run (its headline environment's default variant); empty when the experiment declares one version or none. */
  versions: Array<{ version: string; run: MeasuredRun }>;
  /** Versions declared and not measured. */
  notMeasuredVersions: string[];
}

export function claimReach(matrix: ClaimMatrix, ownRunId: string): ClaimReach {
  const others = matrix.columns.filter((c) => c.runId !== ownRunId);
  const broken = matrix.rows
    .map((row) => ({ id: row.id, statement: row.statement, runs: row.brokenIn.filter((r) => r.runId !== ownRunId) }))
    .filter((row) => row.runs.length > 0);
  // The matrix lists each version's own run first among its runs.
  const versions = (matrix.versions?.measured ?? []).map((version) => ({ version, run: matrix.columns.find((c) => c.version === version)! }));
  return { others, broken, versions, notMeasuredVersions: matrix.versions?.notMeasured ?? [] };
}
