// An article's runs on which a claim no longer holds, or whose facts cannot be
// derived: not swapped in but kept aside (.shice/kept/<run id>), said why, and
// the capture ends: exit 3 for broken claims (--accept may swap them in), 1 for facts.
import { basename, join, relative, resolve } from 'node:path';
import { judgeRuns, type Judgement } from '../session/judge-run.ts';
import { keepAside, keptFolderName, keptRunsDir, type KeptManifest } from '../session/kept-run.ts';
import { runSide, tryEvidence, whatChangedLines } from '../session/what-changed.ts';
import { EXIT_CLAIMS_BROKEN, exitWith, fail, say } from './edge.ts';
import { untouched } from './report.ts';
import type { ArticleCapture, HeldRuns } from './variant-runs.ts';

/** A staged run as the judge reads it. */
interface StagedRun {
  variant: string | null;
  runId: string;
  target: string;
  dir: string;
}

/** Keeps the runs aside, says why, and ends the capture. */
export async function keepAsideAndExit(
  capture: ArticleCapture,
  held: HeldRuns,
  staged: readonly StagedRun[],
  judgement: Judgement,
  folderOfOther: (variant: string) => string,
): Promise<never> {
  const { slug, defs } = capture;
  const kept = await moveAside(slug, held, staged, judgement.verdict === 'facts' ? 'facts' : 'claims');
  held.release();
  // Judged again where it now is, so that every file named is one that exists.
  const where = judgeRuns(
    slug,
    defs,
    staged.map((r) => ({ variant: r.variant, dir: join(kept, keptFolderName(r.target)) })),
    folderOfOther,
  );
  const shownKept = relative(process.cwd(), kept) || kept;
  if (where.verdict === 'facts') {
    fail(
      `${slug}: facts cannot be derived from this run, so it is no measurement: ${where.problems.join(' | ')}; the snapshots were left as they were; the run is kept at ${shownKept} to look into (it cannot be accepted)`,
      1,
    );
  }
  say([
    `capture: ${slug}: ${where.broken.length} claim(s) no longer hold on this run, so it was not swapped in; ${untouched(staged.length)}:`,
    ...where.broken,
    ...where.notes,
    `the run is kept at ${shownKept}; if a claim was wrong about Kubernetes (a finding, not a broken run), swap the run in with \`npm run capture -- --accept ${basename(kept)}\` and change the prose`,
  ]);
  sayWhatChanged(capture, held, staged, kept);
  exitWith(EXIT_CLAIMS_BROKEN);
}

/** What changed, as for a run swapped in: each kept run against the snapshots it would have replaced. */
function sayWhatChanged(capture: ArticleCapture, held: HeldRuns, staged: readonly StagedRun[], kept: string): void {
  for (const r of staged) {
    const previous = held.done.find((d) => d.runId === r.runId)!.previous;
    const next = tryEvidence(capture.slug, join(kept, keptFolderName(r.target)), capture.defs, r.variant, true);
    if (next.evidence) say(whatChangedLines(previous, runSide(next.evidence)));
  }
}

/** The kept folder the staged runs were moved into, beside their manifest; if they cannot be, the capture fails with them removed. */
async function moveAside(slug: string, held: HeldRuns, staged: readonly StagedRun[], reason: KeptManifest['reason']): Promise<string> {
  try {
    return keepAside(
      keptRunsDir(),
      {
        schema: 1,
        slug,
        reason,
        keptAt: new Date().toISOString(),
        runs: staged.map((r) => ({ variant: r.variant, runId: r.runId, target: resolve(r.target), folder: keptFolderName(r.target) })),
      },
      (runId) => staged.find((r) => r.runId === runId)!.dir,
    );
  } catch (error) {
    await held.abandon();
    fail(`${slug}: the run was not swapped in and could not be kept aside: ${(error as Error).message}; the snapshots were left as they were`, 1);
  }
}
