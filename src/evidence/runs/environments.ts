// An article measured in several environments (a real kind cluster, the
// namespace lab): each environment's runs (every variant) built from its own
// folders as buildArticleRuns builds them, the headline's carrying the others,
// and every claim read in every run it was measured in (the claim matrix).
// Pure apart from reading the snapshots folders.
import { existsSync } from 'node:fs';
import type { EnvironmentName } from '../../experiment/types.ts';
import { environmentFolder, environmentProblems, environmentsOf } from '../../experiment/environments.ts';
import type { ClaimResult } from '../claims.ts';
import type { Lang } from '../template.ts';
import { EvidenceError } from '../errors.ts';
import { buildArticleRuns, type ArticleRunsInput, type RunRef } from './variants.ts';
import type { ArticleEvidence, EnvironmentRuns } from './types.ts';

/**
 * The article's evidence: the headline environment's (its folder is
 * `snapshotsDir`, required as before), carrying every measured environment in
 * `environmentRuns`; an experiment that declares no environments is built as
 * one environment's runs, as before.
 */
export function buildArticleEnvironments(input: ArticleRunsInput): ArticleEvidence {
  const experiment = input.experiment;
  if (!experiment?.environments) return buildArticleRuns(input);
  const file = input.linesFile;
  const problems = environmentProblems(experiment, file);
  if (problems.length) throw new EvidenceError(problems);
  const exists = input.exists ?? existsSync;
  const declared = environmentsOf(experiment);
  const headline = declared[0]!;
  const runs = new Map<EnvironmentName, ArticleEvidence>();
  const notMeasured: EnvironmentName[] = [];
  for (const environment of declared) {
    const folder = environmentFolder(input.snapshotsDir, environment, headline);
    // The headline must be there (the build fails on it as before); another environment may not have run yet,
    // and a draft then shows its values as placeholders, as it does the headline's.
    if (environment !== headline && !exists(folder)) {
      notMeasured.push(environment);
      if (!input.draft) continue;
    }
    const { folderOf: _staged, ...rest } = input;
    runs.set(
      environment,
      buildArticleRuns({ ...rest, snapshotsDir: folder, environment, ...(environment === headline && input.folderOf ? { folderOf: input.folderOf } : {}) }),
    );
  }
  const environmentRuns: EnvironmentRuns = { headline, declared, measured: declared.filter((e) => runs.has(e) && !notMeasured.includes(e)), notMeasured, runs };
  return { ...runs.get(headline)!, environmentRuns };
}

/** One run an article is measured in: its version, its environment, its variant, its run id and its evidence. */
export interface MeasuredRun {
  /** The Kubernetes minor, when the experiment declares several versions; undefined otherwise. */
  version: string | undefined;
  environment: EnvironmentName | undefined;
  variant: string | undefined;
  runId: string;
  evidence: ArticleEvidence;
  /** How a component binds it (undefined parts are the article's own version, environment or variant). */
  ref: RunRef;
}

/**
 * Every run the article was measured in (a draft's placeholders are none), the headline version's first, in each
 * version the headline environment's first, each environment's default variant
 * before its others. `ref` leaves out what is the article's own (the headline
 * version, a version's headline environment, an environment's default variant).
 */
export function measuredRuns(evidence: ArticleEvidence): MeasuredRun[] {
  const versions = evidence.versionRuns;
  if (!versions) return runsOfVersion(evidence, undefined, {});
  return versions.measured.flatMap((version) => runsOfVersion(versions.runs.get(version)!, version, version === versions.headline ? {} : { version }));
}

/** The runs of one version's evidence (its environments' and their variants'), each `ref` starting from `versionRef`. */
function runsOfVersion(evidence: ArticleEvidence, version: string | undefined, versionRef: RunRef): MeasuredRun[] {
  const environments = evidence.environmentRuns;
  const ofEnvironment = (run: ArticleEvidence, environment: EnvironmentName | undefined, isHeadline: boolean): MeasuredRun[] => {
    const variants = run.variantRuns;
    const envRef = isHeadline || environment === undefined ? versionRef : { ...versionRef, environment };
    // A draft's placeholder run (never captured) is no run: no column, no record, no measured day.
    if (!variants) return run.unmeasured ? [] : [{ version, environment, variant: undefined, runId: run.snapshots.run.runId, evidence: run, ref: envRef }];
    return variants.measured.flatMap((variant) => {
      const own = variants.runs.get(variant)!;
      const ref = variant === variants.defaultVariant ? envRef : { ...envRef, variant };
      return own.unmeasured ? [] : [{ version, environment, variant, runId: own.snapshots.run.runId, evidence: own, ref }];
    });
  };
  if (!environments) return ofEnvironment(evidence, evidence.environment, true);
  return environments.measured.flatMap((environment) => ofEnvironment(environments.runs.get(environment)!, environment, environment === environments.headline));
}

/** One cell of the claim matrix: how a claim stood in one run, or that the claim is not about that run (its variants). */
export interface ClaimCell {
  run: MeasuredRun;
  status: ClaimResult['status'] | 'not-applicable';
}

export interface ClaimMatrix {
  columns: MeasuredRun[];
  rows: Array<{ id: string; statement: Record<Lang, string>; cells: ClaimCell[]; brokenIn: MeasuredRun[] }>;
  /** Environments declared and not measured (in the headline version): the page names them. */
  notMeasured: EnvironmentName[];
  /** With several versions declared: which were measured and which not, and each older measured version's environments not measured. */
  versions?: {
    headline: string;
    measured: string[];
    notMeasured: string[];
    environmentsNotMeasured: Array<{ version: string; environments: EnvironmentName[] }>;
  };
}

/** The versions, environments and modes of some runs, each once, in the runs' order; empty where the experiment declares no such axis. */
export interface RunsScope {
  versions: string[];
  environments: EnvironmentName[];
  variants: string[];
}

export function runsScope(runs: readonly MeasuredRun[]): RunsScope {
  const distinct = <T>(values: (T | undefined)[]) => [...new Set(values.filter((v): v is T => v !== undefined))];
  return {
    versions: distinct(runs.map((r) => r.version)),
    environments: distinct(runs.map((r) => r.environment)),
    variants: distinct(runs.map((r) => r.variant)),
  };
}

/** Where a claim was judged, over every measured run: how often it held, and the scope of the runs it applies to. */
export interface ClaimReach extends RunsScope {
  held: number;
  /** The runs the claim applies to (a claim limited to some variants is not judged in the others'). */
  judged: number;
  brokenIn: MeasuredRun[];
}

/** A row of the claim matrix folded to one line: what a reader asks first, before any run's table. */
export function claimReach(row: ClaimMatrix['rows'][number]): ClaimReach {
  const judged = row.cells.filter((c) => c.status !== 'not-applicable').map((c) => c.run);
  return { held: row.cells.filter((c) => c.status === 'holds').length, judged: judged.length, brokenIn: row.brokenIn, ...runsScope(judged) };
}

/**
 * Every claim of one run (the article's `claims`) read in every run: a row per
 * claim in declared order, a column per measured run (of every measured version). A claim limited to some
 * variants is "not-applicable" in the others' runs, never counted as holding.
 */
export function claimMatrix(evidence: ArticleEvidence): ClaimMatrix {
  const columns = measuredRuns(evidence);
  const order: string[] = [];
  const statements = new Map<string, Record<Lang, string>>();
  for (const { evidence: run } of columns) {
    for (const claim of run.claims) {
      if (!statements.has(claim.id)) {
        order.push(claim.id);
        statements.set(claim.id, claim.statement);
      }
    }
  }
  const rows = order.map((id) => {
    const cells = columns.map((run): ClaimCell => ({ run, status: run.evidence.claims.find((c) => c.id === id)?.status ?? 'not-applicable' }));
    return { id, statement: statements.get(id)!, cells, brokenIn: cells.filter((c) => c.status === 'broken').map((c) => c.run) };
  });
  const versions = evidence.versionRuns;
  return {
    columns,
    rows,
    notMeasured: evidence.environmentRuns?.notMeasured ?? [],
    ...(versions
      ? {
          versions: {
            headline: versions.headline,
            measured: versions.measured,
            notMeasured: versions.notMeasured,
            environmentsNotMeasured: versions.measured
              .filter((v) => v !== versions.headline)
              .map((version) => ({ version, environments: versions.runs.get(version)!.environmentRuns?.notMeasured ?? [] }))
              .filter((v) => v.environments.length > 0),
          },
        }
      : {}),
  };
}
