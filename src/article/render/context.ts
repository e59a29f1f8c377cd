// The article a page is rendering, as its MDX components see it. ArticleBody
// puts it in Astro.locals before rendering the MDX; <Fact> and <Measured> read it.
// The MDX's own <Fact>s are bound as it compiles (mdx-facts.ts), by boundFact too.
import type { ArticleEvidence } from '../../evidence/runs/types.ts';
import type { Fact } from '../../evidence/facts.ts';
import type { Lang } from '../../evidence/template.ts';
import type { DeclaredLabels, RunBinding } from './fact-html.ts';
import { evidenceOfRun, type RunRef } from '../../evidence/runs/variants.ts';

export type { RunRef };
import { runStepId } from './anchors.ts';
import { unrecordedVersion } from '../../evidence/run-facts.ts';
import { evidenceStrings } from '../../i18n/evidence.ts';

export interface ArticleContext {
  evidence: ArticleEvidence;
  /** The language of the prose being rendered (templates follow it). */
  lang: Lang;
  /** The MDX file, for messages: content/articles/<slug>/<lang>.mdx */
  file: string;
  /**
   * Where the run records are: each on its own page, which an article links to
   * (`href` of a run, by environment and variant; undefined for the article's
   * own), or `this-page` on a run record's own page, whose places are its own
   * and need no run in their ids.
   */
  runRecords: { href: (run: RunRef | undefined) => string } | 'this-page';
  /** The article's evidence page, in the page's language (the article links to it; the page itself is it). */
  evidencePage?: string;
}

/**
 * A run named as the article names it: without what is the article's own (the
 * headline environment, an environment's default variant); undefined for the
 * article's own run.
 */
export function ownRunOmitted(evidence: ArticleEvidence, ref: RunRef): RunRef | undefined {
  const environments = evidence.environmentRuns;
  const environment = ref.environment === undefined || ref.environment === environments?.headline ? undefined : ref.environment;
  const inEnvironment = environment === undefined ? evidence : environments?.runs.get(environment as never);
  const variant = ref.variant === undefined || ref.variant === inEnvironment?.variantRuns?.defaultVariant ? undefined : ref.variant;
  if (environment === undefined && variant === undefined) return undefined;
  return { ...(environment === undefined ? {} : { environment }), ...(variant === undefined ? {} : { variant }) };
}

/** A run's key in ids of a page's places: `nftables`, `lab`, `lab-nftables`; undefined for the article's own run. */
export function runKey(ref: RunRef | undefined): string | undefined {
  if (!ref) return undefined;
  return [ref.environment, ref.variant].filter(Boolean).join('-') || undefined;
}

/** The link to a step's row in its run's record, from wherever the step is shown. */
export function runStepHref(article: ArticleContext, step: string, ref: RunRef = {}): string {
  const fragment = `#${runStepId(step)}`;
  return article.runRecords === 'this-page' ? fragment : `${article.runRecords.href(ownRunOmitted(article.evidence, ref))}${fragment}`;
}

export function currentArticle(locals: { shice?: ArticleContext }, component: string): ArticleContext {
  if (!locals.shice) throw new Error(`<${component}> is used outside an article: render it through ArticleBody`);
  return locals.shice;
}

export function requireFact(article: Pick<ArticleContext, 'evidence' | 'file'>, id: string | undefined): Fact {
  if (!id) throw new Error(`${article.file}: <Fact> without an id`);
  const fact = article.evidence.facts.get(id);
  if (fact) return fact;
  const skipped = article.evidence.skipped.find((s) => s.id === id);
  if (skipped) throw new Error(`${article.file}: <Fact id="${id}">: this run has no such value (${skipped.reason}: ${skipped.cause})`);
  const unrecorded = unrecordedVersion(id);
  if (unrecorded) throw new Error(`${article.file}: <Fact id="${id}">: this run has no such value (${unrecorded})`);
  throw new Error(`${article.file}: <Fact id="${id}">: no such fact in content/articles/${article.evidence.slug}/article.ts, nor one every run has`);
}

export function requireSteps(article: ArticleContext, steps: string | undefined): string[] {
  const ids = (steps ?? '').split(/\s+/).filter(Boolean);
  if (!ids.length) throw new Error(`${article.file}: <Measured> needs steps="<step id> ..."`);
  const known = article.evidence.snapshots.run.steps;
  const unknown = ids.filter((id) => !known.includes(id));
  if (unknown.length) throw new Error(`${article.file}: <Measured steps="${steps}">: unknown step ${unknown.join(', ')}; the run has: ${known.join(', ')}`);
  return ids;
}

/** The evidence of the run `ref` names, and the binding its values carry (none for the article's own run). */
function runOf(
  article: Pick<ArticleContext, 'evidence' | 'file'>,
  ref: RunRef,
  component: string,
): { evidence: ArticleEvidence; binding: RunBinding | undefined } {
  if (ref.environment === undefined && ref.variant === undefined) return { evidence: article.evidence, binding: undefined };
  const evidence = evidenceOfRun(article.evidence, ref, `${article.file}: <${component}>`);
  return { evidence, binding: { ...ref, run: evidence.snapshots.run.runId } };
}

/**
 * The article as a component bound to a run reads it: that environment's and
 * variant's run, the binding its values carry (data-environment, data-variant,
 * data-run), and the run its places are qualified by (undefined for the
 * article's own run, whose places stay as they were, and on a run record's page).
 */
export function runContext(
  article: ArticleContext,
  ref: RunRef,
  component: string,
): {
  article: ArticleContext;
  binding: RunBinding | undefined;
  anchor: RunRef | undefined;
} {
  const { evidence, binding } = runOf(article, ref, component);
  if (!binding) return { article, binding: undefined, anchor: undefined };
  return {
    article: { ...article, evidence },
    binding,
    anchor: article.runRecords === 'this-page' ? undefined : ownRunOmitted(article.evidence, ref),
  };
}

/** What binding one value needs of the article: its evidence, its prose's language, its file (for messages). */
export type FactScope = Pick<ArticleContext, 'evidence' | 'lang' | 'file'>;

/** One value as <Fact id environment variant> binds it: the fact, the run it is bound to, and how a declared value is marked. */
export interface BoundFact {
  fact: Fact;
  binding: RunBinding | undefined;
  declared: DeclaredLabels;
}

/**
 * The value <Fact id environment variant> shows, read from that environment's
 * and variant's run (the article's own when neither is named): the markup is
 * fact-html.ts's, written by Fact.astro or, in an article's MDX, by the MDX
 * pipeline (mdx-facts.ts). A declared value is marked in the prose's language.
 */
export function boundFact(scope: FactScope, id: string | undefined, ref: RunRef): BoundFact {
  const { evidence, binding } = runOf(scope, ref, 'Fact');
  const fact = requireFact({ evidence, file: scope.file }, id);
  const t = evidenceStrings(scope.lang);
  return { fact, binding, declared: { mark: t.declaredMark, title: t.declaredTitle } };
}

/**
 * The value a `data-fact` element of the page must show: that fact's, in the
 * run its `data-environment` and `data-variant` name (the page's own run when
 * neither); undefined when there is no such fact or run.
 */
export function boundValue(article: ArticleContext, id: string, ref: RunRef): string | undefined {
  try {
    return evidenceOfRun(article.evidence, ref, article.file).facts.get(id)?.value;
  } catch {
    return undefined; // no such run: the check names the element
  }
}
