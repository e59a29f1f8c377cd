// `--dry-run`: what a real run of each variant runs, in order, waits and health
// checks included: each line a command a shell accepts, after what the capture
// would build first and what would stop it here, as comments. Runs and builds nothing.
import type { CaptureArgs } from '../session/cli-args.ts';
import { articleDir } from '../../authoring/load.ts';
import { Cluster } from '../kubernetes/cluster.ts';
import { planLines } from '../session/plan-text.ts';
import { symbolicTopologyView } from '../../experiment/symbolic-view.ts';
import { otherRelease, type ArticlePlan } from './plans.ts';
import { variantDrivers } from './providers.ts';
import { planMachine, preparationComments } from './prepare.ts';

export async function printPlans(args: CaptureArgs, plans: readonly ArticlePlan[], root: string): Promise<void> {
  const before = preparationComments((await planMachine(args, plans)).preparation);
  if (before.length > 0) process.stdout.write(`${before.join('\n')}\n`);
  for (const plan of plans) {
    for (const { variant, experiment, driver } of variantDrivers(args, root, plan)) {
      const steps = new Cluster(driver, experiment, { articleDir: articleDir(root, plan.slug) }).plan(symbolicTopologyView);
      process.stdout.write(`${planLines(steps, { slug: plan.slug, variant, driver: args.driver, otherRelease: otherRelease(plan) }).join('\n')}\n`);
    }
  }
}
