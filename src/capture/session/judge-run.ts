// A capture's run judged before it becomes the evidence: its facts derived and
// its claims evaluated as the build would, on the folders the run is staged in
// (every variant of one capture together), while the snapshots it would
// replace are still in place. Reads the folders it is given; decides nothing
// about the disk.
import { existsSync } from 'node:fs';
import { evidenceFromDisk, type ArticleDefinitions } from '../../evidence/runs/from-disk.ts';
import type { ArticleEvidence } from '../../evidence/runs/types.ts';
import { splitQualified } from '../../evidence/runs/variants.ts';
import { formatBrokenClaims } from '../../evidence/claims.ts';
import { EvidenceError } from '../../evidence/errors.ts';
import { defaultVariant } from '../../experiment/variants.ts';

/** One variant's complete run, in a folder of its own (staged beside its target, or kept aside). */
export interface JudgedRun {
  variant: string | null;
  dir: string;
}

export type Judgement =
  /**
   * No measurement; each problem names the file and the field or fact. `malformed`: a file does not
   * read as snapshots (YAML, schema); `unhealthy`: a fact cannot be derived from a run that went wrong.
   */
  | { verdict: 'facts'; problems: string[]; reason: 'malformed' | 'unhealthy' }
  /** Every fact derived; `broken` holds one block per claim that no longer holds (none: the run may be swapped in). */
  | { verdict: 'claims'; broken: string[]; notes: string[] };

/** Why a run is not a healthy one (a step reached its time limit), or undefined. Pure. */
export function unhealthyBecause(evidence: ArticleEvidence): string | undefined {
  const stopped = [...evidence.snapshots.steps.values()].filter((s) => s.timedOut).map((s) => s.id);
  return stopped.length ? `step ${stopped.join(', ')} reached its time limit` : undefined;
}

/**
 * Judges the runs of one capture of `slug`. The claims across variants are
 * evaluated over these runs and, for variants not in them, the runs in
 * `folderOfOther` (what the swap would leave there); a comparison that cannot
 * be evaluated for want of those is a note, not this run's failure.
 */
export function judgeRuns(slug: string, defs: ArticleDefinitions, runs: readonly JudgedRun[], folderOfOther: (variant: string) => string): Judgement {
  const problems: string[] = [];
  const malformed: string[] = [];
  const broken: string[] = [];
  for (const run of runs) {
    const named = (line: string) => (run.variant === null ? line : `${run.variant}: ${line}`);
    try {
      const evidence = evidenceFromDisk(slug, run.dir, defs, { variants: false, variant: run.variant, collectUnfound: true });
      const unfound = evidence.unfound ?? [];
      const unhealthy = unhealthyBecause(evidence);
      if (unfound.length && unhealthy !== undefined) {
        // What the article expects is missing from a run that went wrong: that is no measurement of anything.
        const line = (u: (typeof unfound)[number]) => `${u.file}: fact "${u.id}": ${u.message} (and the run went wrong: ${unhealthy})`;
        problems.push(...unfound.map((u) => (run.variant === null ? line(u) : `variant ${run.variant}: ${line(u)}`)));
        continue;
      }
      // A healthy run that no longer shows what the article expects: a change in behaviour, its facts and claims broken.
      broken.push(...formatBrokenClaims(evidence.claims).map(named));
      broken.push(...unfound.map((u) => named(`fact "${u.id}" is not in this run: ${u.message}\n    looked for in ${u.file}`)));
    } catch (error) {
      if (!(error instanceof EvidenceError)) throw error;
      malformed.push(...error.problems.map((p) => (run.variant === null ? p : `variant ${run.variant}: ${p}`)));
    }
  }
  if (malformed.length) return { verdict: 'facts', problems: [...malformed, ...problems], reason: 'malformed' };
  if (problems.length) return { verdict: 'facts', problems, reason: 'unhealthy' };

  const notes: string[] = [];
  const experiment = defs.experiment ?? null;
  if (experiment?.variants && defs.comparisonDefs?.length) {
    const staged = new Map(runs.flatMap((r) => (r.variant === null ? [] : [[r.variant, r.dir] as const])));
    const folderOf = (variant: string) => staged.get(variant) ?? folderOfOther(variant);
    const byDefault = defaultVariant(experiment)!;
    if (!existsSync(folderOf(byDefault))) {
      notes.push(`the claims across variants were not evaluated: the default variant ${byDefault} has no run yet`);
    } else {
      try {
        const all = evidenceFromDisk(slug, folderOf(byDefault), defs, { variants: true, folderOf });
        const runsOf = all.variantRuns!;
        // A comparison that read a variant with no run yet (a fact the run lacks) could not be judged: a note, not a break.
        const unrun = (id: string) => !runsOf.measured.includes(splitQualified(id)[0]);
        const waiting = runsOf.comparisons.filter((r) => r.status === 'broken' && r.values.some((v) => v.value === undefined && unrun(v.id)));
        const judged = runsOf.comparisons.filter((r) => !waiting.includes(r));
        broken.push(...formatBrokenClaims(judged).map((block) => `across ${runsOf.measured.join(', ')}: ${block}`));
        if (waiting.length) {
          const variants = [
            ...new Set(waiting.flatMap((r) => r.values.filter((v) => v.value === undefined && unrun(v.id)).map((v) => splitQualified(v.id)[0]))),
          ];
          notes.push(
            `the claims across variants ${waiting.map((r) => r.id).join(', ')} were not evaluated: they read ${variants.join(', ')}, which has no run yet`,
          );
        }
      } catch (error) {
        if (!(error instanceof EvidenceError)) throw error;
        notes.push(`the claims across variants were not evaluated: ${error.problems[0]}`);
      }
    }
  }
  return { verdict: 'claims', broken, notes };
}
