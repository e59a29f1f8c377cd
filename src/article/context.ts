// The article a page is rendering, as its MDX components see it. ArticleBody
// puts it in Astro.locals before rendering the MDX; <Fact> and <Measured> read it.
import type { ArticleEvidence } from './evidence.ts';
import type { Fact } from '../evidence/facts.ts';
import type { Lang } from '../evidence/template.ts';

export interface ArticleContext {
  evidence: ArticleEvidence;
  /** The language of the prose being rendered (templates follow it). */
  lang: Lang;
  /** The MDX file, for messages: content/articles/<slug>/<lang>.mdx */
  file: string;
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
