// `--accept RUN`: swaps in a run a capture kept aside, as a capture would: every
// target checked, dead runs recovered, each run recorded and its target locked,
// the run copied beside its target (run.yaml last) and its facts derived there
// again before the swap. Broken claims are what is being accepted; a fact that
// cannot be derived is not.
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { articleDir, listArticleSlugs, loadArticle } from '../../authoring/load.ts';
import type { ArticleDefinitions } from '../../evidence/runs/from-disk.ts';
import { defaultVariant, variantFolder } from '../../experiment/variants.ts';
import { checkTarget, TargetError } from '../snapshots/target.ts';
import { judgeRuns } from '../session/judge-run.ts';
import { KEPT_MANIFEST, keptFolder, keptRunsDir, KeptRunError, readKept, type KeptManifest } from '../session/kept-run.ts';
import { swapInRuns, SwapError, SwapInterrupted } from '../merge/swap-in.ts';
import type { Baseline } from '../session/what-changed.ts';
import { clip } from '../machine/clip.ts';
import { displayPath } from '../../evidence/errors.ts';
import { fail, failingOn, say, sayLine, type CaptureContext } from './edge.ts';
import { recoverKilledRuns } from './providers.ts';
import { reportSwapped, runLabel } from './report.ts';

type Kept = { dir: string; manifest: KeptManifest };

export async function accept(ref: string, ctx: CaptureContext): Promise<void> {
  const kept = await readAcceptable(ref, ctx.root);
  const { slug } = kept.manifest;
  await recoverKilledRuns();
  const defs = await loadArticle(ctx.root, slug);
  const folderOfOther = otherVariantsFolder(kept.manifest, defs, ctx.root);
  const judged = judgeRuns(
    slug,
    defs,
    kept.manifest.runs.map((r) => ({ variant: r.variant, dir: join(kept.dir, r.folder) })),
    folderOfOther,
  );
  if (judged.verdict === 'facts')
    fail(`--accept ${clip(ref)}: facts cannot be derived from the kept run, so it cannot be accepted: ${judged.problems.join(' | ')}`, 1);

  ctx.interrupts.running = true;
  const previous = await swapIn(ref, kept, defs, folderOfOther, ctx);
  ctx.interrupts.running = false;
  rmSync(kept.dir, { recursive: true, force: true });
  for (const run of kept.manifest.runs) {
    say([
      `accepted run ${run.runId} of ${runLabel(slug, run.variant)}: ${relative(process.cwd(), run.target) || run.target} now holds it; the build fails until the prose follows the claims that broke (SHICE_DRAFT=1 builds anyway)`,
    ]);
    reportSwapped(slug, run.target, defs, run.variant, previous.get(run.runId)!);
  }
}

/** The kept run `ref` names, once it is one that may be accepted here and every target it would replace may be replaced. */
async function readAcceptable(ref: string, root: string): Promise<Kept> {
  let kept: Kept;
  try {
    kept = readKept(keptFolder(ref, keptRunsDir()));
  } catch (error) {
    if (error instanceof KeptRunError) fail(`--accept ${clip(ref)}: ${error.message}`, 2);
    throw error;
  }
  const { slug } = kept.manifest;
  if (!(await listArticleSlugs(root)).includes(slug))
    fail(`${displayPath(join(kept.dir, KEPT_MANIFEST))}: field "slug": no article ${clip(slug, 80)} in this checkout`, 2);
  if (kept.manifest.reason === 'facts')
    fail(`--accept ${clip(ref)}: its facts could not be derived when it was captured; such a run is no measurement and cannot be accepted`, 2);
  for (const run of kept.manifest.runs)
    failingOn(TargetError, 2, () => checkTarget(run.target, slug, relative(process.cwd(), run.target) || run.target, [root]));
  return kept;
}

/** Where a variant the kept run does not hold is read from: beside the kept default variant's target, or the article's snapshots. */
function otherVariantsFolder(manifest: KeptManifest, defs: ArticleDefinitions, root: string): (variant: string) => string {
  const experiment = defs.experiment ?? null;
  const byDefault = experiment ? defaultVariant(experiment) : null;
  const defaultTarget = manifest.runs.find((r) => r.variant === byDefault)?.target;
  return (variant) => variantFolder(defaultTarget ?? join(articleDir(root, manifest.slug), 'snapshots'), variant, byDefault);
}

/** Swaps every run of the kept one in together; the baselines they replaced, by run id. */
async function swapIn(
  ref: string,
  kept: Kept,
  defs: ArticleDefinitions,
  folderOfOther: (variant: string) => string,
  ctx: CaptureContext,
): Promise<Map<string, Baseline>> {
  const { slug } = kept.manifest;
  const runs = kept.manifest.runs.map((r) => ({
    slug,
    variant: r.variant,
    runId: r.runId,
    from: join(kept.dir, r.folder),
    target: r.target,
    articleDir: articleDir(ctx.root, slug),
  }));
  try {
    return await swapInRuns([{ slug, defs, runs, folderOfOther }], { signal: ctx.interrupts.signal, say: sayLine, acceptBrokenClaims: true });
  } catch (error) {
    if (error instanceof SwapError) fail(error.message, error.code);
    if (error instanceof SwapInterrupted) fail(`--accept ${clip(ref)}: interrupted; the snapshots were left as they were`, ctx.interrupts.exitCode());
    fail(`--accept ${clip(ref)}: ${(error as Error).message}; the snapshots were left as they were`, 1);
  }
}
