// The runs a CI matrix captures, one job each: article × Kubernetes version ×
// variant in one environment, listed from the experiments (never typed into a workflow), and
// the arguments of `npm run capture:matrix` and `npm run capture:merge`. Pure.
import { environmentsOf } from '../../experiment/environments.ts';
import type { EnvironmentName, Experiment } from '../../experiment/types.ts';
import { variantsOf } from '../../experiment/variants.ts';
import { headlineVersion, versionsOf } from '../../experiment/kubernetes.ts';
import { parseCommandLine, selectSlugs, UsageError, variantList, versionList } from './cli-args.ts';
import { clip } from '../machine/clip.ts';
import { quoted } from '../../evidence/terminal-text.ts';

/** One job of the matrix: what it captures and the name of the artifact it uploads. */
export interface MatrixRun {
  slug: string;
  /** null: the article declares no variants (its one run). */
  variant: string | null;
  environment: EnvironmentName;
  /** The Kubernetes minor it measures (`--k8s`). */
  kubernetes: string;
  /** Whether that is the experiment's headline release (kind's official image serves it; another is built, kind:prepare --build-images). */
  headline: boolean;
  /** Unique in the matrix, and a valid artifact name: `<slug>-<environment>[-<version>][-<variant>]`, the headline's without its version. */
  artifact: string;
}

/**
 * The runs to capture: every article given (all when none), each in `environment`
 * when it declares it, each of its variants or those named. A name that selects
 * nothing is a UsageError, as an article that is not measured in the environment.
 */
export function captureMatrix(
  articles: ReadonlyArray<{ slug: string; experiment: Experiment }>,
  select: { slugs: readonly string[]; variants: readonly string[]; versions: readonly string[]; environment: EnvironmentName },
): MatrixRun[] {
  const slugs = selectSlugs(
    [...select.slugs],
    articles.map((a) => a.slug),
  );
  const chosen = articles.filter((a) => slugs.includes(a.slug));
  const runs: MatrixRun[] = [];
  for (const { slug, experiment } of chosen) {
    if (!environmentsOf(experiment).includes(select.environment)) {
      if (select.slugs.length)
        throw new UsageError(
          `${slug} is measured in ${environmentsOf(experiment).join(', ')}, not ${select.environment} (article.ts, field "experiment.environments")`,
        );
      continue;
    }
    for (const release of versionsOf(experiment)) {
      if (select.versions.length && !select.versions.includes(release.minor)) continue;
      const headline = release === headlineVersion(experiment);
      for (const variant of variantsOf(experiment)) {
        if (select.variants.length && (variant === null || !select.variants.includes(variant))) continue;
        const artifact = [slug, select.environment, headline ? null : release.minor, variant].filter(Boolean).join('-');
        runs.push({ slug, variant, environment: select.environment, kubernetes: release.minor, headline, artifact });
      }
    }
  }
  const known = new Set(chosen.flatMap((a) => variantsOf(a.experiment).filter((v): v is string => v !== null)));
  const unknown = select.variants.filter((v) => !known.has(v));
  if (unknown.length)
    throw new UsageError(`--variant ${unknown.join(',')}: no article selected has such a variant; they have ${[...known].join(', ') || 'none'}`);
  const declared = new Set(chosen.flatMap((a) => versionsOf(a.experiment).map((r) => r.minor)));
  const undeclared = select.versions.filter((v) => !declared.has(v));
  if (undeclared.length) throw new UsageError(`--k8s ${undeclared.join(',')}: no article selected is measured on it; they are on ${[...declared].join(', ')}`);
  if (!runs.length) throw new UsageError(`nothing to capture: no article selected is measured in ${select.environment}`);
  return runs;
}

export const MATRIX_USAGE = `Usage: npm run capture:matrix -- [slug...] [--variant V[,V...]] [--k8s V[,V...]] [--driver kind|lab]

Prints, as one line of JSON, the runs a CI matrix captures: {"include":[{"slug",
"variant","environment","kubernetes","headline","artifact"}...]}, one per article,
Kubernetes version and variant (variant is null for an article that declares none),
from each article's experiment (article.ts). Without a slug, every article; without
--variant or --k8s, every variant and version it declares. --driver is the
environment (default: kind).`;

export interface MatrixArgs {
  slugs: string[];
  variants: string[];
  versions: string[];
  environment: EnvironmentName;
  help: boolean;
}

/** Slugs and --variant may also come as one argument each of names separated by spaces or commas (a workflow's inputs). */
const names = (values: readonly string[]) => values.flatMap((v) => v.split(/[\s,]+/)).filter(Boolean);

export function parseMatrixArgs(argv: string[]): MatrixArgs {
  const parsed = parseCommandLine(argv, {
    variant: { type: 'string', multiple: true },
    k8s: { type: 'string', multiple: true },
    driver: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const driver = parsed.values.driver ?? 'kind';
  if (driver !== 'kind' && driver !== 'lab') throw new UsageError(`--driver must be kind or lab, got ${quoted(clip(driver))}`);
  return {
    slugs: names(parsed.positionals),
    variants: variantList(names(parsed.values.variant ?? [])),
    versions: versionList(names(parsed.values.k8s ?? [])),
    environment: driver,
    help: parsed.values.help,
  };
}

export const MERGE_USAGE = `Usage: npm run capture:merge -- DIR... [--variant V[,V...]] [--report FILE] [--accept-broken-claims]

Takes the runs that captures wrote with --out (each DIR an --out folder holding
<slug>[.<environment>][.<variant>] run folders, or one such run folder), on this
machine or on others (a CI matrix's artifacts), and swaps them into the
articles' snapshots folders as a capture would: staged beside each target under
its lock and records, the facts derived there again, then swapped.

Before anything is touched every run folder is checked as the build checks it
(its run.yaml's schema and slug, UTF-8, regular files, its facts derived, its
claims evaluated, every variant of an article's environment together) and its
name against its run.yaml. Refused, one line each naming the folder: two runs of
one article, environment and variant; a partial set of an article's variants
(each environment comes whole: every variant that has a committed run, and the
default one; --variant names the variants expected instead, as it does for a
capture); anything that is not a run folder.

  --variant V[,V...]      the variants expected of each article that declares variants
  --report FILE           also write the report (claims, what changed, volatile values
                          apart) as Markdown to FILE, e.g. a pull request's body
  --accept-broken-claims  swap in runs on which a claim no longer holds (a finding about
                          Kubernetes: the build then fails until the prose follows)
  -h, --help              show this help

Exit codes: 0 merged; 1 a run's facts cannot be derived or a swap failed; 2 usage,
a refused folder or target; 3 a claim broke (nothing merged); 130 and 143
interrupted. Nothing is swapped in unless every run is accepted.`;

export interface MergeArgs {
  dirs: string[];
  variants: string[];
  report: string | null;
  acceptBrokenClaims: boolean;
  help: boolean;
}

export function parseMergeArgs(argv: string[]): MergeArgs {
  const parsed = parseCommandLine(argv, {
    variant: { type: 'string', multiple: true },
    report: { type: 'string' },
    'accept-broken-claims': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  const v = parsed.values;
  if (v.report !== undefined && v.report.trim() === '') throw new UsageError('--report needs a value');
  const args: MergeArgs = {
    dirs: parsed.positionals,
    variants: variantList(names(v.variant ?? [])),
    report: v.report ?? null,
    acceptBrokenClaims: v['accept-broken-claims'],
    help: v.help,
  };
  if (!args.help && !args.dirs.length) throw new UsageError('expected at least one folder of runs written by --out (see --help)');
  return args;
}
