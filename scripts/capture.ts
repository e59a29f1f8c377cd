// `npm run capture -- [slug...] [--driver kind|lab] [--out DIR] [--keep] [--dry-run] ...`
// The I/O edge of the capture: arguments, signals, progress, exit codes.
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCaptureArgs, selectSlugs, UsageError, USAGE, type CaptureArgs } from '../src/capture/cli-args.ts';
import { articleDir, listArticleSlugs, loadExperiment } from '../src/capture/articles.ts';
import { createDriver } from '../src/capture/drivers.ts';
import { PrerequisiteError, VariantUnsupported } from '../src/capture/driver.ts';
import { CaptureAborted, runCapture, stepNode, type CaptureResult } from '../src/capture/runner.ts';
import { defaultVariant, experimentForVariant, selectVariants, variantFolder, variantProblems } from '../src/experiment/variants.ts';
import { createReporter, formatSummary } from '../src/capture/progress.ts';
import { gitInfo, hostInfo } from '../src/capture/host.ts';
import { makeRunId } from '../src/capture/run-id.ts';
import { symbolicTopologyView } from '../src/capture/topology-view.ts';
import type { Experiment } from '../src/experiment/types.ts';
import { loadArticleDefinitions } from '../src/evidence/article/from-disk.ts';
import { claimsReport, tryEvidence, whatChanged } from '../src/capture/what-changed.ts';
import { existsSync, mkdirSync } from 'node:fs';
import { constants } from 'node:os';
import { clip } from '../src/capture/clip.ts';
import { checkTarget, inspectTarget, judgeTarget, TargetError } from '../src/capture/target.ts';
import { acquireLock, LockHeld, type Lock } from '../src/capture/lock.ts';
import { recoverDeadRuns, settleSwap } from '../src/capture/recover.ts';
import { currentOwner, forgetRecord, recordCapture } from '../src/capture/run-registry.ts';
import { swapPaths } from '../src/capture/snapshot-writer.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Exit codes: 2 usage and prerequisites, 1 a failed run, 128 + the signal's number for an interrupt. */
function fail(message: string, code: number): never {
  // One line, whatever an error carried (a tool's output, a long path).
  process.stderr.write(`capture: ${clip(message.replaceAll('\n', ' | '), 2000)}\n`);
  process.exit(code);
}

const signalExitCode = (signal: NodeJS.Signals) => 128 + (constants.signals[signal] ?? 0);

// Signals, from the first line on: until a run is under way there is nothing to clean up,
// and a signal ends the capture at once with 130 (SIGINT) or 143 (SIGTERM).
const controller = new AbortController();
let stopSignal: NodeJS.Signals | null = null;
let running = false;
let interrupts = 0;
const onSignal = (signal: NodeJS.Signals) => {
  interrupts += 1;
  stopSignal ??= signal;
  if (!running) process.exit(signalExitCode(signal));
  if (interrupts === 1) {
    process.stderr.write(`\ncapture: ${signal}: stopping and cleaning up (the snapshots stay as they were)\n`);
    controller.abort();
  } else if (interrupts === 2) {
    process.stderr.write('capture: still cleaning up; a third signal quits at once and may leave the environment behind (the next capture or --clean removes it)\n');
  } else {
    process.exit(signalExitCode(stopSignal));
  }
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

function printPlan(args: CaptureArgs, experiment: Experiment, driver: ReturnType<typeof createDriver>, variant: string | null): void {
  const line = (argv: string[]) => process.stdout.write(`${argv.join(' ')}\n`);
  const plan = driver.plan(experiment);
  process.stdout.write(`# ${experiment.slug}${variant === null ? '' : ` variant ${variant}`} with --driver ${args.driver}: setup\n`);
  plan.setup.forEach(line);
  for (const step of experiment.steps) {
    process.stdout.write(`# step ${step.id} (${stepNode(step)}): ${step.title}\n`);
    if (step.kind === 'exec') line(driver.execArgv(step.node, step.command(symbolicTopologyView)));
    else (driver.planDeletePod?.(step) ?? []).forEach(line);
  }
  process.stdout.write('# teardown\n');
  plan.teardown.forEach(line);
}

// A closed pipe (`npm run capture | head`) must not kill the capture before it
// has taken the environment down: stop writing, keep running, clean up.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

async function main(): Promise<void> {
  let args: CaptureArgs;
  let slugs: string[];
  try {
    args = parseCaptureArgs(process.argv.slice(2));
    if (args.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (args.clean) {
      const done = await recoverDeadRuns((line) => process.stderr.write(`capture: ${line}\n`), { reportUnrecorded: true });
      process.stdout.write(done.length ? `recovered ${done.length}: ${done.join('; ')}\n` : 'nothing of killed captures or lab runs was left\n');
      return;
    }
    slugs = selectSlugs(args.slugs, await listArticleSlugs(root));
  } catch (error) {
    if (error instanceof UsageError || error instanceof PrerequisiteError) fail(error.message, 2);
    throw error;
  }

  // The source every run of this capture comes from, read once before any snapshot is swapped
  // in: the snapshots this capture writes do not make the next article's run "dirty".
  const git = await gitInfo(root);

  // Each article's experiment and the variants to capture, checked before any work.
  const plans: Array<{ slug: string; experiment: Experiment; variants: Array<string | null>; defaultVariant: string | null }> = [];
  for (const slug of slugs) {
    let experiment: Experiment;
    try {
      experiment = await loadExperiment(root, slug);
    } catch (error) {
      fail((error as Error).message, 2);
    }
    const problems = variantProblems(experiment, relative(root, join(articleDir(root, slug), 'experiment.ts')));
    if (problems.length) fail(problems[0]!, 2);
    try {
      plans.push({ slug, experiment, variants: selectVariants(experiment, args.variants), defaultVariant: defaultVariant(experiment) });
    } catch (error) {
      fail((error as Error).message, 2);
    }
  }
  const defaultTargetOf = (slug: string) => (args.out ? resolve(args.out, slug) : join(articleDir(root, slug), 'snapshots'));
  const targetOf = (slug: string, variant: string | null, defaultName: string | null) => variantFolder(defaultTargetOf(slug), variant, defaultName);

  if (!args.compare && !args.dryRun) {
    // Every target is judged before any work: a refusal touches nothing and starts nothing.
    for (const plan of plans) {
      for (const variant of plan.variants) {
        const target = targetOf(plan.slug, variant, plan.defaultVariant);
        try {
          checkTarget(target, plan.slug, args.out ? `--out ${args.out}: ${relative(resolve(args.out), target)}` : relative(root, target));
        } catch (error) {
          if (error instanceof TargetError) fail(error.message, 2);
          throw error;
        }
      }
    }
    // Runs killed earlier are found by their records and put right before anything reads the snapshots.
    await recoverDeadRuns((line) => process.stderr.write(`capture: recovered: ${line}\n`), { leaveKept: true });
  }

  if (args.compare) {
    for (const plan of plans) {
      const defs = await loadArticleDefinitions(root, plan.slug);
      for (const variant of plan.variants) {
        const label = variant === null ? plan.slug : `${plan.slug} (${variant})`;
        const committed = tryEvidence(plan.slug, variantFolder(join(articleDir(root, plan.slug), 'snapshots'), variant, plan.defaultVariant), defs, variant);
        const nested = variantFolder(resolve(args.compare, plan.slug), variant, plan.defaultVariant);
        const alone = variant === plan.defaultVariant ? resolve(args.compare) : null;
        const otherDir = existsSync(join(nested, 'run.yaml')) || alone === null ? nested : alone;
        const other = tryEvidence(plan.slug, otherDir, defs, variant);
        if (!other.evidence) {
          if (variant !== plan.defaultVariant) {
            process.stdout.write(`${label}: no run in ${relative(process.cwd(), otherDir) || '.'}\n`);
            continue;
          }
          fail(`--compare ${clip(args.compare)}: ${other.problem}`, 2);
        }
        process.stdout.write(`${label}: committed snapshots vs ${relative(process.cwd(), otherDir) || '.'}\n`);
        process.stdout.write(`${whatChanged(committed, other.evidence)}\n${claimsReport(other.evidence)}\n`);
      }
    }
    return;
  }

  for (const plan of plans) {
    const { slug } = plan;
    // One run per variant, each a driver of its own (its own run id, lab, namespaces); these plan and preflight.
    const runs = plan.variants.map((variant) => {
      const runId = makeRunId(new Date());
      const experiment = experimentForVariant(plan.experiment, variant);
      const driver = createDriver(args, { runId, articleDir: articleDir(root, slug), root });
      return { variant, runId, experiment, driver, target: targetOf(slug, variant, plan.defaultVariant) };
    });
    if (args.dryRun) {
      for (const run of runs) printPlan(args, run.experiment, run.driver, run.variant);
      continue;
    }
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
    const defs = await loadArticleDefinitions(root, slug);
    const owner = currentOwner();
    running = true;
    const held: Array<{ runId: string; lock: Lock }> = [];
    const release = () => {
      for (const { runId, lock } of held) {
        lock.release();
        forgetRecord('capture', runId);
      }
    };
    const done: Array<{ run: (typeof runs)[number]; result: CaptureResult; previous: ReturnType<typeof tryEvidence>; seconds: number }> = [];
    const discardStaged = async () => {
      for (const { result } of done) await result.staged?.discard();
    };
    for (const planned of runs) {
      // The run id (and so the driver) is made when the variant starts: it sorts by the run's own time.
      const runId = makeRunId(new Date());
      const run = { ...planned, runId, driver: createDriver(args, { runId, articleDir: articleDir(root, slug), root }) };
      const { target, driver, experiment, variant } = run;
      const paths = swapPaths(target, runId);
      const startedAt = new Date().toISOString();
      // The record first: from here on a kill -9 leaves nothing the next capture cannot find,
      // and a signal stops the run and cleans up instead of exiting at once.
      recordCapture({ kind: 'capture', runId, slug, owner, startedAt, ...paths });
      let lock: Lock;
      try {
        mkdirSync(dirname(target), { recursive: true });
        lock = acquireLock(paths.lock, { pid: owner.pid, startTime: owner.startTime, runId, startedAt, target, staging: paths.staging, previous: paths.previous });
      } catch (error) {
        forgetRecord('capture', runId);
        await discardStaged();
        release();
        if (error instanceof LockHeld) fail(`${clip(relative(process.cwd(), target) || target, 80)}: ${error.message}`, 2);
        fail(`${clip(target, 80)}: cannot take the lock: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 2);
      }
      held.push({ runId, lock });
      if (lock.tookOver || lock.tookOverUnreadable) {
        const dead = lock.tookOver;
        process.stderr.write(`capture: took over the lock of a capture that is gone${dead ? ` (pid ${dead.pid}, run ${dead.runId}, started ${dead.startedAt})` : ''}\n`);
        if (dead) for (const line of settleSwap(dead, dead.runId)) process.stderr.write(`capture: recovered: ${line}\n`);
      }
      // Read before the run (and after any recovery): the swap replaces these snapshots.
      const previous = tryEvidence(slug, target, defs, variant);
      const reporter = createReporter(process.stderr);
      const label = variant === null ? slug : `${slug} variant ${variant}`;
      process.stderr.write(`capture ${label} (run ${runId}) with --driver ${driver.name}\n`);
      const started = performance.now();
      try {
        const result = await runCapture({
          mayReplace: () => judgeTarget(inspectTarget(target), slug).ok,
          experiment, driver, target, runId,
          signal: controller.signal,
          reporter,
          git,
          host: hostInfo(),
          // Several variants are swapped in together, once every one has run.
          deferSwap: runs.length > 1,
        });
        reporter.close();
        done.push({ run, result, previous, seconds: performance.now() - started });
      } catch (error) {
        reporter.close();
        await discardStaged();
        release();
        const others = runs.length > 1 ? 'every variant\'s snapshots were left as they were' : 'the snapshots were left as they were';
        if (error instanceof CaptureAborted) fail(`${label}: interrupted; ${others}`, signalExitCode(stopSignal ?? 'SIGINT'));
        fail(`${label}: ${(error as Error).message}; ${others}`, 1);
      }
    }
    // Every variant has run: swap them in, each in its own folder.
    for (const { result } of done) await result.staged?.commit();
    running = false;
    release();
    for (const { run, result, previous, seconds } of done) {
      const label = run.variant === null ? slug : `${slug} variant ${run.variant}`;
      process.stderr.write(`${formatSummary(label, relative(process.cwd(), result.target) || '.', result.steps, seconds)}\n`);
      const next = tryEvidence(slug, result.target, defs, run.variant);
      if (next.evidence) process.stderr.write(`${claimsReport(next.evidence)}\n${whatChanged(previous, next.evidence)}\n`);
      else process.stderr.write(`the new snapshots do not derive the article's facts: ${next.problem}\n`);
    }
  }
}

try {
  await main();
} catch (error) {
  // Whatever was not foreseen still ends in one line, not a stack; the records let the next capture recover.
  fail(`unexpected error: ${(error as Error).message ?? String(error)}`, 1);
}
