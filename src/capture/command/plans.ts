// The articles a capture, a comparison or a dry run is about: each one's experiment,
// the Kubernetes versions and variants to capture and the environment they are
// measured in, checked before any work; and the folders their runs go to. A plan
// is one article on one version: a complete set of runs, judged and swapped in together.
import { join, resolve } from 'node:path';
import type { CaptureArgs } from '../session/cli-args.ts';
import { articleDir, definitionFile, loadArticle } from '../../authoring/load.ts';
import { defaultVariant, selectVariants, variantFolder, variantProblems } from '../../experiment/variants.ts';
import { environmentFolder, environmentOfDriver, environmentProblems, headlineEnvironment } from '../../experiment/environments.ts';
import { headlineVersion, selectVersions, versionFolder, versionProblems, type KubeRelease } from '../../experiment/kubernetes.ts';
import type { EnvironmentName, Experiment } from '../../experiment/types.ts';
import { fail } from './edge.ts';

export interface ArticlePlan {
  slug: string;
  experiment: Experiment;
  variants: Array<string | null>;
  defaultVariant: string | null;
  /** The driver's: its runs go to that environment's folders (environments.ts). */
  environment: EnvironmentName;
  headline: EnvironmentName;
  /** The Kubernetes release these runs measure, and the experiment's headline release (whose runs live in snapshots/). */
  release: KubeRelease;
  headlineRelease: KubeRelease;
}

/** Each article's plan per version, in order; the first problem of any fails the capture (exit 2) before any work. */
export async function loadPlans(root: string, slugs: readonly string[], args: CaptureArgs): Promise<ArticlePlan[]> {
  const plans: ArticlePlan[] = [];
  for (const slug of slugs) plans.push(...(await loadPlan(root, slug, args)));
  return plans;
}

async function loadPlan(root: string, slug: string, args: CaptureArgs): Promise<ArticlePlan[]> {
  let experiment: Experiment;
  try {
    experiment = (await loadArticle(root, slug)).experiment;
  } catch (error) {
    fail((error as Error).message, 2);
  }
  const file = definitionFile(slug);
  const problems = [...versionProblems(experiment, file), ...environmentProblems(experiment, file), ...variantProblems(experiment, file)];
  if (problems.length) fail(problems[0]!, 2);
  try {
    const common = {
      slug,
      experiment,
      variants: selectVariants(experiment, args.variants),
      defaultVariant: defaultVariant(experiment),
      environment: environmentOfDriver(experiment, args.driver),
      headline: headlineEnvironment(experiment),
      headlineRelease: headlineVersion(experiment),
    };
    return selectVersions(experiment, args.versions).map((release) => ({ ...common, release }));
  } catch (error) {
    fail((error as Error).message, 2);
  }
}

/** The plan's release in what the capture says, unless it is the experiment's headline (whose runs are the article's own). */
export const otherRelease = (plan: ArticlePlan): string | null => (plan.release === plan.headlineRelease ? null : plan.release.release);

/** A variant's folder under `headlineFolder` on the plan's version, in its environment: `<folder>[.<version>][.<environment>][.<variant>]`. */
export const inEnvironment = (plan: ArticlePlan, headlineFolder: string, variant: string | null): string =>
  variantFolder(
    environmentFolder(versionFolder(headlineFolder, plan.release, plan.headlineRelease), plan.environment, plan.headline),
    variant,
    plan.defaultVariant,
  );

/** Where a capture writes a variant's run: under the article's snapshots/, or under --out DIR/<slug>. */
export function targetOf(root: string, args: CaptureArgs, plan: ArticlePlan, variant: string | null): string {
  const headlineTarget = args.out ? resolve(args.out, plan.slug) : join(articleDir(root, plan.slug), 'snapshots');
  return inEnvironment(plan, headlineTarget, variant);
}
