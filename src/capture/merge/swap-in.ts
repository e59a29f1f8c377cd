// Runs that were captured and judged elsewhere (a run kept aside, run folders
// from other machines) swapped into their targets as a capture swaps its own:
// each run recorded and its target locked first, its files copied into a
// staging folder beside the target (run.yaml last), its facts derived there
// again, and only then every target replaced, all or none (swap-together.ts).
// Any failure leaves every target as it was and nothing beside it. The I/O of --accept and
// capture:merge, once.
import { minorOf, versionsOf } from '../../experiment/kubernetes.ts';
import { environmentMeasuredBy } from '../../experiment/environments.ts';
import { constants as fsConstants, copyFileSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import type { ArticleDefinitions } from '../../evidence/runs/from-disk.ts';
import { displayPath } from '../../evidence/errors.ts';
import { loadSnapshots } from '../../evidence/load.ts';
import { clip } from '../machine/clip.ts';
import { judgeRuns } from '../session/judge-run.ts';
import { runFolderName } from './merge-plan.ts';
import { acquireLock, LockHeld, type Lock } from '../recovery/lock.ts';
import { settleSwap } from '../recovery/recover.ts';
import { swapInTogether, SwapTogetherError } from '../snapshots/swap-together.ts';
import { currentOwner, forgetRecord, recordCapture, type Owner } from '../recovery/run-registry.ts';
import { openStaging, swapPaths, type Staging } from '../snapshots/snapshot-writer.ts';
import { inspectTarget, judgeTarget } from '../snapshots/target.ts';
import { readBaseline, type Baseline } from '../session/what-changed.ts';

/** A swap that cannot start or finish; `code` is the exit code the command ends with (2: the target is held or unusable). */
export class SwapError extends Error {
  override name = 'SwapError';
  readonly code: number;
  /** False when a swap was cut short and could not be put back: its journal stays for recovery, and the message says which targets hold what. */
  readonly settled: boolean;
  constructor(message: string, code: number, settled = true) {
    super(message);
    this.code = code;
    this.settled = settled;
  }
}

/** The swap was interrupted before any target was replaced. */
export class SwapInterrupted extends Error {
  override name = 'SwapInterrupted';
}

/**
 * Records the run, then takes its target's lock: from here on a kill -9 leaves
 * nothing the next capture cannot find. A lock held by a live capture is a
 * SwapError (code 2). A lock left by a dead one is taken over and its swap
 * settled, each step said through `say`.
 */
export function holdTarget(run: { target: string; runId: string; slug: string; owner: Owner }, say: (line: string) => void): Lock {
  const { target, runId, slug, owner } = run;
  const paths = swapPaths(target, runId);
  const startedAt = new Date().toISOString();
  recordCapture({ kind: 'capture', runId, slug, owner, startedAt, ...paths });
  let lock: Lock;
  try {
    mkdirSync(dirname(target), { recursive: true });
    lock = acquireLock(paths.lock, { pid: owner.pid, startTime: owner.startTime, runId, startedAt, target, staging: paths.staging, previous: paths.previous });
  } catch (error) {
    forgetRecord('capture', runId);
    if (error instanceof LockHeld) throw new SwapError(`${clip(relative(process.cwd(), target) || target, 80)}: ${error.message}`, 2);
    throw new SwapError(`${clip(target, 80)}: cannot take the lock: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 2);
  }
  if (lock.tookOver || lock.tookOverUnreadable) {
    const dead = lock.tookOver;
    say(`took over the lock of a capture that is gone${dead ? ` (pid ${dead.pid}, run ${dead.runId}, started ${dead.startedAt})` : ''}`);
    if (dead) for (const line of settleSwap(dead, dead.runId)) say(`recovered: ${line}`);
  }
  return lock;
}

/** A run's files copied into a staging folder, run.yaml last: recovery finishes a swap only when run.yaml is there. */
export function copyRunInto(from: string, to: string): void {
  const names = readdirSync(from).sort((a, b) => Number(a === 'run.yaml') - Number(b === 'run.yaml'));
  for (const name of names) {
    const stat = lstatSync(join(from, name));
    if (!stat.isFile() || stat.nlink !== 1) throw new Error(`${displayPath(join(from, name))}: expected a regular file with one link, as the capture wrote it`);
    copyFileSync(join(from, name), join(to, name), fsConstants.COPYFILE_EXCL);
  }
}

/**
 * Why the staged copy is not the run planned for its target (its run id, or the
 * environment and variant its run.yaml names, which decide the folder), or
 * undefined. Read after the judgement, from the same staged files.
 */
function stagedAsPlanned(run: IncomingRun, dir: string, defs: ArticleDefinitions): string | undefined {
  const { run: staged, files } = loadSnapshots(dir);
  const experiment = defs.experiment ?? null;
  const variant = experiment?.variants ? staged.cluster.kubeProxyMode : null;
  const reported = staged.versions['kubernetes'] ?? '';
  const release = versionsOf(experiment).find((r) => r.minor === minorOf(reported));
  if (!release)
    return `${files.run}: field "versions.kubernetes": expected a release of ${versionsOf(experiment)
      .map((r) => r.minor)
      .join(', ')}, got ${JSON.stringify(reported)}`;
  const environment = environmentMeasuredBy(staged.driver);
  if (environment === null) return `${files.run}: field "driver": names ${staged.driver}, which measures no environment of an article`;
  // A checkout's snapshot folder, or an --out folder (named by the slug).
  const names = [runFolderName('snapshots', experiment, environment, variant, release), runFolderName(run.slug, experiment, environment, variant, release)];
  const folder = names[0];
  if (staged.runId !== run.runId)
    return `${files.run}: field "runId": expected ${run.runId}, the run judged for ${displayPath(run.target)}, got ${staged.runId}`;
  if (!names.includes(basename(run.target)))
    return `${files.run}: names driver ${staged.driver}, kube-proxy mode ${staged.cluster.kubeProxyMode}, Kubernetes ${reported}: the run of ${folder}, not of ${displayPath(run.target)}`;
  return undefined;
}

/** One run to swap in: the folder it is read from and the target it replaces. */
export interface IncomingRun {
  slug: string;
  variant: string | null;
  runId: string;
  /** The folder holding the run's files (a kept run's, a merged run folder). */
  from: string;
  target: string;
  /** The article's folder in the checkout: the baseline the report compares with is found from it. */
  articleDir: string;
}

/** The runs of one article's environment, judged together once copied (claims across variants read the others' folders). */
export interface IncomingGroup {
  slug: string;
  defs: ArticleDefinitions;
  runs: IncomingRun[];
  /** Where a variant not in `runs` lives (the target the swap leaves in place). */
  folderOfOther: (variant: string) => string;
}

export interface SwapInOptions {
  signal: AbortSignal;
  say: (line: string) => void;
  /** Swap in runs on which claims no longer hold (--accept, --accept-broken-claims); otherwise such a run is refused with code 3. */
  acceptBrokenClaims: boolean;
  /** Called once every lock is held, before anything is copied (the caller's "cleaning up is now due" mark). */
  onLocked?: () => void;
  /** Called once every staged copy is judged, right before the swap (the tests change a target there). */
  beforeSwap?: () => void;
}

/**
 * Swaps every group's runs in, all or none of them up to the swaps
 * themselves: locks, staging copies, and the judgement (schema, driver, facts,
 * claims) of the staged copies, which is what the swap moves in. Returns each run's baseline (the committed
 * snapshots it replaced, read under the lock) by run id.
 */
export async function swapInRuns(groups: readonly IncomingGroup[], options: SwapInOptions): Promise<Map<string, Baseline>> {
  const owner = currentOwner();
  const held: Array<{ runId: string; lock: Lock }> = [];
  const stagings: Staging[] = [];
  const release = () => {
    for (const { runId, lock } of held) {
      lock.release();
      forgetRecord('capture', runId);
    }
    held.length = 0;
  };
  const undo = async () => {
    for (const staging of stagings) await staging.discard();
    release();
  };
  const previous = new Map<string, Baseline>();
  try {
    for (const group of groups) {
      for (const run of group.runs) {
        held.push({ runId: run.runId, lock: holdTarget({ target: run.target, runId: run.runId, slug: run.slug, owner }, options.say) });
      }
    }
    options.onLocked?.();
    for (const group of groups) {
      for (const run of group.runs) {
        if (options.signal.aborted) throw new SwapInterrupted('interrupted');
        previous.set(
          run.runId,
          readBaseline({ slug: run.slug, target: run.target, articleDir: run.articleDir, defs: group.defs, variant: run.variant }, displayPath),
        );
        const staging = await openStaging(run.target, run.runId, () => judgeTarget(inspectTarget(run.target), run.slug).ok);
        stagings.push(staging);
        copyRunInto(run.from, staging.dir);
      }
    }
    // The judgement that decides is made on the staged copy itself, the files the swap moves in:
    // an input changed after it was first judged changes nothing here.
    let index = 0;
    for (const group of groups) {
      const staged = group.runs.map((r) => ({ variant: r.variant, dir: stagings[index++]!.dir }));
      const judged = judgeRuns(group.slug, group.defs, staged, group.folderOfOther);
      if (judged.verdict === 'facts')
        throw new SwapError(`${group.slug}: the copy beside the target does not derive its facts, so it is no measurement: ${judged.problems.join(' | ')}`, 1);
      for (const [i, run] of group.runs.entries()) {
        const problem = stagedAsPlanned(run, staged[i]!.dir, group.defs);
        if (problem) throw new SwapError(problem, 2);
      }
      if (judged.broken.length && !options.acceptBrokenClaims)
        throw new SwapError(
          `${group.slug}: on the copy beside the target ${judged.broken.length} claim(s) no longer hold: ${judged.broken.map((b) => b.replaceAll('\n', ' ')).join(' | ')}`,
          3,
        );
    }
    options.beforeSwap?.();
    if (options.signal.aborted) throw new SwapInterrupted('interrupted');
    // All or none: every target judged again, then swapped under a journal; a failure midway puts back the ones done.
    await swapInTogether(stagings);
  } catch (error) {
    if (error instanceof SwapTogetherError) {
      // Unsettled, the records and locks stay: recovery reads the journal they lead to.
      if (error.settled) await undo();
      throw new SwapError(error.message, 1, error.settled);
    }
    await undo();
    throw error;
  }
  release();
  return previous;
}
