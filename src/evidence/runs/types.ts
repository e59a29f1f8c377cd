// What an article's evidence is, as every layer reads it: one run's snapshots,
// facts, lines and claims, and with variants every run beside it. Types only,
// so that build.ts (one run) and variants.ts (several) share them without
// importing each other.
import type { Snapshots } from '../load.ts';
import type { Fact, SkippedFact, UnfoundFact } from '../facts.ts';
import type { LineTemplates } from '../template.ts';
import type { ClaimResult } from '../claims.ts';
import type { EnvironmentName } from '../../experiment/types.ts';

export interface ArticleEvidence {
  slug: string;
  snapshots: Snapshots;
  facts: Map<string, Fact>;
  skipped: SkippedFact[];
  lines: LineTemplates;
  linesFile: string;
  /** Every claim of the article, evaluated against this run. */
  claims: ClaimResult[];
  /** A capture's judgement only: the facts this run does not show, which break the claims that read them. */
  unfound?: UnfoundFact[];
  /** Which variant of the experiment this run is, when it declares variants. */
  variant?: string;
  /** Which environment this run was measured in, when the experiment declares environments. */
  environment?: EnvironmentName;
  /** The article's evidence only: the runs of every other environment it is measured in (environments.ts). */
  environmentRuns?: EnvironmentRuns;
  /** The article's evidence only: every variant's run and the comparisons across them (variants.ts). */
  variantRuns?: VariantRuns;
  /** Set in a draft build of an article that has no snapshots yet: its facts are placeholders. */
  unmeasured?: boolean;
}

export interface VariantRuns {
  /** What varies between the runs (kube-proxy's mode). */
  axis: string;
  defaultVariant: string;
  /** Every declared variant, in the experiment's order. */
  declared: string[];
  /** The variants with snapshots, in the experiment's order. */
  measured: string[];
  /** Declared variants without snapshots: the page says they were not measured. */
  notMeasured: string[];
  runs: Map<string, ArticleEvidence>;
  /** Every measured variant's facts as `<variant>:<fact id>`. */
  facts: Map<string, Fact>;
  /** The claims across variants, evaluated over `facts`. */
  comparisons: ClaimResult[];
}

export interface EnvironmentRuns {
  /** The environment the article's unqualified bindings read: the first declared. */
  headline: EnvironmentName;
  /** Every declared environment, the headline first. */
  declared: EnvironmentName[];
  /** The environments with snapshots, in declared order. */
  measured: EnvironmentName[];
  /** Declared environments without snapshots: the page says they were not measured. */
  notMeasured: EnvironmentName[];
  /** Each measured environment's evidence (its default run, carrying its variants' runs), the headline's included. */
  runs: Map<EnvironmentName, ArticleEvidence>;
}
