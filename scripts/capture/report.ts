// What a capture and --accept say about runs: how a run is named, and how the
// claims stand in a run just swapped in and what changed from the run before.
import type { ArticleDefinitions } from '../../src/evidence/runs/from-disk.ts';
import { claimsReport, runSide, tryEvidence, whatChangedLines, type Baseline } from '../../src/capture/what-changed.ts';
import { say } from './edge.ts';

/** A run's name in what the capture says: the slug, and its variant if it has one. */
export const runLabel = (slug: string, variant: string | null): string => (variant === null ? slug : `${slug} variant ${variant}`);

/** What stays as it was when `count` variants' runs are not swapped in. */
export const untouched = (count: number): string => (count > 1 ? "every variant's snapshots were left as they were" : 'the snapshots were left as they were');

/** How the claims stand in a run just swapped in, and what changed from the committed run it is compared with. */
export function reportSwapped(slug: string, target: string, defs: ArticleDefinitions, variant: string | null, previous: Baseline): void {
  const next = tryEvidence(slug, target, defs, variant, true);
  if (next.evidence) say([claimsReport(next.evidence), ...whatChangedLines(previous, runSide(next.evidence))]);
  else say([`the new snapshots do not derive the article's facts: ${next.problem}`]);
}
