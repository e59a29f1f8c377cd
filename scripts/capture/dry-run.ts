// `--dry-run`: what a real run of each variant runs, in order, waits and health
// checks included: each line a command a shell accepts. Runs nothing.
import type { CaptureArgs } from '../../src/capture/cli-args.ts';
import { articleDir } from '../../src/authoring/load.ts';
import { Cluster } from '../../src/capture/kubernetes/cluster.ts';
import { planLines } from '../../src/capture/plan-text.ts';
import { symbolicTopologyView } from '../../src/capture/topology-view.ts';
import { otherRelease, type ArticlePlan } from './articles.ts';
import { variantDrivers } from './providers.ts';

export function printPlans(args: CaptureArgs, plans: readonly ArticlePlan[], root: string): void {
  for (const plan of plans) {
    for (const { variant, experiment, driver } of variantDrivers(args, root, plan)) {
      const steps = new Cluster(driver, experiment, { articleDir: articleDir(root, plan.slug) }).plan(symbolicTopologyView);
      process.stdout.write(`${planLines(steps, { slug: plan.slug, variant, driver: args.driver, otherRelease: otherRelease(plan) }).join('\n')}\n`);
    }
  }
}
