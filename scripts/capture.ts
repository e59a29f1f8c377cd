// `npm run capture -- [slug...] [--driver kind|lab] [--out DIR] [--keep] [--dry-run] ...`
// The I/O edge of the capture: arguments, progress, and each command; what they share
// (failures, exit codes, signals) is in capture/edge.ts.
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCaptureArgs, selectSlugs, UsageError, USAGE, type CaptureArgs } from '../src/capture/cli-args.ts';
import { ArticleFolderError, articleDir, listArticleSlugs, loadArticle } from '../src/authoring/load.ts';
import { PrerequisiteError, VariantUnsupported } from '../src/capture/driver.ts';
import { CaptureAborted, runCapture, type CaptureResult } from '../src/capture/runner.ts';
import { createReporter, formatSummary } from '../src/capture/progress.ts';
import { gitInfo, hostInfo } from '../src/capture/host.ts';
import { makeRunId } from '../src/capture/run-id.ts';
import { readBaseline, runSide, tryEvidence, whatChangedLines, type Baseline } from '../src/capture/what-changed.ts';
import { checkOutFolder, checkTarget, inspectTarget, judgeTarget, TargetError } from '../src/capture/target.ts';
import type { Lock } from '../src/capture/lock.ts';
import { currentOwner, forgetRecord } from '../src/capture/run-registry.ts';
import { swapPaths } from '../src/capture/snapshot-writer.ts';
import { holdTarget, SwapError } from '../src/capture/swap-in.ts';
import { judgeRuns } from '../src/capture/judge-run.ts';
import { keepAside, keptFolderName, keptRunsDir } from '../src/capture/kept-run.ts';
import { displayPath } from '../src/evidence/errors.ts';
import { EXIT_CLAIMS_BROKEN, fail, ignoreClosedPipes, Interrupts, say, sayLine, type CaptureContext } from './capture/edge.ts';
import { accept } from './capture/accept.ts';
import { reportSwapped } from './capture/report.ts';
import { clean } from './capture/clean.ts';
import { compare } from './capture/compare.ts';
import { printPlans } from './capture/dry-run.ts';
import { loadPlans, targetOf } from './capture/articles.ts';
import { driverFor, recoverKilledRuns, variantDrivers } from './capture/providers.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

// Signals, from the first line on: until a run is under way there is nothing to clean up,
// and a signal ends the capture at once with 130 (SIGINT) or 143 (SIGTERM).
const interrupts = new Interrupts().listen();
const ctx: CaptureContext = { root, interrupts };
ignoreClosedPipes();

async function main(): Promise<void> {
  let args: CaptureArgs;
  let slugs: string[];
  try {
    args = parseCaptureArgs(process.argv.slice(2));
    if (args.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (args.accept !== null) {
      await accept(args.accept, ctx);
      return;
    }
    if (args.clean) {
      await clean();
      return;
    }
    slugs = selectSlugs(args.slugs, await listArticleSlugs(root));
  } catch (error) {
    if (error instanceof UsageError || error instanceof PrerequisiteError || error instanceof ArticleFolderError) fail(error.message, 2);
    throw error;
  }

  const plans = await loadPlans(root, slugs, args);
  if (args.compare) return compare(args.compare, plans, root);
  if (args.dryRun) return printPlans(args, plans, root);

  // The source every run of this capture comes from, read once before any snapshot is swapped
  // in: the snapshots this capture writes do not make the next article's run "dirty".
  const git = await gitInfo(root);
  // Every target is judged before any work: a refusal touches nothing and starts nothing.
  if (args.out) {
    try {
      checkOutFolder(args.out, join(root, 'content/articles'), args.out);
    } catch (error) {
      if (error instanceof TargetError) fail(error.message, 2);
      throw error;
    }
  }
  for (const plan of plans) {
    for (const variant of plan.variants) {
      const target = targetOf(root, args, plan, variant);
      try {
        checkTarget(target, plan.slug, args.out ? `--out ${args.out}: ${relative(resolve(args.out), target)}` : relative(root, target), [root]);
      } catch (error) {
        if (error instanceof TargetError) fail(error.message, 2);
        throw error;
      }
    }
  }
  // Runs killed earlier are found by their records and put right before anything reads the snapshots.
  await recoverKilledRuns();

  for (const plan of plans) {
    const { slug } = plan;
    // One run per variant, each a driver of its own (its own run id, lab, namespaces); these preflight.
    const runs = variantDrivers(args, root, plan).map((run) => ({ ...run, target: targetOf(root, args, plan, run.variant) }));
    // Every variant's prerequisites before any runs. A variant this driver cannot run here (ipvs on a
    // kernel without IPVS) fails the capture when named, and is left out with one line otherwise.
    const runnable: typeof runs = [];
    for (const run of runs) {
      try {
        await run.driver.preflight(run.experiment);
        runnable.push(run);
      } catch (error) {
        if (error instanceof VariantUnsupported && !args.variants.length) {
          process.stderr.write(`capture: ${slug} variant ${run.variant}: not captured, its snapshots stay as they are: ${error.message}\n`);
          continue;
        }
        if (error instanceof PrerequisiteError) fail(run.variant === null ? error.message : `variant ${run.variant}: ${error.message}`, 2);
        throw error;
      }
    }
    runs.splice(0, runs.length, ...runnable);
    const defs = await loadArticle(root, slug);
    const owner = currentOwner();
    interrupts.running = true;
    const held: Array<{ runId: string; lock: Lock }> = [];
    const release = () => {
      for (const { runId, lock } of held) {
        lock.release();
        forgetRecord('capture', runId);
      }
    };
    const done: Array<{ run: (typeof runs)[number] & { runId: string }; result: CaptureResult; previous: Baseline; seconds: number }> = [];
    const discardStaged = async () => {
      for (const { result } of done) await result.staged?.discard();
    };
    for (const planned of runs) {
      // The run id (and so the driver) is made when the variant starts: it sorts by the run's own time.
      const runId = makeRunId(new Date());
      const run = { ...planned, runId, driver: driverFor(args, root, slug, runId) };
      const { target, driver, experiment, variant } = run;
      let lock: Lock;
      try {
        lock = holdTarget({ target, runId, slug, owner }, sayLine);
      } catch (error) {
        await discardStaged();
        release();
        if (error instanceof SwapError) fail(error.message, error.code);
        throw error;
      }
      held.push({ runId, lock });
      // Read before the run (and after any recovery): without --out the swap replaces these snapshots;
      // with --out they are the committed snapshots of the same environment and variant.
      const previous = readBaseline({ slug, target, articleDir: articleDir(root, slug), defs, variant }, displayPath);
      const reporter = createReporter(process.stderr);
      const label = variant === null ? slug : `${slug} variant ${variant}`;
      process.stderr.write(`capture ${label} (run ${runId}) with --driver ${driver.name}\n`);
      const started = performance.now();
      try {
        const result = await runCapture({
          mayReplace: () => judgeTarget(inspectTarget(target), slug).ok,
          experiment,
          driver,
          target,
          runId,
          articleDir: articleDir(root, slug),
          signal: interrupts.signal,
          reporter,
          git,
          host: hostInfo(),
          // Judged first (every variant together), swapped in only then.
          deferSwap: true,
        });
        reporter.close();
        done.push({ run, result, previous, seconds: performance.now() - started });
      } catch (error) {
        reporter.close();
        await discardStaged();
        release();
        const others = runs.length > 1 ? "every variant's snapshots were left as they were" : 'the snapshots were left as they were';
        if (error instanceof CaptureAborted) fail(`${label}: interrupted; ${others}`, interrupts.exitCode());
        // What the run was refused (a kind cluster it did not create) is a prerequisite, as a refused target is.
        fail(`${label}: ${(error as Error).message}; ${others}`, error instanceof PrerequisiteError ? 2 : 1);
      }
    }
    // Every variant has run: judge them together before any is swapped in.
    const staged = done.map(({ run }) => ({ variant: run.variant, runId: run.runId, target: run.target, dir: swapPaths(run.target, run.runId).staging }));
    const folderOfOther = (variant: string) => targetOf(root, args, plan, variant);
    const judgement = judgeRuns(slug, defs, staged, folderOfOther);
    if (judgement.verdict === 'facts' || judgement.broken.length) {
      let kept: string;
      try {
        kept = keepAside(
          keptRunsDir(),
          {
            schema: 1,
            slug,
            reason: judgement.verdict === 'facts' ? 'facts' : 'claims',
            keptAt: new Date().toISOString(),
            runs: staged.map((r) => ({ variant: r.variant, runId: r.runId, target: resolve(r.target), folder: keptFolderName(r.target) })),
          },
          (runId) => staged.find((r) => r.runId === runId)!.dir,
        );
      } catch (error) {
        await discardStaged();
        release();
        fail(`${slug}: the run was not swapped in and could not be kept aside: ${(error as Error).message}; the snapshots were left as they were`, 1);
      }
      release();
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
      const others = staged.length > 1 ? "every variant's snapshots were left as they were" : 'the snapshots were left as they were';
      say([
        `capture: ${slug}: ${where.broken.length} claim(s) no longer hold on this run, so it was not swapped in; ${others}:`,
        ...where.broken,
        ...where.notes,
        `the run is kept at ${shownKept}; if a claim was wrong about Kubernetes (a finding, not a broken run), swap the run in with \`npm run capture -- --accept ${basename(kept)}\` and change the prose`,
      ]);
      // What changed, as for a run swapped in: the kept run against the snapshots it would have replaced.
      for (const r of staged) {
        const previous = done.find((d) => d.run.runId === r.runId)!.previous;
        const next = tryEvidence(slug, join(kept, keptFolderName(r.target)), defs, r.variant, true);
        if (next.evidence) say(whatChangedLines(previous, runSide(next.evidence)));
      }
      process.exit(EXIT_CLAIMS_BROKEN);
    }
    for (const note of judgement.notes) say([`capture: ${note}`]);
    for (const { result } of done) await result.staged?.commit();
    interrupts.running = false;
    release();
    for (const { run, result, previous, seconds } of done) {
      const label = run.variant === null ? slug : `${slug} variant ${run.variant}`;
      say([formatSummary(label, relative(process.cwd(), result.target) || '.', result.steps, seconds)]);
      reportSwapped(slug, result.target, defs, run.variant, previous);
    }
  }
}

try {
  await main();
} catch (error) {
  // Whatever was not foreseen still ends in one line, not a stack; the records let the next capture recover.
  fail(`unexpected error: ${(error as Error).message ?? String(error)}`, 1);
}
