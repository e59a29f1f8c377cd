// The one place the commands reach the drivers (src/capture/session/drivers.ts):
// the drivers of an article's runs, and the recovery of what killed runs left behind.
import { createDriver, PROVIDER_LEFTOVERS } from '../session/drivers.ts';
import type { CaptureArgs } from '../session/cli-args.ts';
import { articleDir } from '../../authoring/load.ts';
import { experimentForVariant } from '../../experiment/variants.ts';
import type { Experiment } from '../../experiment/types.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import { makeRunId } from '../recovery/run-id.ts';
import { recoverDeadRuns, type Recovery } from '../recovery/recover.ts';
import type { ArticlePlan } from './plans.ts';
import { sayLine } from './edge.ts';

type Driver = ReturnType<typeof createDriver>;

/** A driver of its own for one run of an article on one Kubernetes release: its run id, its lab or cluster. */
export const driverFor = (args: CaptureArgs, root: string, slug: string, runId: string, experiment: Experiment, kubernetes: KubeRelease): Driver =>
  createDriver(args, experiment, { runId, articleDir: articleDir(root, slug), root, kubernetes });

/** Each variant of the plan with its experiment and a driver of its own (its own run id, lab, namespaces), to plan and preflight. */
export function variantDrivers(args: CaptureArgs, root: string, plan: ArticlePlan): Array<{ variant: string | null; experiment: Experiment; driver: Driver }> {
  return plan.variants.map((variant) => {
    const runId = makeRunId(new Date());
    const experiment = experimentForVariant(plan.experiment, variant);
    return { variant, experiment, driver: driverFor(args, root, plan.slug, runId, experiment, plan.release) };
  });
}

/** Runs killed earlier (a capture's or a verify's), found by their records and put right before anything reads the snapshots; a kept-aside run stays. */
export const recoverKilledRuns = (say: (line: string) => void = sayLine): Promise<Recovery> =>
  recoverDeadRuns((line) => say(`recovered: ${line}`), { leftovers: PROVIDER_LEFTOVERS, leaveKept: true });

/** --clean: the same recovery, and what is left that no record names is reported too. */
export const cleanKilledRuns = (): Promise<Recovery> => recoverDeadRuns(sayLine, { leftovers: PROVIDER_LEFTOVERS, reportUnrecorded: true });
