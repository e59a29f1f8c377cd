// The article a page is rendering, as its MDX components see it. ArticleBody
// puts it in Astro.locals before rendering the MDX; <Fact> and <Measured> read it.
import type { ArticleEvidence } from '../../evidence/article/types.ts';
import type { Fact } from '../../evidence/facts.ts';
import type { Lang } from '../../evidence/template.ts';
import type { VariantBinding } from './fact-html.ts';
import { evidenceOfVariant } from '../../evidence/article/variants.ts';
import { runStepId } from './anchors.ts';

export interface ArticleContext {
  evidence: ArticleEvidence;
  /** The language of the prose being rendered (templates follow it). */
  lang: Lang;
  /** The MDX file, for messages: content/articles/<slug>/<lang>.mdx */
  file: string;
  /**
   * Where the run records are: each on its own page, which an article links to
   * (`href` of a run, by variant), or `this-page` on a run record's own page,
   * whose places are its own and need no variant in their ids.
   */
  runRecords: { href: (variant: string | undefined) => string } | 'this-page';
}

/** The link to a step's row in its run's record, from wherever the step is shown. */
export function runStepHref(article: ArticleContext, step: string, variant: string | undefined): string {
  const isDefault = variant === undefined || article.evidence.variantRuns?.defaultVariant === variant;
  const fragment = `#${runStepId(step)}`;
  return article.runRecords === 'this-page' ? fragment : `${article.runRecords.href(isDefault ? undefined : variant)}${fragment}`;
}

export function currentArticle(locals: { shice?: ArticleContext }, component: string): ArticleContext {
  if (!locals.shice) throw new Error(`<${component}> is used outside an article: render it through ArticleBody`);
  return locals.shice;
}

export function requireFact(article: ArticleContext, id: string | undefined): Fact {
  if (!id) throw new Error(`${article.file}: <Fact> without an id`);
  const fact = article.evidence.facts.get(id);
  if (fact) return fact;
  const skipped = article.evidence.skipped.find((s) => s.id === id);
  if (skipped) throw new Error(`${article.file}: <Fact id="${id}">: this run has no such value (${skipped.reason}: ${skipped.cause})`);
  throw new Error(`${article.file}: <Fact id="${id}">: no such fact in content/articles/${article.evidence.slug}/facts.ts`);
}

export function requireSteps(article: ArticleContext, steps: string | undefined): string[] {
  const ids = (steps ?? '').split(/\s+/).filter(Boolean);
  if (!ids.length) throw new Error(`${article.file}: <Measured> needs steps="<step id> ..."`);
  const known = article.evidence.snapshots.run.steps;
  const unknown = ids.filter((id) => !known.includes(id));
  if (unknown.length) throw new Error(`${article.file}: <Measured steps="${steps}">: unknown step ${unknown.join(', ')}; the run has: ${known.join(', ')}`);
  return ids;
}

/**
 * The article as a component bound to `variant` reads it: that variant's run, the
 * binding its values carry (data-variant, data-run), and the variant its anchors
 * are qualified by (none for the article's own run, whose places stay as they were).
 */
export function variantContext(
  article: ArticleContext,
  variant: string | undefined,
  component: string,
): {
  article: ArticleContext;
  binding: VariantBinding | undefined;
  anchor: string | undefined;
} {
  if (variant === undefined) return { article, binding: undefined, anchor: undefined };
  const evidence = evidenceOfVariant(article.evidence, variant, `${article.file}: <${component}>`);
  const isDefault = article.evidence.variantRuns?.defaultVariant === variant;
  return {
    article: { ...article, evidence },
    binding: { variant, run: evidence.snapshots.run.runId },
    anchor: isDefault || article.runRecords === 'this-page' ? undefined : variant,
  };
}

/**
 * The value a `data-fact` element of the page must show: that fact's, in the
 * run its `data-variant` names (the page's own run when none); undefined when
 * there is no such fact or run.
 */
export function boundValue(article: ArticleContext, id: string, variant: string | undefined): string | undefined {
  const runs = article.evidence.variantRuns;
  const evidence =
    variant === undefined ? article.evidence : (runs?.runs.get(variant) ?? (article.evidence.variant === variant ? article.evidence : undefined));
  return evidence?.facts.get(id)?.value;
}
