// The capture itself: each article's variants run for real, judged together, then
// swapped in together (or kept aside when a claim broke), and what changed said.
import { join, relative, resolve } from 'node:path';
import type { CaptureArgs } from '../session/cli-args.ts';
import { definitionFile, loadArticle } from '../../authoring/load.ts';
import { connectionReuseWarnings } from '../../experiment/connection-reuse.ts';
import { PrerequisiteError, VariantUnsupported } from '../provider/node-provider.ts';
import { gitInfo } from '../machine/host.ts';
import { formatSummary } from '../session/progress.ts';
import { swapPaths } from '../snapshots/snapshot-writer.ts';
import { judgeRuns } from '../session/judge-run.ts';
import { swapInTogether, SwapTogetherError } from '../snapshots/swap-together.ts';
import { checkOutFolder, checkTarget, TargetError } from '../snapshots/target.ts';
import { otherRelease, targetOf, type ArticlePlan } from './plans.ts';
import { fail, failingOn, say, type CaptureContext } from './edge.ts';
import { keepAsideAndExit } from './kept-aside.ts';
import { buildWhatRunsNeed, planMachine } from './prepare.ts';
import { recoverKilledRuns, variantDrivers } from './providers.ts';
import { reportSwapped, runLabel } from './report.ts';
import { runVariants, type ArticleCapture, type HeldRuns, type PlannedRun } from './variant-runs.ts';

export async function capture(args: CaptureArgs, plans: readonly ArticlePlan[], ctx: CaptureContext): Promise<void> {
  // The source every run of this capture comes from, read once before any snapshot is swapped
  // in: the snapshots this capture writes do not make the next article's run "dirty".
  const git = await gitInfo(ctx.root);
  checkTargets(args, plans, ctx.root);
  // Said before any work, once an article: a curl that reuses its connection measures the first backend again.
  for (const slug of new Set(plans.map((p) => p.slug)))
    for (const line of connectionReuseWarnings(plans.find((p) => p.slug === slug)!.experiment, definitionFile(slug))) say([`capture: warning: ${line}`]);
  // Every run of every article and version checked against this machine before any starts: what it
  // lacks and the project builds is built now; what cannot be is every problem at once, exit 2, nothing written.
  await buildWhatRunsNeed(await planMachine(args, plans), ctx);
  // Runs killed earlier are found by their records and put right before anything reads the snapshots.
  await recoverKilledRuns();
  // Every run's own preflight, too, before the first run: a later version's cannot fail after an earlier one ran.
  const runnable: PlannedRun[][] = [];
  for (const plan of plans) runnable.push(await runnableVariants(args, plan, ctx.root));
  for (const [index, plan] of plans.entries()) {
    const runs = runnable[index]!;
    const defs = await loadArticle(ctx.root, plan.slug);
    ctx.interrupts.running = true;
    const article = { args, slug: plan.slug, defs, git, ctx };
    const held = await runVariants(article, runs);
    await judgeAndSwap(article, held, (variant) => targetOf(ctx.root, args, plan, variant));
  }
}

/** Every target is judged before any work: a refusal touches nothing and starts nothing. */
function checkTargets(args: CaptureArgs, plans: readonly ArticlePlan[], root: string): void {
  const out = args.out;
  if (out) failingOn(TargetError, 2, () => checkOutFolder(out, join(root, 'content/articles'), out));
  for (const plan of plans) {
    for (const variant of plan.variants) {
      const target = targetOf(root, args, plan, variant);
      const shown = out ? `--out ${out}: ${relative(resolve(out), target)}` : relative(root, target);
      failingOn(TargetError, 2, () => checkTarget(target, plan.slug, shown, [root]));
    }
  }
}

/**
 * Every variant's prerequisites before any runs. A variant this driver cannot run here (ipvs on a
 * kernel without IPVS) fails the capture when named, and is left out with one line otherwise.
 */
async function runnableVariants(args: CaptureArgs, plan: ArticlePlan, root: string): Promise<PlannedRun[]> {
  const runnable: PlannedRun[] = [];
  for (const { variant, experiment, driver } of variantDrivers(args, root, plan)) {
    try {
      await driver.provider.preflight();
      runnable.push({ variant, experiment, release: plan.release, otherRelease: otherRelease(plan), target: targetOf(root, args, plan, variant) });
    } catch (error) {
      if (error instanceof VariantUnsupported && !args.variants.length) {
        process.stderr.write(`capture: ${plan.slug} variant ${variant}: not captured, its snapshots stay as they are: ${error.message}\n`);
        continue;
      }
      if (error instanceof PrerequisiteError) fail(variant === null ? error.message : `variant ${variant}: ${error.message}`, 2);
      throw error;
    }
  }
  return runnable;
}

/** Every variant has run: judged together, then all swapped in and reported, or all kept aside. */
async function judgeAndSwap(article: ArticleCapture, held: HeldRuns, folderOfOther: (variant: string) => string): Promise<void> {
  const { slug, defs, ctx } = article;
  const staged = held.done.map((run) => ({ variant: run.variant, runId: run.runId, target: run.target, dir: swapPaths(run.target, run.runId).staging }));
  const judgement = judgeRuns(slug, defs, staged, folderOfOther);
  if (judgement.verdict === 'facts' || judgement.broken.length) return keepAsideAndExit(article, held, staged, judgement, folderOfOther);
  for (const note of judgement.notes) say([`capture: ${note}`]);
  // All or none: every target judged again, then swapped under a journal; a failure midway puts back the ones done.
  try {
    await swapInTogether(held.done.flatMap(({ result }) => (result.staged ? [result.staged] : [])));
  } catch (error) {
    if (!(error instanceof SwapTogetherError)) throw error;
    // Unsettled, the records stay: the next capture or --clean reads the journal they lead to.
    if (error.settled) await held.abandon();
    fail(error.message, 1);
  }
  ctx.interrupts.running = false;
  held.release();
  for (const { variant, result, previous, seconds } of held.done) {
    say([formatSummary(runLabel(slug, variant), relative(process.cwd(), result.target) || '.', result.steps, seconds)]);
    reportSwapped(slug, result.target, defs, variant, previous);
  }
}
