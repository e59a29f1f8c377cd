// One article's variants run one after the other, each under its target's lock
// and record, each left staged: they are judged together before any is swapped in.
import { articleDir } from '../../authoring/load.ts';
import type { CaptureArgs } from '../session/cli-args.ts';
import { PrerequisiteError } from '../provider/node-provider.ts';
import { CaptureAborted, runCapture, type CaptureInput, type CaptureResult } from '../session/runner.ts';
import { createReporter } from '../session/progress.ts';
import { hostInfo } from '../machine/host.ts';
import { makeRunId } from '../recovery/run-id.ts';
import type { Lock } from '../recovery/lock.ts';
import { currentOwner, forgetRecord, type Owner } from '../recovery/run-registry.ts';
import { holdTarget, SwapError } from '../merge/swap-in.ts';
import { inspectTarget, judgeTarget } from '../snapshots/target.ts';
import { readBaseline, type Baseline } from '../session/what-changed.ts';
import type { ArticleDefinitions } from '../../evidence/runs/from-disk.ts';
import type { RunSnapshot } from '../../evidence/schema.ts';
import { displayPath } from '../../evidence/errors.ts';
import type { Experiment } from '../../experiment/types.ts';
import { fail, sayLine, type CaptureContext } from './edge.ts';
import { driverFor } from './providers.ts';
import { runLabel, untouched } from './report.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';

/** What one article's capture runs with. */
export interface ArticleCapture {
  args: CaptureArgs;
  slug: string;
  defs: ArticleDefinitions;
  /** The source every run of this capture comes from, read once before any snapshot was swapped in. */
  git: RunSnapshot['git'];
  ctx: CaptureContext;
}

/** A variant that passed its preflight, the release it measures, and the folder its run replaces. */
export interface PlannedRun {
  variant: string | null;
  experiment: Experiment;
  release: KubeRelease;
  /** The release's name in what the capture says, unless it is the experiment's headline. */
  otherRelease: string | null;
  target: string;
}

/** A variant's complete run, staged, with the baseline it is compared with. */
interface DoneRun {
  variant: string | null;
  runId: string;
  target: string;
  result: CaptureResult;
  previous: Baseline;
  seconds: number;
}

/** The locks and records of an article's runs, and the runs done so far: released, or discarded and released, on every way out. */
export class HeldRuns {
  readonly done: DoneRun[] = [];
  private readonly held: Array<{ runId: string; lock: Lock }> = [];

  hold(runId: string, lock: Lock): void {
    this.held.push({ runId, lock });
  }

  release(): void {
    for (const { runId, lock } of this.held) {
      lock.release();
      forgetRecord('capture', runId);
    }
  }

  /** Removes every staged run (the targets stay as they were), then releases. */
  async abandon(): Promise<void> {
    for (const { result } of this.done) await result.staged?.discard();
    this.release();
  }
}

/** Runs every variant, in order; the first that fails abandons them all and ends the capture. */
export async function runVariants(capture: ArticleCapture, runs: readonly PlannedRun[]): Promise<HeldRuns> {
  const held = new HeldRuns();
  const owner = currentOwner();
  for (const run of runs) held.done.push(await runVariant(capture, run, { held, owner, count: runs.length }));
  return held;
}

async function runVariant(capture: ArticleCapture, run: PlannedRun, under: { held: HeldRuns; owner: Owner; count: number }): Promise<DoneRun> {
  const { args, slug, defs, ctx } = capture;
  const { target, variant } = run;
  // The run id (and so the driver) is made when the variant starts: it sorts by the run's own time.
  const runId = makeRunId(new Date());
  const driver = driverFor(args, ctx.root, slug, runId, run.experiment, run.release);
  await lockTarget(run, runId, slug, under);
  // Read before the run (and after any recovery): without --out the swap replaces these snapshots;
  // with --out they are the committed snapshots of the same environment and variant.
  const previous = readBaseline({ slug, target, articleDir: articleDir(ctx.root, slug), defs, variant }, displayPath);
  const reporter = createReporter(process.stderr);
  const label = runLabel(slug, variant, run.otherRelease);
  process.stderr.write(`capture ${label} (run ${runId}) with --driver ${driver.provider.name}\n`);
  const started = performance.now();
  try {
    const result = await runCapture(captureInput(capture, run, { runId, driver, reporter }));
    reporter.close();
    return { variant, runId, target, result, previous, seconds: performance.now() - started };
  } catch (error) {
    reporter.close();
    await under.held.abandon();
    if (error instanceof CaptureAborted) fail(`${label}: interrupted; ${untouched(under.count)}`, ctx.interrupts.exitCode());
    // What the run was refused (a kind cluster it did not create) is a prerequisite, as a refused target is.
    fail(`${label}: ${(error as Error).message}; ${untouched(under.count)}`, error instanceof PrerequisiteError ? 2 : 1);
  }
}

/** What the runner is given for one variant's run: left staged, to be judged with the others before any is swapped in. */
function captureInput(capture: ArticleCapture, run: PlannedRun, own: Pick<CaptureInput, 'runId' | 'driver' | 'reporter'>): CaptureInput {
  const { slug, ctx } = capture;
  return {
    mayReplace: () => judgeTarget(inspectTarget(run.target), slug).ok,
    experiment: run.experiment,
    kubernetes: run.release,
    target: run.target,
    ...own,
    articleDir: articleDir(ctx.root, slug),
    signal: ctx.interrupts.signal,
    git: capture.git,
    host: hostInfo(),
    // Judged first (every variant together), swapped in only then.
    deferSwap: true,
  };
}

/** The target's lock and the run's record, held until the article's runs are swapped in or given up. */
async function lockTarget(run: PlannedRun, runId: string, slug: string, under: { held: HeldRuns; owner: Owner }): Promise<void> {
  try {
    under.held.hold(runId, holdTarget({ target: run.target, runId, slug, owner: under.owner }, sayLine));
  } catch (error) {
    await under.held.abandon();
    if (error instanceof SwapError) fail(error.message, error.code);
    throw error;
  }
}
