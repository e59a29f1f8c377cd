// A capture's run judged before it becomes the evidence: its facts derived and
// its claims evaluated as the build would, on the folders the run is staged in
// (every variant of one capture together), while the snapshots it would
// replace are still in place. Reads the folders it is given; decides nothing
// about the disk.
import { existsSync } from 'node:fs';
import { evidenceFromDisk, type ArticleDefinitions } from '../evidence/article/from-disk.ts';
import { splitQualified } from '../evidence/article/variants.ts';
import { formatBrokenClaims } from '../evidence/claims.ts';
import { EvidenceError } from '../evidence/errors.ts';
import { defaultVariant } from '../experiment/variants.ts';

/** One variant's complete run, in a folder of its own (staged beside its target, or kept aside). */
export interface JudgedRun {
  variant: string | null;
  dir: string;
}

export type Judgement =
  /** A fact cannot be derived: this is no measurement of what the article says; each problem names the file, the fact and the step. */
  | { verdict: 'facts'; problems: string[] }
  /** Every fact derived; `broken` holds one block per claim that no longer holds (none: the run may be swapped in). */
  | { verdict: 'claims'; broken: string[]; notes: string[] };

/**
 * Judges the runs of one capture of `slug`. The claims across variants are
 * evaluated over these runs and, for variants not in them, the runs in
 * `folderOfOther` (what the swap would leave there); a comparison that cannot
 * be evaluated for want of those is a note, not this run's failure.
 */
export function judgeRuns(slug: string, defs: ArticleDefinitions, runs: readonly JudgedRun[], folderOfOther: (variant: string) => string): Judgement {
  const problems: string[] = [];
  const broken: string[] = [];
  for (const run of runs) {
    try {
      const evidence = evidenceFromDisk(slug, run.dir, defs, { variants: false, variant: run.variant });
      broken.push(...formatBrokenClaims(evidence.claims).map((block) => (run.variant === null ? block : `${run.variant}: ${block}`)));
    } catch (error) {
      if (!(error instanceof EvidenceError)) throw error;
      problems.push(...error.problems.map((p) => (run.variant === null ? p : `variant ${run.variant}: ${p}`)));
    }
  }
  if (problems.length) return { verdict: 'facts', problems };

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
