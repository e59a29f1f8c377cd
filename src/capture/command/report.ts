// What a capture and --accept say about runs: how a run is named, and how the
// claims stand in a run just swapped in and what changed from the run before.
import type { ArticleDefinitions } from '../../evidence/runs/from-disk.ts';
import { claimsReport, runSide, tryEvidence, whatChangedLines, type Baseline } from '../session/what-changed.ts';
import { say } from './edge.ts';

/** A run's name in what the capture says: the slug, its variant if it has one, and its Kubernetes release unless it is the headline's. */
export const runLabel = (slug: string, variant: string | null, otherRelease: string | null = null): string =>
  `${slug}${variant === null ? '' : ` variant ${variant}`}${otherRelease === null ? '' : ` on Kubernetes ${otherRelease}`}`;

/** What stays as it was when `count` variants' runs are not swapped in. */
export const untouched = (count: number): string => (count > 1 ? "every variant's snapshots were left as they were" : 'the snapshots were left as they were');

/** How the claims stand in a run just swapped in, and what changed from the committed run it is compared with. */
export function reportSwapped(slug: string, target: string, defs: ArticleDefinitions, variant: string | null, previous: Baseline): void {
  const next = tryEvidence(slug, target, defs, variant, true);
  if (next.evidence) say([claimsReport(next.evidence), ...whatChangedLines(previous, runSide(next.evidence))]);
  else say([`the new snapshots do not derive the article's facts: ${next.problem}`]);
}
