// `--compare DIR`: what differs between the committed snapshots and the run in
// DIR (DIR/<slug>, or DIR itself when it holds run.yaml); captures nothing.
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { articleDir, loadArticle } from '../../authoring/load.ts';
import type { ArticleDefinitions } from '../../evidence/runs/from-disk.ts';
import { baselineOf, claimsReport, runSide, tryEvidence, whatChangedLines } from '../session/what-changed.ts';
import { clip } from '../machine/clip.ts';
import { displayPath } from '../../evidence/errors.ts';
import { minorOf } from '../../experiment/kubernetes.ts';
import { DRIVER_OF } from '../../experiment/environments.ts';
import { shownName, terminalSafe } from '../../evidence/terminal-text.ts';
import { inEnvironment, otherRelease, type ArticlePlan } from './plans.ts';
import { fail } from './edge.ts';

export async function compare(dir: string, plans: readonly ArticlePlan[], root: string): Promise<void> {
  for (const plan of plans) {
    const defs = await loadArticle(root, plan.slug);
    for (const variant of plan.variants) compareVariant(dir, plan, variant, defs, root);
  }
}

function compareVariant(dir: string, plan: ArticlePlan, variant: string | null, defs: ArticleDefinitions, root: string): void {
  const label = `${plan.slug} (${[otherRelease(plan), plan.environment, variant].filter(Boolean).join(', ')})`;
  const committedDir = inEnvironment(plan, join(articleDir(root, plan.slug), 'snapshots'), variant);
  const committed = baselineOf(tryEvidence(plan.slug, committedDir, defs, variant), existsSync(committedDir), displayPath(committedDir), 'committed');
  const otherDir = runFolder(dir, plan, variant);
  // Names from the filesystem, shown on one line whatever they hold.
  const shown = shownName(relative(process.cwd(), otherDir) || '.');
  const given = shownName(clip(dir));
  const other = tryEvidence(plan.slug, otherDir, defs, variant, true);
  if (!other.evidence) {
    // The headline's default run must be there; another version or variant may not have been captured.
    if (variant === plan.defaultVariant && otherRelease(plan) === null) fail(`--compare ${given}: ${other.problem}`, 2);
    process.stdout.write(`${label}: no run in ${shown}\n`);
    return;
  }
  // The run says where it ran and which release: compared only with the committed run of the same.
  const { run } = other.evidence.snapshots;
  if (run.driver !== DRIVER_OF[plan.environment])
    fail(
      `--compare ${given}: ${shown}/run.yaml: field "driver": names ${JSON.stringify(run.driver)}, but the comparison is with the ${plan.environment} snapshots; expected a ${plan.environment} run, or --driver ${run.driver}`,
      2,
    );
  const reported = run.versions['kubernetes'] ?? '';
  if (minorOf(reported) !== plan.release.minor)
    fail(
      `--compare ${given}: ${shown}/run.yaml: field "versions.kubernetes": names ${JSON.stringify(reported)}, but the comparison is with the ${plan.release.minor} snapshots; expected a ${plan.release.minor} run`,
      2,
    );
  process.stdout.write(`${label}: committed snapshots vs ${shown}\n`);
  process.stdout.write(`${terminalSafe([...whatChangedLines(committed, runSide(other.evidence)), claimsReport(other.evidence)].join('\n'))}\n`);
}

/** The variant's run under DIR/<slug>; the headline's default variant's may be DIR itself. */
function runFolder(dir: string, plan: ArticlePlan, variant: string | null): string {
  const nested = inEnvironment(plan, resolve(dir, plan.slug), variant);
  const alone = variant === plan.defaultVariant && otherRelease(plan) === null ? resolve(dir) : null;
  return existsSync(join(nested, 'run.yaml')) || alone === null ? nested : alone;
}
