// The RSS feed of one language: the articles written in it (fallback pages are not announced).
import rss from '@astrojs/rss';
import { LANG_TAGS, site, type Lang } from '../../site.config.ts';
import { listingFor } from '../../i18n/editions.ts';
import { fill, ui } from '../../i18n/ui.ts';
import { articlePath, homePath } from '../../i18n/urls.ts';
import { loadEditions } from './articles.ts';

export async function feedResponse(lang: Lang): Promise<Response> {
  const written = listingFor(await loadEditions(), lang).filter((edition) => !edition.isFallback);
  return rss({
    title: fill(ui(lang).rssFeedTitle, { site: site.title[lang] }),
    description: site.description[lang],
    site: new URL(homePath(lang), site.url).href,
    trailingSlash: true,
    customData: `<language>${LANG_TAGS[lang]}</language>`,
    items: written.map((edition) => ({
      title: edition.entry.data.title,
      description: edition.entry.data.summary,
      pubDate: edition.entry.data.date,
      link: new URL(articlePath(lang, edition.slug), site.url).href,
      categories: [edition.entry.data.series.name],
    })),
  });
}
