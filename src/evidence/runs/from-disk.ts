// An article's evidence read outside Vite (the build-time checks, the capture's
// judgement and "what changed" report), from the definitions src/authoring/load.ts loads.
import type { FactDef } from '../facts.ts';
import type { LineTemplates } from '../template.ts';
import type { ClaimDef } from '../claims.ts';
import { buildArticleEvidence } from './build.ts';
import type { ArticleEvidence } from './types.ts';
import { buildArticleRuns, linesOfVariant } from './variants.ts';
import { buildArticleEnvironments } from './environments.ts';
import type { Experiment } from '../../experiment/types.ts';

export interface ArticleDefinitions {
  factDefs: FactDef[];
  lines: LineTemplates;
  claimDefs: ClaimDef[];
  /** Facts only one variant has, the claims across variants, and the experiment: for an article with variants. */
  variantFactDefs?: Record<string, FactDef[]>;
  comparisonDefs?: ClaimDef[];
  experiment?: Experiment | null;
}

/**
 * The evidence of one snapshots folder: the default run's, with every variant
 * and environment beside it when `variants` is set (the build), or that
 * folder's run alone (a capture's report of one variant).
 */
export function evidenceFromDisk(
  slug: string,
  snapshotsDir: string,
  defs: ArticleDefinitions,
  options: { variants?: boolean; variant?: string | null; draft?: boolean; folderOf?: (variant: string) => string; collectUnfound?: boolean } = {
    variants: true,
  },
): ArticleEvidence {
  const file = `content/articles/${slug}/article.ts`;
  const common = { slug, snapshotsDir, lines: defs.lines, linesFile: file, claimsFile: file };
  const experiment = defs.experiment ?? null;
  // As the pages derive it (src/article/evidence/registry.ts), so that the build's check and the pages see one evidence:
  // every environment's runs; or, with `folderOf` (a capture judging its staged runs), one environment's variants.
  if (options.variants) {
    return (options.folderOf ? buildArticleRuns : buildArticleEnvironments)({
      ...common,
      experiment,
      factDefs: defs.factDefs,
      variantFactDefs: defs.variantFactDefs,
      claimDefs: defs.claimDefs,
      comparisonDefs: defs.comparisonDefs,
      draft: options.draft ?? false,
      ...(options.folderOf ? { folderOf: options.folderOf } : {}),
    });
  }
  // One run: the given variant's facts, lines and claims (the default variant's when none is given).
  const variant = options.variant ?? (experiment?.variants ? experiment.variants.values[0]! : null);
  return buildArticleEvidence({
    ...common,
    experiment,
    factDefs: [...defs.factDefs, ...(variant === null ? [] : (defs.variantFactDefs?.[variant] ?? []))],
    lines: variant === null || !experiment ? defs.lines : linesOfVariant(defs.lines, experiment, variant),
    claimDefs: defs.claimDefs.filter((c) => variant === null || c.variants === undefined || c.variants.includes(variant)),
    draft: options.draft ?? false,
    collectUnfound: options.collectUnfound ?? false,
  });
}
