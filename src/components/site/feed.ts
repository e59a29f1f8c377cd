// The RSS feed of one language: the articles written in it (fallback pages are not announced).
// An item's pubDate is its publication; a re-run after it changes the page's numbers, so each
// item also says when it last changed (Atom's <updated>, which RSS readers take from the Atom
// namespace), and the channel's lastBuildDate is the latest of those.
import rss from '@astrojs/rss';
import { LANG_TAGS, site, type Lang } from '../../site.config.ts';
import { listingFor } from '../../i18n/editions.ts';
import { lastUpdated } from '../../i18n/dates.ts';
import { fill, ui } from '../../i18n/ui.ts';
import { articlePath, homePath } from '../../i18n/urls.ts';
import { articleEvidence } from '../../article/evidence/registry.ts';
import { measuredRuns } from '../../evidence/runs/environments.ts';
import { loadEditions } from './articles.ts';
import { xmlText } from '../../xml-text.ts';

/** The days the article's runs were measured, every environment and variant (none for a draft). */
function measuredDays(slug: string): string[] {
  return measuredRuns(articleEvidence(slug)).map((run) => run.evidence.facts.get('run.date')!.value);
}

export async function feedResponse(lang: Lang): Promise<Response> {
  const written = listingFor(await loadEditions(), lang).filter((edition) => !edition.isFallback);
  const items = written.map((edition) => ({ edition, updated: lastUpdated(edition.entry.data.date, measuredDays(edition.slug)) }));
  const latest = items.map((i) => i.updated).reduce<Date | undefined>((a, b) => (a === undefined || b > a ? b : a), undefined);
  return rss({
    title: xmlText(fill(ui(lang).rssFeedTitle, { site: site.title[lang] })),
    description: xmlText(site.description[lang]),
    site: new URL(homePath(lang), site.url).href,
    trailingSlash: true,
    xmlns: { atom: 'http://www.w3.org/2005/Atom' },
    customData: `<language>${LANG_TAGS[lang]}</language>${latest ? `<lastBuildDate>${latest.toUTCString()}</lastBuildDate>` : ''}`,
    items: items.map(({ edition, updated }) => ({
      // The front matter refuses a character XML forbids; the writer strips one all the same.
      title: xmlText(edition.entry.data.title),
      description: xmlText(edition.entry.data.summary),
      pubDate: edition.entry.data.date,
      link: new URL(articlePath(lang, edition.slug), site.url).href,
      categories: [edition.entry.data.series.name],
      customData: `<atom:updated>${updated.toISOString()}</atom:updated>`,
    })),
  });
}
