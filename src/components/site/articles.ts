// The articles collection as pages: the only place the site reads it.
import { getCollection, type CollectionEntry } from 'astro:content';
import type { Lang } from '../../site.config.ts';
import { buildEditions, seriesNeighbours, type Edition, type Neighbours } from '../../i18n/editions.ts';

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
