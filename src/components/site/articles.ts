// The articles collection as pages (each article, and the record of each of its
// runs): the only place the site reads it.
import { getCollection, type CollectionEntry } from 'astro:content';
import type { Lang } from '../../site.config.ts';
import { buildEditions, seriesNeighbours, type Edition, type Neighbours } from '../../i18n/editions.ts';
import { articleEvidence } from '../../article/evidence/registry.ts';
import { measuredRuns } from '../../evidence/runs/environments.ts';
import type { RunRef } from '../../evidence/runs/variants.ts';

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
  /** Which run this is, as the article names it (environment and variant left out where they are its own); undefined for its own run. */
  run: RunRef | undefined;
}

/**
 * getStaticPaths() of the run records of one language: one page per measured run
 * of every article, in every environment (the article's own run first). A run
 * not yet measured (a draft's placeholders) has none.
 */
export async function runRecordPaths(lang: Lang): Promise<{ params: { slug: string; run: string | undefined }; props: RunRecordPageProps }[]> {
  const editions = (await loadEditions()).filter((edition) => edition.lang === lang);
  return editions.flatMap((edition) => {
    // A draft has a record for each run it has (the lab's before kind's, say), none for its placeholders.
    return measuredRuns(articleEvidence(edition.slug)).map(({ ref }) => {
      const run = Object.keys(ref).length ? ref : undefined;
      const param = [ref.version, ref.environment, ref.variant].filter(Boolean).join('/') || undefined;
      return { params: { slug: edition.slug, run: param }, props: { edition, run } };
    });
  });
}

export interface EvidencePageProps {
  edition: ArticleEdition;
  /** The evidence page's MDX in the edition's content language. */
  evidence: CollectionEntry<'evidence'>;
}

/**
 * getStaticPaths() of the evidence pages of one language: one per article that
 * writes one (content/articles/<slug>/evidence.<lang>.mdx), in the language its
 * article page shows.
 */
export async function evidencePaths(lang: Lang): Promise<{ params: { slug: string }; props: EvidencePageProps }[]> {
  const pages = new Map((await getCollection('evidence')).map((entry) => [entry.id, entry]));
  return (await loadEditions())
    .filter((edition) => edition.lang === lang)
    .flatMap((edition) => {
      const evidence = pages.get(`${edition.slug}/${edition.contentLang}`);
      return evidence ? [{ params: { slug: edition.slug }, props: { edition, evidence } }] : [];
    });
}
