// Which run folders a merge takes, and into which of the checkout's snapshot
// folders: each folder read as the run it says it is (its run.yaml's slug,
// driver, Kubernetes version and kube-proxy mode), its name checked against that, conflicts and
// partial sets of an article's variants refused. Every refusal is one line
// naming the folder. Pure: the folders' contents and the checkout's articles
// come in as data (merge.ts reads them).
import { basename } from 'node:path';
import type { EnvironmentName, Experiment } from '../../experiment/types.ts';
import { DRIVER_OF, environmentFolder, environmentMeasuredBy, environmentsOf, headlineEnvironment } from '../../experiment/environments.ts';
import { defaultVariant, variantFolder, variantsOf } from '../../experiment/variants.ts';
import { headlineVersion, minorOf, versionFolder, versionsOf, type KubeRelease } from '../../experiment/kubernetes.ts';
import { clip } from '../machine/clip.ts';
import { identityProblems } from '../../evidence/run-origin.ts';
import { judgeTarget, type TargetFacts } from '../snapshots/target.ts';

/** A run folder found among the folders given to the merge. */
export interface FoundRun {
  /** The run folder, absolute. */
  dir: string;
  /** The folder as shown in messages. */
  shown: string;
  /** Its name inside an --out folder; null when it was given itself. */
  name: string | null;
  facts: TargetFacts;
}

/** An article of the checkout as the merge needs it. */
export interface CheckoutArticle {
  slug: string;
  experiment: Experiment | null;
  /** Per version and environment (placeOf), the variants whose committed folder holds a run now. */
  committed: Partial<Record<string, Array<string | null>>>;
  /** The run id of every committed run of the article, and the snapshot folder (`snapshots.lab` …) that holds it. */
  committedRunIds: ReadonlyMap<string, string>;
}

/** One accepted run: where it is read from and the snapshot folder name (`snapshots[.<environment>][.<variant>]`) it replaces. */
export interface PlannedRun {
  dir: string;
  shown: string;
  variant: string | null;
  runId: string;
  /** `snapshots`, `snapshots.nftables`, `snapshots.lab`, `snapshots.lab.nftables` … */
  folder: string;
}

/** The runs of one article's environment on one version: swapped in together, their claims across variants judged together. */
export interface PlannedGroup {
  slug: string;
  release: KubeRelease;
  environment: EnvironmentName;
  runs: PlannedRun[];
}

/** A version and environment of an article, as one key: `v1.34 lab`. */
export const placeOf = (release: KubeRelease, environment: EnvironmentName): string => `${release.minor} ${environment}`;

export type MergePlan = { groups: PlannedGroup[] } | { problems: string[] };

/** The name a run folder has (`<slug>[.<version>][.<environment>][.<variant>]`, as --out writes it), given the folder of its headline run. */
export function runFolderName(
  base: string,
  experiment: Experiment | null,
  environment: EnvironmentName,
  variant: string | null,
  release: KubeRelease = headlineVersion(experiment),
): string {
  const inVersion = versionFolder(base, release, headlineVersion(experiment));
  return basename(
    variantFolder(environmentFolder(inVersion, environment, headlineEnvironment(experiment)), variant, experiment ? defaultVariant(experiment) : null),
  );
}

const show = (value: unknown) => clip(typeof value === 'string' ? JSON.stringify(value) : String(value), 60);

/**
 * The merge's plan: the accepted groups, or every refusal. `variants`, when
 * given (the capture's `--variant`), is the set of variants the merge expects
 * of each article that declares variants; otherwise an article's environment
 * must come whole: every variant that has a committed run there, and the
 * default variant. A partial set would put runs of different captures side by
 * side, and the claims across variants would compare them.
 */
export function planMerge(found: readonly FoundRun[], articles: readonly CheckoutArticle[], variants: readonly string[] = []): MergePlan {
  const problems: string[] = [];
  const bySlug = new Map(articles.map((a) => [a.slug, a]));
  type Slot = PlannedRun & { slug: string; release: KubeRelease; environment: EnvironmentName };
  const slots = new Map<string, Slot>();
  const runIds = new Map<string, string>();
  // A run id names one capture: it may come again only into the folder that holds it (the same run merged twice).
  const committedIds = new Map(articles.flatMap((a) => [...a.committedRunIds].map(([id, folder]) => [id, { slug: a.slug, folder }] as const)));

  for (const run of found) {
    const { facts } = run;
    if (facts.kind !== 'dir') {
      problems.push(
        `${run.shown}: expected a run folder written by --out (run.yaml and step files), found ${facts.kind === 'absent' ? 'nothing' : `a ${facts.kind}`}`,
      );
      continue;
    }
    const yaml = facts.runYaml as {
      slug?: unknown;
      driver?: unknown;
      runId?: unknown;
      versions?: { kubernetes?: unknown };
      cluster?: { kubeProxyMode?: unknown };
    } | null;
    if (facts.entries.length === 0 || yaml === null || typeof yaml !== 'object') {
      problems.push(`${run.shown}: holds no readable run.yaml; expected a run folder written by --out`);
      continue;
    }
    if (typeof yaml.slug !== 'string') {
      problems.push(`${run.shown}/run.yaml: field "slug": expected an article's slug, got ${show(yaml.slug)}`);
      continue;
    }
    const shape = judgeTarget(facts, yaml.slug);
    if (!shape.ok) {
      problems.push(`${run.shown}: ${shape.reason}; expected a run folder written by --out (run.yaml and step files only)`);
      continue;
    }
    const article = bySlug.get(yaml.slug);
    if (!article) {
      problems.push(`${run.shown}/run.yaml: field "slug": no article ${show(yaml.slug)} in this checkout`);
      continue;
    }
    const environments = environmentsOf(article.experiment);
    const environment = typeof yaml.driver === 'string' ? environmentMeasuredBy(yaml.driver) : null;
    if (environment === null || !environments.includes(environment)) {
      problems.push(
        `${run.shown}/run.yaml: field "driver": expected the driver of one of ${article.slug}'s environments (${environments.map((e) => DRIVER_OF[e]).join(', ')}), got ${show(yaml.driver)}`,
      );
      continue;
    }
    const reported = yaml.versions?.kubernetes;
    const release = versionsOf(article.experiment).find((r) => typeof reported === 'string' && r.minor === minorOf(reported));
    if (!release) {
      problems.push(
        `${run.shown}/run.yaml: field "versions.kubernetes": expected a release of one of ${article.slug}'s Kubernetes versions (${versionsOf(
          article.experiment,
        )
          .map((r) => r.minor)
          .join(', ')}), got ${show(reported)}`,
      );
      continue;
    }
    // The release a run claims decides its folder: every record of the run must name that one.
    const identity = identityProblems(yaml, `${run.shown}/run.yaml`);
    if (identity.length) {
      problems.push(identity[0]!);
      continue;
    }
    let variant: string | null = null;
    if (article.experiment?.variants) {
      const mode = yaml.cluster?.kubeProxyMode;
      const declared = variantsOf(article.experiment) as string[];
      if (typeof mode !== 'string' || !declared.includes(mode)) {
        problems.push(
          `${run.shown}/run.yaml: field "cluster.kubeProxyMode": expected one of ${article.slug}'s variants (${declared.join(', ')}), got ${show(mode)}`,
        );
        continue;
      }
      variant = mode;
    }
    const otherRelease = release === headlineVersion(article.experiment) ? null : release;
    const expected = runFolderName(article.slug, article.experiment, environment, variant, release);
    if (run.name !== null && run.name !== expected) {
      problems.push(
        `${run.shown}: its run.yaml is the run of ${describe(article.slug, environment, variant, otherRelease)}, which --out names ${expected}; expected that name`,
      );
      continue;
    }
    const runId = yaml.runId as string;
    const folder = runFolderName('snapshots', article.experiment, environment, variant, release);
    const committedAs = committedIds.get(runId);
    const sameId =
      runIds.get(runId) ??
      (committedAs && (committedAs.slug !== article.slug || committedAs.folder !== folder)
        ? `the committed run in content/articles/${committedAs.slug}/${committedAs.folder}`
        : undefined);
    if (sameId !== undefined) {
      problems.push(`${run.shown}: run id ${runId} is also the run id of ${sameId}; expected every run to have its own id (a run id names one capture)`);
      continue;
    }
    runIds.set(runId, run.shown);
    const key = `${article.slug}\n${placeOf(release, environment)}\n${variant}`;
    const other = slots.get(key);
    if (other) {
      problems.push(
        `${run.shown}: a second run of ${describe(article.slug, environment, variant, otherRelease)} (the first is ${other.shown}, run ${other.runId}); expected one run of each article, version, environment and variant`,
      );
      continue;
    }
    slots.set(key, {
      dir: run.dir,
      shown: run.shown,
      slug: article.slug,
      release,
      environment,
      variant,
      runId,
      folder,
    });
  }

  const groups = new Map<string, PlannedGroup>();
  for (const slot of slots.values()) {
    const key = `${slot.slug}\n${placeOf(slot.release, slot.environment)}`;
    const group = groups.get(key) ?? { slug: slot.slug, release: slot.release, environment: slot.environment, runs: [] };
    group.runs.push({ dir: slot.dir, shown: slot.shown, variant: slot.variant, runId: slot.runId, folder: slot.folder });
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    const article = bySlug.get(group.slug)!;
    if (!article.experiment?.variants) continue;
    const declared = variantsOf(article.experiment) as string[];
    const expected = variants.length
      ? declared.filter((v) => variants.includes(v))
      : declared.filter((v) => v === defaultVariant(article.experiment!) || (article.committed[placeOf(group.release, group.environment)] ?? []).includes(v));
    const present = group.runs.map((r) => r.variant!);
    const missing = expected.filter((v) => !present.includes(v));
    const extra = variants.length ? present.filter((v) => !expected.includes(v)) : [];
    const where = group.runs.map((r) => r.shown).join(', ');
    const place = group.release === headlineVersion(article.experiment) ? group.environment : `${group.environment}, Kubernetes ${group.release.minor}`;
    if (missing.length) {
      problems.push(
        `${where}: ${group.slug} (${place}) lacks ${missing.join(', ')}${variants.length ? ' (named with --variant)' : ', which has a committed run'}; expected every variant of one capture together, or --variant naming the ones given`,
      );
    }
    if (extra.length) problems.push(`${where}: ${group.slug} (${place}) holds ${extra.join(', ')}, which --variant does not name`);
    group.runs.sort((a, b) => declared.indexOf(a.variant!) - declared.indexOf(b.variant!));
  }
  if (problems.length) return { problems };
  return {
    groups: [...groups.values()].sort((a, b) => a.slug.localeCompare(b.slug) || placeOrder(bySlug.get(a.slug)!, a, b)),
  };
}

/** Versions in declared order (the headline first), then environments in declared order. */
function placeOrder(article: CheckoutArticle, a: PlannedGroup, b: PlannedGroup): number {
  const versions = versionsOf(article.experiment).map((r) => r.minor);
  const environments = environmentsOf(article.experiment);
  return versions.indexOf(a.release.minor) - versions.indexOf(b.release.minor) || environments.indexOf(a.environment) - environments.indexOf(b.environment);
}

function describe(slug: string, environment: EnvironmentName, variant: string | null, otherRelease: KubeRelease | null = null): string {
  return `${slug} (${[environment, variant, otherRelease && `Kubernetes ${otherRelease.minor}`].filter(Boolean).join(', ')})`;
}
