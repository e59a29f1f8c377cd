// The Open Graph cards of the pages that are shared: an article's (its title,
// series and the headline values the build derived: headlines.ts reads them from
// the MDX's headline paragraphs through the article's evidence), its evidence
// page's (what its claims held in, over how many runs, versions and environments)
// and each home page's (the site and its newest articles). Each is drawn (src/og)
// once per content: a card drawn by an earlier build is read back from the
// machine's cache (src/og/card-cache.ts). The pages write the meta tags; the
// og.png routes the image.
import { site, type Lang } from '../../site.config.ts';
import { fill, ui } from '../../i18n/ui.ts';
import { articlePath, evidencePath, homePath } from '../../i18n/urls.ts';
import { evidencePageStrings } from '../../i18n/evidence-page.ts';
import { evidenceStrings } from '../../i18n/evidence.ts';
import { claimMatrix, runsScope } from '../../evidence/runs/environments.ts';
import { titlePhrases } from '../../i18n/phrases.ts';
import { articleEvidence } from '../../article/evidence/registry.ts';
import { evidenceOfRun } from '../../evidence/runs/variants.ts';
import { headlinesOf } from '../../article/render/headlines.ts';
import { CARD, cardAlt, type CardText } from '../../og/card.ts';
import { machineCardCache } from '../../og/card-cache.ts';
import { cardPng } from '../../og/render.ts';
import type { ArticleEdition } from './articles.ts';

export { CARD } from '../../og/card.ts';

/** Beside the page: /<slug>/og.png, /en/<slug>/og.png. */
export function ogImagePath(edition: ArticleEdition): string {
  return `${articlePath(edition.lang, edition.slug)}og.png`;
}

/** The card's text, in the language of the article's text (on a fallback page, the other one's). */
export function ogCard(edition: ArticleEdition): CardText {
  const { entry, contentLang: lang, slug } = edition;
  const evidence = articleEvidence(slug);
  const file = `content/articles/${slug}/${lang}.mdx`;
  const value = (id: string, run: Parameters<typeof evidenceOfRun>[1]) => {
    const fact = evidenceOfRun(evidence, run, file).facts.get(id);
    // The build's check has refused an unknown id before any page renders: this is a mistake here.
    if (!fact) throw new Error(`${file}: a headline's <Fact id="${id}"> has no value`);
    return fact.value;
  };
  return {
    lang,
    series: `${entry.data.series.name} · ${entry.data.series.number}`,
    site: site.title[lang],
    title: entry.data.title,
    titlePhrases: titlePhrases(entry.data.title),
    headlines: headlinesOf(entry.body ?? '', value),
    footer: ui(lang).footerNote,
  };
}

export const ogImageAlt = (edition: ArticleEdition): string => cardAlt(ogCard(edition));

/** The PNG's bytes, as a Response takes them: drawn, or read back from the machine's card cache. */
export const ogImagePng = (edition: ArticleEdition): Uint8Array<ArrayBuffer> => new Uint8Array(cardPng(ogCard(edition), { cache: machineCardCache(CARD) }));

/** Beside the evidence page: /<slug>/evidence/og.png. */
export const evidenceOgImagePath = (edition: ArticleEdition): string => `${evidencePath(edition.lang, edition.slug)}og.png`;

/**
 * The evidence page's card: the claims that held in every run, and the versions and environments of those runs.
 * None of its figures is a measurement (the claims' verdicts and the runs' count are the build's), and its foot says so.
 */
export function evidenceOgCard(edition: ArticleEdition): CardText {
  const { entry, contentLang: lang, slug } = edition;
  const t = evidencePageStrings(lang);
  const e = evidenceStrings(lang);
  const matrix = claimMatrix(articleEvidence(slug));
  const scope = runsScope(matrix.columns);
  const { versions, variants: modes } = scope;
  const environments = scope.environments.map((name) => e.environmentNames[name]);
  const broken = matrix.rows.filter((r) => r.brokenIn.length > 0).length;
  const title = fill(t.cardTitle, { title: entry.data.title });
  return {
    lang,
    series: `${entry.data.series.name} · ${entry.data.series.number}`,
    site: site.title[lang],
    title,
    titlePhrases: titlePhrases(title),
    headlines: [
      { value: `${matrix.rows.length - broken}/${matrix.rows.length}`, label: fill(t.cardClaims, { runs: String(matrix.columns.length) }) },
      ...(broken > 0 ? [{ value: String(broken), label: t.cardBroken }] : []),
      ...(versions.length > 0 ? [{ value: String(versions.length), label: fill(t.cardVersions, { versions: versions.join(e.listSeparator) }) }] : []),
      {
        value: String(environments.length),
        label: fill(t.cardEnvironments, { environments: environments.join(e.listSeparator), modes: modes.join(e.listSeparator) }),
      },
    ],
    footer: t.cardFooter,
  };
}

export const evidenceOgImagePng = (edition: ArticleEdition): Uint8Array<ArrayBuffer> =>
  new Uint8Array(cardPng(evidenceOgCard(edition), { cache: machineCardCache(CARD) }));

/** Beside the home page: /og.png, /en/og.png. */
export const homeOgImagePath = (lang: Lang): string => `${homePath(lang)}og.png`;

/** A home page's card: the site, what it is (a heading, so without its full stop), and its newest articles, each by its number. */
export function homeOgCard(lang: Lang, newestFirst: readonly ArticleEdition[]): CardText {
  const title = site.description[lang].replace(/[。.]$/, '');
  return {
    lang,
    series: site.series.join(' · '),
    site: site.title[lang],
    title,
    titlePhrases: titlePhrases(title),
    headlines: newestFirst
      .slice(0, 3)
      .map((edition) => ({ value: String(edition.entry.data.series.number).padStart(3, '0'), label: edition.entry.data.title })),
    footer: ui(lang).footerNote,
  };
}

export const homeOgImagePng = (lang: Lang, newestFirst: readonly ArticleEdition[]): Uint8Array<ArrayBuffer> =>
  new Uint8Array(cardPng(homeOgCard(lang, newestFirst), { cache: machineCardCache(CARD) }));
