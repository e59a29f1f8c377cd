// An article page's Open Graph card: its text gathered from the edition (title,
// series) and the headline values the build derived (headlines.ts reads them
// from the MDX's headline paragraphs through the article's evidence), then drawn
// (src/og), once per content: a card drawn by an earlier build is read back
// from the machine's cache (src/og/card-cache.ts). ArticlePage writes the meta
// tags; the og.png routes the image.
import { site } from '../../site.config.ts';
import { ui } from '../../i18n/ui.ts';
import { articlePath } from '../../i18n/urls.ts';
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
