// The capture's closing report: how the claims stand in the new run, and what
// differs from the run it replaced (or from another run's folder, --compare).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { evidenceFromDisk, type ArticleDefinitions } from '../evidence/article/from-disk.ts';
import type { ArticleEvidence } from '../evidence/article/types.ts';
import { diffRuns, formatRunDiff, type RunSide } from '../evidence/diff.ts';
import { formatBrokenClaims } from '../evidence/claims.ts';

export function runSide(evidence: ArticleEvidence): RunSide {
  return { runId: evidence.snapshots.run.runId, steps: evidence.snapshots.run.steps, facts: evidence.facts, claims: evidence.claims };
}

/** The evidence of a snapshots folder, or why it cannot be read (a folder that is not there is not an error). */
export function tryEvidence(
  slug: string,
  dir: string,
  defs: ArticleDefinitions,
  variant: string | null = null,
): { evidence?: ArticleEvidence; problem?: string } {
  if (!existsSync(join(dir, 'run.yaml'))) return { problem: `${dir} holds no run` };
  try {
    // One folder, one run: that variant's facts and claims (the default's when none is named).
    return { evidence: evidenceFromDisk(slug, dir, defs, { variants: false, variant }) };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

export function claimsReport(evidence: ArticleEvidence): string {
  const broken = formatBrokenClaims(evidence.claims);
  const holds = evidence.claims.length - broken.length;
  if (!broken.length) return `claims: all ${evidence.claims.length} hold`;
  return [
    `claims: ${holds} hold, ${broken.length} no longer hold (the build will fail until the prose or the experiment changes; SHICE_DRAFT=1 builds anyway):`,
    ...broken,
  ].join('\n');
}

export function whatChanged(previous: { evidence?: ArticleEvidence; problem?: string }, next: ArticleEvidence): string {
  if (!previous.evidence) return `what changed: nothing to compare with (${previous.problem})`;
  return formatRunDiff(diffRuns(runSide(previous.evidence), runSide(next)));
}
