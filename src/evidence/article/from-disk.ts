// An article's evidence read outside Vite (the build-time checks, the capture's
// "what changed" report): its facts.ts, lines.ts and claims.ts imported by path.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FactDef } from '../facts.ts';
import type { LineTemplates } from '../template.ts';
import type { ClaimDef } from '../claims.ts';
import { buildArticleEvidence } from './build.ts';
import type { ArticleEvidence } from './types.ts';
import { buildArticleRuns, linesOfVariant } from './variants.ts';
import { buildArticleEnvironments } from './environments.ts';
import type { Experiment } from '../../experiment/types.ts';

export const ARTICLES = 'content/articles';

/** `fresh` (a token) imports the file anew, past Node's module cache: dev re-checks after an edit. */
async function moduleExport<T>(file: string, name: string, fresh?: string): Promise<T> {
  if (!existsSync(file)) throw new Error(`${file}: missing (expected an export named "${name}")`);
  const value = await articleFileExport(file, name, fresh);
  if (value === undefined) throw new Error(`${file}: expected an export named "${name}"`);
  return value as T;
}

export interface ArticleDefinitions {
  factDefs: FactDef[];
  lines: LineTemplates;
  claimDefs: ClaimDef[];
  /** facts.ts's `variantFacts`, claims.ts's `comparisons` and the experiment: for an article with variants. */
  variantFactDefs?: Record<string, FactDef[]>;
  comparisonDefs?: ClaimDef[];
  experiment?: Experiment | null;
}

/**
 * An export of one of an article's definition files (`paths.ts`'s `paths`), or undefined when the
 * file is absent; past the module cache with `fresh`. For definitions only the site reads.
 */
export async function articleFileExport(file: string, name: string, fresh?: string): Promise<unknown> {
  if (!existsSync(file)) return undefined;
  const url = pathToFileURL(resolve(file));
  if (fresh !== undefined) url.search = `?shice-dev=${encodeURIComponent(fresh)}`;
  return ((await import(url.href)) as Record<string, unknown>)[name];
}

async function optionalExport<T>(file: string, name: string): Promise<T | undefined> {
  if (!existsSync(file)) return undefined;
  return ((await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>)[name] as T | undefined;
}

export async function loadArticleDefinitions(root: string, slug: string, fresh?: string): Promise<ArticleDefinitions> {
  const dir = join(root, ARTICLES, slug);
  return {
    factDefs: await moduleExport<FactDef[]>(join(dir, 'facts.ts'), 'facts', fresh),
    lines: await moduleExport<LineTemplates>(join(dir, 'lines.ts'), 'lines', fresh),
    claimDefs: existsSync(join(dir, 'claims.ts')) ? await moduleExport<ClaimDef[]>(join(dir, 'claims.ts'), 'claims', fresh) : [],
    variantFactDefs: await optionalExport<Record<string, FactDef[]>>(join(dir, 'facts.ts'), 'variantFacts'),
    comparisonDefs: await optionalExport<ClaimDef[]>(join(dir, 'claims.ts'), 'comparisons'),
    experiment: (await optionalExport<Experiment>(join(dir, 'experiment.ts'), 'experiment')) ?? null,
  };
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
  options: { variants?: boolean; variant?: string | null; draft?: boolean; folderOf?: (variant: string) => string } = { variants: true },
): ArticleEvidence {
  const common = {
    slug,
    snapshotsDir,
    lines: defs.lines,
    linesFile: `${ARTICLES}/${slug}/lines.ts`,
    claimsFile: `${ARTICLES}/${slug}/claims.ts`,
  };
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
    factDefs: [...defs.factDefs, ...(variant === null ? [] : (defs.variantFactDefs?.[variant] ?? []))],
    lines: variant === null || !experiment ? defs.lines : linesOfVariant(defs.lines, experiment, variant),
    claimDefs: defs.claimDefs.filter((c) => variant === null || c.variants === undefined || c.variants.includes(variant)),
    draft: options.draft ?? false,
  });
}
