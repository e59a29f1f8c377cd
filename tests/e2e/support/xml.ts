// RSS and sitemap documents parsed by the browser's own XML parser (a parse error fails the check).
import type { APIRequestContext, Page } from '@playwright/test';

export interface Feed {
  title: string;
  link: string;
  language: string;
  /** The channel's lastBuildDate (RFC 822), empty when absent. */
  lastBuildDate: string;
  /** Each item's Atom <updated> (RFC 3339), empty when absent. */
  items: { title: string; link: string; guid: string; pubDate: string; updated: string; description: string }[];
}

export interface SitemapUrl {
  loc: string;
  alternates: { hreflang: string; href: string }[];
}

async function fetchText(request: APIRequestContext, path: string): Promise<{ text: string; contentType: string }> {
  const response = await request.get(path);
  if (response.status() !== 200) throw new Error(`GET ${path}: expected status 200, got ${response.status()}`);
  return { text: await response.text(), contentType: response.headers()['content-type'] ?? '' };
}

export async function readFeed(page: Page, request: APIRequestContext, path: string): Promise<Feed & { contentType: string }> {
  const { text, contentType } = await fetchText(request, path);
  const feed = await page.evaluate((xml) => {
    const doc = new DOMParser().parseFromString(xml, 'application/xml');
    const error = doc.querySelector('parsererror');
    if (error) return { error: error.textContent ?? 'parse error' };
    const text = (parent: Element | Document, tag: string) => parent.querySelector(tag)?.textContent ?? '';
    const channel = doc.querySelector('rss > channel');
    if (!channel) return { error: 'no <rss><channel>' };
    return {
      title: text(channel, ':scope > title'),
      link: text(channel, ':scope > link'),
      language: text(channel, ':scope > language'),
      lastBuildDate: text(channel, ':scope > lastBuildDate'),
      items: [...channel.querySelectorAll(':scope > item')].map((item) => ({
        title: text(item, 'title'),
        link: text(item, 'link'),
        guid: text(item, 'guid'),
        pubDate: text(item, 'pubDate'),
        updated: item.getElementsByTagNameNS('http://www.w3.org/2005/Atom', 'updated')[0]?.textContent ?? '',
        description: text(item, 'description'),
      })),
    };
  }, text);
  if ('error' in feed) throw new Error(`${path}: not a well-formed RSS feed: ${feed.error}`);
  return { ...feed, contentType };
}

/** Every <url> of every sitemap listed by /sitemap-index.xml. */
export async function readSitemap(page: Page, request: APIRequestContext, localPathOf: (url: string) => string): Promise<SitemapUrl[]> {
  const parse = async (path: string) => {
    const { text } = await fetchText(request, path);
    const parsed = await page.evaluate((xml) => {
      const doc = new DOMParser().parseFromString(xml, 'application/xml');
      const error = doc.querySelector('parsererror');
      if (error) return { error: error.textContent ?? 'parse error' };
      const SM = 'http://www.sitemaps.org/schemas/sitemap/0.9';
      const XHTML = 'http://www.w3.org/1999/xhtml';
      const sitemaps = [...doc.getElementsByTagNameNS(SM, 'sitemap')].map((s) => s.getElementsByTagNameNS(SM, 'loc')[0]?.textContent ?? '');
      const urls = [...doc.getElementsByTagNameNS(SM, 'url')].map((u) => ({
        loc: u.getElementsByTagNameNS(SM, 'loc')[0]?.textContent ?? '',
        alternates: [...u.getElementsByTagNameNS(XHTML, 'link')].map((l) => ({
          hreflang: l.getAttribute('hreflang') ?? '',
          href: l.getAttribute('href') ?? '',
        })),
      }));
      return { sitemaps, urls };
    }, text);
    if ('error' in parsed) throw new Error(`${path}: not well-formed XML: ${parsed.error}`);
    return parsed;
  };
  const index = await parse('/sitemap-index.xml');
  if (index.sitemaps.length === 0) throw new Error('/sitemap-index.xml: expected at least one <sitemap><loc>, got none');
  const urls: SitemapUrl[] = [];
  for (const loc of index.sitemaps) urls.push(...(await parse(localPathOf(loc))).urls);
  return urls;
}
