// What an article is: one definition, in content/articles/<slug>/article.ts,
// `export default defineArticle({...})`. It holds the experiment, the facts it
// binds (each one line: src/evidence/fact-kit.ts), the claims its prose rests
// on, the measured line of each step, and optionally charts, packet paths and
// a walkthrough. Fact ids are typed: a claim, line, chart or path that reads a
// fact the article does not declare (and no run has) fails the type check.
// src/authoring/load.ts is the one loader that reads it.
import type { Experiment } from '../experiment/types.ts';
import type { FactSpecs } from '../evidence/fact-kit.ts';
import type { Lang } from '../evidence/template.ts';
import type { ChartDef, PacketPathDef, Text, WalkthroughStop } from './parts.ts';

// Everything an article is written with, from one module: fact readers, extractors, the experiment's vocabulary.
export * from '../evidence/fact-kit.ts';
export { binomialExpectation, countWhere, parseAnswers, share, type Answer } from '../evidence/extract/answers.ts';
export { healthCheckNodePort, node, nodeIP, nodePort, placement, pod, service, serviceKey } from '../evidence/extract/run.ts';
export { ExtractError } from '../evidence/errors.ts';
export type { RunSnapshot, StepSnapshot } from '../evidence/schema.ts';
export { threeNodeCluster } from '../experiment/clusters.ts';
export { kubernetesSeries, type SeriesExperiment } from './series.ts';
export { curlArgv, exec, inPod, requestsArgv } from '../experiment/steps.ts';
export { NGINX_AS_DEBIAN_NGINX_LIGHT } from '../experiment/substitutes.ts';
export type { ExecStep, Experiment, TopologyView } from '../experiment/types.ts';
export { choiceBars, event, healthCheckLine, hop, path } from './parts.ts';
export { answersPart, curlPart, measured, part, rulesPart, type LineText, type ProxyMode, type StepPart } from './step-parts.ts';
export type { ChartBar, ChartDef, PacketPathDef, PathEvent, PathHop, PathStation, Text, WalkthroughStop } from './parts.ts';

type StepFactKey = 'rc' | 'seconds' | 'node' | 'argv' | 'command' | 'startedAt';
/** The facts every run has (src/evidence/run-facts.ts): how each step ran, and what run.yaml records. */
export type RunFactId =
  | `${string}.${StepFactKey}`
  | `node.${string}.${'ip' | 'name' | 'podCIDR'}`
  | `pod.${string}.${'ip' | 'node' | 'image'}`
  | `service.${string}.${'type' | 'clusterIP' | 'externalTrafficPolicy' | 'internalTrafficPolicy' | 'nodePort' | 'healthCheckNodePort'}`
  | `cluster.${'name' | 'nodeCount' | 'podSubnet' | 'serviceSubnet' | 'kubeProxyMode'}`
  | `run.${string}`
  | `version.${string}`;

/** The ids a definition's parts may read: its own facts, its variants' facts, and the run's. */
export type FactIdOf<F, V = {}> = (keyof F & string) | { [K in keyof V]: keyof V[K] & string }[keyof V] | RunFactId;

/** What the prose asserts, in both languages, as a check over the facts it reads. */
export interface Claim<Id extends string = string> {
  id: string;
  zh: string;
  en: string;
  holds: (value: (id: Id) => string) => boolean;
  /** With variants: the runs the claim is about; every variant's when absent. */
  variants?: string[];
}

/**
 * A comparison across the variants' runs written once, as a check of one run: it holds when it holds in
 * each of `variants`' runs, `v` reading that run's facts (what `comparisons` evaluates over `<variant>:<id>`).
 */
export function inEveryVariant<Id extends string>(
  variants: readonly string[],
  holds: (v: (id: Id) => string) => boolean,
): (v: (id: `${string}:${Id}`) => string) => boolean {
  return (v) => variants.every((variant) => holds((id) => v(`${variant}:${id}`)));
}

/** A row of <VariantComparison />: one fact read in every measured variant's run. */
export interface ComparisonRow<Id extends string = string> {
  fact: Id;
  label: Text;
}

/** The `{fact.id}` placeholders of a line (a `{{` is a literal brace). */
type Placeholders<S extends string> = S extends `${string}{${infer Id}}${infer Rest}` ? (Id extends `{${string}` ? never : Id) | Placeholders<Rest> : never;
/** The placeholders of every line that name no fact of `Id`. */
type Undeclared<L, Id extends string> = {
  [Step in keyof L]: { [G in keyof L[Step]]: L[Step][G] extends string ? Exclude<Placeholders<L[Step][G]>, Id> : never }[keyof L[Step]];
}[keyof L];
/** Lines whose placeholders all name facts pass; otherwise `lines` must be a message naming what they read. */
type LinesCheck<L, Id extends string> = [Undeclared<L, Id>] extends [never] ? unknown : { lines: `reads an undeclared fact: {${Undeclared<L, Id>}}` };

export interface ArticleDefinition<F extends FactSpecs, V extends Record<string, FactSpecs>, L, Id extends string = FactIdOf<F, V>> {
  experiment: Experiment;
  facts: F;
  /** Facts only one variant's run has, by variant. */
  variantFacts?: V;
  /** Step id -> its measured line in each language, with {fact.id} placeholders. */
  lines: L;
  claims?: Claim<Id>[];
  /** Claims across the variants' runs, over `<variant>:<fact id>`. */
  comparisons?: Claim<`${string}:${Id}`>[];
  comparisonRows?: ComparisonRow<Id>[];
  charts?: ChartDef<Id>[];
  paths?: PacketPathDef<Id>[];
  walkthrough?: WalkthroughStop[];
  /**
   * The upstream code a mechanism sentence rests on, by id (`<Cite id="…" />` ends the sentence): a file of
   * kubernetes/kubernetes and the lines that decide it, as the file has them without indentation. `npm run cite`
   * keeps those lines of every release the runs used in upstream.yaml; the build checks the two agree.
   */
  citations?: Record<string, { file: string; lines: string[]; about: Text }>;
}

/** An article's definition, as article.ts exports it by default: checked by the type checker, loaded by src/authoring/load.ts. */
export function defineArticle<const F extends FactSpecs, const L extends Record<string, Record<Lang, string>>, const V extends Record<string, FactSpecs> = {}>(
  definition: ArticleDefinition<F, V, L> & LinesCheck<L, FactIdOf<F, V>>,
): ArticleDefinition<FactSpecs, Record<string, FactSpecs>, Record<string, Record<Lang, string>>, string> {
  return definition as unknown as ArticleDefinition<FactSpecs, Record<string, FactSpecs>, Record<string, Record<Lang, string>>, string>;
}
