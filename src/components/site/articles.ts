// The articles collection as pages (each article, and the record of each of its
// runs): the only place the site reads it.
import { getCollection, type CollectionEntry } from 'astro:content';
import type { Lang } from '../../site.config.ts';
import { buildEditions, seriesNeighbours, type Edition, type Neighbours } from '../../i18n/editions.ts';
import { articleEvidence } from '../../article/evidence/registry.ts';

export type ArticleEntry = CollectionEntry<'articles'>;
export type ArticleEdition = Edition<ArticleEntry>;

export async function loadEditions(): Promise<ArticleEdition[]> {
  return buildEditions(await getCollection('articles'));
}

export interface ArticlePageProps {
  edition: ArticleEdition;
  neighbours: Neighbours<ArticleEntry>;
}

/** getStaticPaths() of the article pages of one language: one per article, fallbacks included. */
export async function articlePaths(lang: Lang): Promise<{ params: { slug: string }; props: ArticlePageProps }[]> {
  const editions = await loadEditions();
  return editions
    .filter((edition) => edition.lang === lang)
    .map((edition) => ({
      params: { slug: edition.slug },
      props: { edition, neighbours: seriesNeighbours(editions, edition) },
    }));
}

export interface RunRecordPageProps {
  edition: ArticleEdition;
  /** The variant whose run this is; undefined for the run the article is built from. */
  variant: string | undefined;
}

/**
 * getStaticPaths() of the run records of one language: one page per measured run
 * of every article (the article's own run, then each other variant's). An
 * article not yet measured (a draft) has none.
 */
export async function runRecordPaths(lang: Lang): Promise<{ params: { slug: string; variant: string | undefined }; props: RunRecordPageProps }[]> {
  const editions = (await loadEditions()).filter((edition) => edition.lang === lang);
  return editions.flatMap((edition) => {
    const evidence = articleEvidence(edition.slug);
    if (evidence.unmeasured) return [];
    const runs = evidence.variantRuns;
    const others = runs ? runs.measured.filter((variant) => variant !== runs.defaultVariant) : [];
    return [undefined, ...others].map((variant) => ({ params: { slug: edition.slug, variant }, props: { edition, variant } }));
  });
}
