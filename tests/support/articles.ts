// The project's articles as every reader takes them (src/authoring/load.ts's
// `articleFrom` on what their article.ts exports by default), loaded once for
// the tests that read their experiment, facts, claims, lines or parts.
import { articleFrom, type Article } from '../../src/authoring/load.ts';
import type { FactDef } from '../../src/evidence/facts.ts';
import type { FactSpecs } from '../../src/evidence/fact-kit.ts';
import type { Experiment } from '../../src/experiment/types.ts';
import type { ArticleRunsInput } from '../../src/evidence/runs/variants.ts';
import definition074 from '../../content/articles/074-external-traffic-policy/article.ts';
import definition075 from '../../content/articles/075-local-uneven-weights/article.ts';
import definition076 from '../../content/articles/076-internal-traffic-policy/article.ts';

export const S074 = '074-external-traffic-policy';
export const S075 = '075-local-uneven-weights';
export const S076 = '076-internal-traffic-policy';

export const article074: Article = articleFrom(definition074, S074);
export const article075: Article = articleFrom(definition075, S075);
export const article076: Article = articleFrom(definition076, S076);

/** Fact definitions from facts by id (a family such as settleFacts('delete-backend')), as the loader makes them. */
export const factDefsOf = (specs: FactSpecs): FactDef[] => Object.entries(specs).map(([id, spec]) => ({ id, ...spec }));

/** Each article's experiment: what runs, in which environments and variants. */
export const experiment074 = article074.experiment;
export const experiment075 = article075.experiment;
export const experiment076 = article076.experiment;

/** What the evidence builders are given for article 074's runs under `headlineDir` (its snapshots folder), read with `experiment`. */
export const runsInput074 = (headlineDir: string, experiment: Experiment = experiment074): ArticleRunsInput => ({
  slug: S074,
  snapshotsDir: headlineDir,
  experiment,
  factDefs: article074.factDefs,
  variantFactDefs: article074.variantFactDefs,
  lines: article074.lines,
  linesFile: article074.file,
  claimDefs: article074.claimDefs,
  comparisonDefs: article074.comparisonDefs,
  claimsFile: article074.file,
});
