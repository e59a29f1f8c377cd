// An article bound to several runs of one experiment (variants along an axis):
// each measured variant's evidence built from its own snapshots folder, the
// variants with no snapshots named as not measured, and the claims that compare
// variants evaluated over facts named `<variant>:<fact id>`. Pure apart from
// reading the snapshots folders (through buildArticleEvidence).
import { existsSync } from 'node:fs';
import type { EnvironmentName, Experiment } from '../../experiment/types.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import { defaultVariant, qualify, variantFolder, variantsOf } from '../../experiment/variants.ts';
import type { Fact, FactDef } from '../facts.ts';
import type { Lang, LineTemplates } from '../template.ts';
import { checkClaimDefs, evaluateClaims, formatBrokenClaims, type ClaimDef, type ClaimResult } from '../claims.ts';
import { EvidenceError } from '../errors.ts';
import { buildArticleEvidence } from './build.ts';
import type { ArticleEvidence, VariantRuns } from './types.ts';

export interface ArticleRunsInput {
  slug: string;
  /** The default run's folder (`<article>/snapshots`, or SHICE_SNAPSHOT_ROOT/<slug>); other variants beside it. */
  snapshotsDir: string;
  /** The experiment, for its variants and which steps each variant has; null when the article has none to read. */
  experiment: Experiment | null;
  factDefs: FactDef[];
  /** Facts only some variants' runs have, by variant. */
  variantFactDefs?: Record<string, FactDef[]>;
  lines: LineTemplates;
  linesFile: string;
  claimDefs?: ClaimDef[];
  /** Claims across variants, over `<variant>:<fact id>` facts. */
  comparisonDefs?: ClaimDef[];
  claimsFile?: string;
  /** Whether a folder exists (a test may pass its own). */
  exists?: (path: string) => boolean;
  /** Where a variant's run is read from; beside `snapshotsDir` (variantFolder) unless given (a capture judging its staged runs). */
  folderOf?: (variant: string) => string;
  /** A draft build: an article never captured builds with its facts shown as not yet measured. */
  draft?: boolean;
  /** The environment these runs were measured in: each run.yaml must say so (field "driver"). */
  environment?: EnvironmentName;
  /** The Kubernetes release these runs were measured on: each run.yaml must name a release of its minor (field "versions.kubernetes"). */
  version?: KubeRelease;
}

/**
 * The article's evidence: the default run's, carrying every variant's run
 * (`variantRuns`) when the experiment declares variants.
 */
export function buildArticleRuns(input: ArticleRunsInput): ArticleEvidence {
  const exists = input.exists ?? existsSync;
  const experiment = input.experiment;
  const variantFactDefs = input.variantFactDefs ?? {};
  const claimsFile = input.claimsFile ?? input.linesFile;
  if (!experiment?.variants) {
    const problems = [
      ...Object.keys(variantFactDefs)
        .filter((v) => variantFactDefs[v]!.length)
        .map((v) => `${input.linesFile}: field "variantFacts" names variant "${v}", but the experiment declares no variants`),
      ...(input.comparisonDefs ?? []).map((c) => `${claimsFile}: comparison "${c.id}": the experiment declares no variants to compare`),
    ];
    if (problems.length) throw new EvidenceError(problems);
    const { slug, snapshotsDir, factDefs, lines, linesFile, claimDefs, environment, version } = input;
    return buildArticleEvidence({
      slug,
      snapshotsDir,
      factDefs,
      lines,
      linesFile,
      claimDefs,
      claimsFile,
      draft: input.draft ?? false,
      environment,
      ...(version === undefined ? {} : { version }),
      experiment,
    });
  }
  const declared = variantsOf(experiment) as string[];
  const byDefault = defaultVariant(experiment)!;
  const factsFile = input.linesFile;
  const unknown = Object.keys(variantFactDefs).filter((v) => !declared.includes(v));
  if (unknown.length)
    throw new EvidenceError(
      `${factsFile}: field "variantFacts" names ${unknown.map((v) => `"${v}"`).join(', ')}; the experiment's variants are ${declared.join(', ')}`,
    );
  const runs = new Map<string, ArticleEvidence>();
  const notMeasured: string[] = [];
  for (const variant of declared) {
    const dir = input.folderOf?.(variant) ?? variantFolder(input.snapshotsDir, variant, byDefault);
    // The default run must be there (the build fails on it as before); another variant may not have run yet,
    // and a draft then shows its values as placeholders, as it does the default's.
    if (variant !== byDefault && !exists(dir)) {
      notMeasured.push(variant);
      if (!input.draft) continue;
    }
    const evidence = buildArticleEvidence({
      slug: input.slug,
      snapshotsDir: dir,
      factDefs: [...input.factDefs, ...(variantFactDefs[variant] ?? [])],
      lines: linesOfVariant(input.lines, experiment, variant),
      linesFile: input.linesFile,
      claimDefs: (input.claimDefs ?? []).filter((c) => c.variants === undefined || c.variants.includes(variant)),
      claimsFile,
      environment: input.environment,
      ...(input.version === undefined ? {} : { version: input.version }),
      // A draft previews the default variant before it ran (placeholders); the others are "not measured" until then.
      draft: input.draft ?? false,
      experiment,
      variant,
    });
    const mode = evidence.snapshots.run.cluster.kubeProxyMode;
    if (!evidence.unmeasured && mode !== variant)
      throw new EvidenceError(
        `${evidence.snapshots.files.run}: field "cluster.kubeProxyMode": expected "${variant}" (the variant this folder holds), got "${mode}"`,
      );
    runs.set(variant, { ...evidence, variant });
  }
  const claimProblems = (input.claimDefs ?? []).flatMap((c) =>
    (c.variants ?? [])
      .filter((v) => !declared.includes(v))
      .map((v) => `${claimsFile}: claim "${c.id}": field "variants": "${v}" is no variant of the experiment (${declared.join(', ')})`),
  );
  if (claimProblems.length) throw new EvidenceError(claimProblems);

  const facts = new Map<string, Fact>();
  for (const [variant, evidence] of runs) {
    for (const [id, fact] of evidence.facts) facts.set(qualify(variant, id), { ...fact, id: qualify(variant, id), step: qualify(variant, fact.step) });
  }
  const comparisonDefs = input.comparisonDefs ?? [];
  const problems = checkClaimDefs(comparisonDefs, claimsFile);
  if (problems.length) throw new EvidenceError(problems);
  const fileOf = (qualified: string) => {
    const [variant, step] = splitQualified(qualified);
    const evidence = runs.get(variant);
    if (!evidence || step === undefined) return qualified;
    return step === 'run' ? evidence.snapshots.files.run : (evidence.snapshots.files.steps.get(step) ?? step);
  };
  const comparisons = evaluateClaims(comparisonDefs, facts, fileOf);
  const measured = declared.filter((v) => runs.has(v) && !notMeasured.includes(v));
  const variantRuns: VariantRuns = { axis: experiment.variants.axis, defaultVariant: byDefault, declared, measured, notMeasured, runs, facts, comparisons };
  return { ...runs.get(byDefault)!, variantRuns };
}

/** `<variant>:<id>` split at its first colon; an unqualified id has no variant. */
export function splitQualified(ref: string): [variant: string, id: string | undefined] {
  const at = ref.indexOf(':');
  return at < 0 ? [ref, undefined] : [ref.slice(0, at), ref.slice(at + 1)];
}

/** The measured lines a variant's run has: without the steps only other variants run. */
export function linesOfVariant(lines: LineTemplates, experiment: Experiment, variant: string): LineTemplates {
  const elsewhere = new Set(experiment.steps.filter((s) => s.variants !== undefined && !s.variants.includes(variant)).map((s) => s.id));
  return Object.fromEntries(Object.entries(lines).filter(([step]) => !elsewhere.has(step)));
}

/**
 * Which run a component binds: a Kubernetes version's (the headline when none),
 * an environment's (that version's headline when none) and a variant's (that
 * environment's default when none).
 */
export interface RunRef {
  version?: string;
  environment?: string;
  variant?: string;
}

/**
 * The evidence a component bound to `ref` reads: that environment's and
 * variant's run, or the article's own when neither is named. An unknown or
 * unmeasured environment or variant is an error naming the file and what exists.
 */
export function evidenceOfRun(evidence: ArticleEvidence, ref: RunRef, where: string): ArticleEvidence {
  const inVersion = evidenceOfVersion(evidence, ref.version, where);
  const inEnvironment = evidenceOfEnvironment(inVersion, ref.environment, where);
  return evidenceOfVariant(inEnvironment, ref.variant, where);
}

function evidenceOfVersion(evidence: ArticleEvidence, version: string | undefined, where: string): ArticleEvidence {
  if (version === undefined) return evidence;
  const versions = evidence.versionRuns;
  if (!versions)
    throw new Error(`${where}: version="${version}": the experiment of ${evidence.slug} declares no versions (article.ts, field "experiment.kubernetes")`);
  const run = versions.runs.get(version);
  if (run) return run;
  if (versions.notMeasured.includes(version))
    throw new Error(`${where}: version="${version}": not measured on it (no snapshots); measured: ${versions.measured.join(', ')}`);
  throw new Error(`${where}: version="${version}": no such version; the experiment is measured on ${versions.declared.join(', ')}`);
}

function evidenceOfEnvironment(evidence: ArticleEvidence, environment: string | undefined, where: string): ArticleEvidence {
  if (environment === undefined) return evidence;
  const environments = evidence.environmentRuns;
  if (!environments) throw new Error(`${where}: environment="${environment}": the experiment of ${evidence.slug} declares no environments`);
  const run = environments.runs.get(environment as EnvironmentName);
  if (run) return run;
  if ((environments.notMeasured as string[]).includes(environment))
    throw new Error(`${where}: environment="${environment}": not measured there (no snapshots); measured: ${environments.measured.join(', ')}`);
  throw new Error(`${where}: environment="${environment}": no such environment; the experiment is measured in ${environments.declared.join(', ')}`);
}

function evidenceOfVariant(evidence: ArticleEvidence, variant: string | undefined, where: string): ArticleEvidence {
  if (variant === undefined) return evidence;
  const runs = evidence.variantRuns;
  if (!runs) throw new Error(`${where}: variant="${variant}": the experiment of ${evidence.slug} declares no variants`);
  const run = runs.runs.get(variant);
  if (run) return run;
  if (runs.notMeasured.includes(variant))
    throw new Error(`${where}: variant="${variant}": that variant was not measured (no snapshots); measured: ${runs.measured.join(', ')}`);
  throw new Error(`${where}: variant="${variant}": no such variant; the experiment has ${runs.declared.join(', ')}`);
}

/**
 * How a binding to `ref` qualifies an id (`<variant>:<id>`, `<environment>:<id>`,
 * `<environment>/<variant>:<id>`, and any of them after `<version>/`, as
 * `v1.34:<id>`, `v1.34/lab/nftables:<id>`): what the MDX check and bindableIds agree on.
 */
export function qualifyRun(ref: RunRef, id: string): string {
  const key = [ref.version, ref.environment, ref.variant].filter(Boolean).join('/');
  return key ? `${key}:${id}` : id;
}

/** bindableIds per evidence object: a page's <Claim>s ask for them again and again, and an evidence never changes once built. */
const bindable = new WeakMap<ArticleEvidence, { factIds: string[]; stepIds: string[]; claims: ClaimResult[] }>();

/**
 * Every fact id, step id and claim id the article's MDX may bind: the headline
 * run's, `<variant>:<id>` of every measured variant, the same of every other
 * measured environment qualified by it, and all of that of every other measured
 * version qualified by it (qualifyRun).
 */
export function bindableIds(evidence: ArticleEvidence): { factIds: readonly string[]; stepIds: readonly string[]; claims: readonly ClaimResult[] } {
  let ids = bindable.get(evidence);
  if (!ids) {
    ids = bindableIdsOfVersion(evidence);
    for (const [version, run] of evidence.versionRuns?.runs ?? []) {
      if (version === evidence.versionRuns!.headline) continue;
      const own = bindableIdsOfVersion(run);
      const qualified = (id: string) => {
        const [key, rest] = splitQualified(id);
        return rest === undefined ? qualifyRun({ version }, id) : `${version}/${key}:${rest}`;
      };
      ids.factIds.push(...own.factIds.map(qualified));
      ids.stepIds.push(...own.stepIds.map(qualified));
    }
    bindable.set(evidence, ids);
  }
  return ids;
}

/** One version's bindable ids: its headline environment's, and every other environment's qualified by it. */
function bindableIdsOfVersion(evidence: ArticleEvidence): { factIds: string[]; stepIds: string[]; claims: ClaimResult[] } {
  const ids = collectBindableIds(evidence);
  for (const [environment, run] of evidence.environmentRuns?.runs ?? []) {
    if (environment === evidence.environmentRuns!.headline) continue;
    const own = collectBindableIds(run);
    const qualified = (id: string) => {
      const [variant, rest] = splitQualified(id);
      return rest === undefined ? qualifyRun({ environment }, id) : qualifyRun({ environment, variant }, rest);
    };
    ids.factIds.push(...own.factIds.map(qualified));
    ids.stepIds.push(...own.stepIds.map(qualified));
  }
  return ids;
}
function collectBindableIds(evidence: ArticleEvidence): { factIds: string[]; stepIds: string[]; claims: ClaimResult[] } {
  const factIds = [...evidence.facts.keys()];
  const stepIds = [...evidence.snapshots.run.steps];
  const claims = [...evidence.claims];
  const runs = evidence.variantRuns;
  if (runs) {
    factIds.push(...runs.facts.keys());
    for (const [variant, run] of runs.runs) {
      stepIds.push(...run.snapshots.run.steps.map((s) => qualify(variant, s)));
      if (variant !== runs.defaultVariant) claims.push(...run.claims.filter((c) => !claims.some((k) => k.id === c.id)));
    }
    claims.push(...runs.comparisons);
  }
  return { factIds, stepIds, claims };
}

/** Every broken claim of every run (a variant's prefixed with its name) and across runs, one block each; of one environment. */
export function brokenClaims(evidence: ArticleEvidence): string[] {
  const runs = evidence.variantRuns;
  if (!runs) return formatBrokenClaims(evidence.claims);
  return [
    ...[...runs.runs].flatMap(([variant, run]) => formatBrokenClaims(run.claims).map((b) => `${variant}: ${b}`)),
    ...formatBrokenClaims(runs.comparisons).map((b) => `across ${runs.measured.join(', ')}: ${b}`),
  ];
}

/**
 * The broken claims the build fails on (the headline environment's) and those
 * it reports and the page shows (every other environment's, each block
 * prefixed with the environment): a claim may hold on kind and break in the lab.
 */
export function brokenClaimsByEnvironment(evidence: ArticleEvidence): { headline: string[]; elsewhere: string[] } {
  const versions = evidence.versionRuns;
  const own = brokenClaimsOfVersion(evidence);
  if (!versions) return own;
  // An older version's broken claim is a finding too, each block prefixed with the version.
  const older = [...versions.runs]
    .filter(([version]) => version !== versions.headline)
    .flatMap(([version, run]) => {
      const { headline, elsewhere } = brokenClaimsOfVersion(run);
      return [...headline, ...elsewhere].map((block) => `${version}: ${block}`);
    });
  return { headline: own.headline, elsewhere: [...own.elsewhere, ...older] };
}

function brokenClaimsOfVersion(evidence: ArticleEvidence): { headline: string[]; elsewhere: string[] } {
  const environments = evidence.environmentRuns;
  if (!environments) return { headline: brokenClaims(evidence), elsewhere: [] };
  const elsewhere = [...environments.runs]
    .filter(([environment]) => environment !== environments.headline)
    .flatMap(([environment, run]) => brokenClaims(run).map((block) => `${environment}: ${block}`));
  return { headline: brokenClaims(evidence), elsewhere };
}

/** A row of the comparison across variants: one fact, read in every measured run. */
export interface ComparisonRow {
  fact: string;
  label: Record<Lang, string>;
}

export interface ComparisonTable {
  columns: Array<{ variant: string; run: string }>;
  rows: Array<{ fact: string; label: Record<Lang, string>; cells: Array<{ variant: string; run: string; fact: Fact }> }>;
  notMeasured: string[];
}

/**
 * The comparison table: a column per measured variant (its run id), a row per
 * declared fact, each cell that variant's fact. A fact a run lacks is an error
 * naming the file, the row and the variant.
 */
export function comparisonTable(rows: readonly ComparisonRow[], runs: VariantRuns, file: string): ComparisonTable {
  if (!rows.length) throw new EvidenceError(`${file}: comparisonRows: expected at least one row`);
  const columns = runs.measured.map((variant) => ({ variant, run: runs.runs.get(variant)!.snapshots.run.runId }));
  const problems: string[] = [];
  const table = rows.map((row) => ({
    fact: row.fact,
    label: row.label,
    cells: columns.flatMap(({ variant, run }) => {
      const fact = runs.runs.get(variant)!.facts.get(row.fact);
      if (!fact) {
        problems.push(`${file}: comparisonRows: fact "${row.fact}": the ${variant} run has no such fact`);
        return [];
      }
      return [{ variant, run, fact }];
    }),
  }));
  if (problems.length) throw new EvidenceError(problems);
  return { columns, rows: table, notMeasured: runs.notMeasured };
}

/** How many claim evaluations the build makes: every run's claims and those across runs. */
export function evaluatedClaimCount(evidence: ArticleEvidence): number {
  const versions = evidence.versionRuns;
  if (versions) return [...versions.runs.values()].reduce((n, run) => n + evaluatedClaimCountOfVersion(run), 0);
  return evaluatedClaimCountOfVersion(evidence);
}

function evaluatedClaimCountOfVersion(evidence: ArticleEvidence): number {
  const environments = evidence.environmentRuns;
  if (environments) return [...environments.runs.values()].reduce((n, run) => n + evaluatedClaimCountOfEnvironment(run), 0);
  return evaluatedClaimCountOfEnvironment(evidence);
}

function evaluatedClaimCountOfEnvironment(evidence: ArticleEvidence): number {
  const runs = evidence.variantRuns;
  if (!runs) return evidence.claims.length;
  return [...runs.runs.values()].reduce((n, run) => n + run.claims.length, 0) + runs.comparisons.length;
}

/** Every run of the article's evidence: each version's, each environment's, each variant's. */
export function everyRun(evidence: ArticleEvidence): ArticleEvidence[] {
  const inEnvironment = (e: ArticleEvidence) => [e, ...(e.variantRuns?.runs.values() ?? [])];
  const inVersion = (v: ArticleEvidence) => [...inEnvironment(v), ...[...(v.environmentRuns?.runs.values() ?? [])].flatMap(inEnvironment)];
  const versions = evidence.versionRuns ? [...evidence.versionRuns.runs.values()] : [evidence];
  return versions.flatMap(inVersion);
}
