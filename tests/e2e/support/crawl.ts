// Walks the built site from some start pages, the way a reader's browser would:
// every same-site link, stylesheet, script, image and #fragment must resolve.
import type { APIRequestContext, Page } from '@playwright/test';

export interface CrawlResult {
  pages: string[];
  assets: string[];
  externalLinks: string[];
  problems: string[];
}

interface Found {
  links: string[];
  ids: string[];
}

const PAGE_PATH = /(?:\/|\.html)$/;

/**
 * `toLocal` maps an absolute URL to a local path when it belongs to the site
 * (its public origin or the preview server), or returns null for other sites.
 */
export async function crawlSite(page: Page, request: APIRequestContext, start: string[], toLocal: (url: URL) => string | null): Promise<CrawlResult> {
  const queue = [...start];
  const seenPages = new Set<string>(start);
  const seenAssets = new Set<string>();
  const external = new Set<string>();
  const idsByPage = new Map<string, Set<string>>();
  const fragmentsWanted: { path: string; fragment: string; from: string }[] = [];
  const problems: string[] = [];

  let current = '';
  page.on('response', (response) => {
    const local = toLocal(new URL(response.url()));
    if (local !== null && response.status() >= 400) problems.push(`${local}: status ${response.status()} (loaded by ${current})`);
  });
  page.on('requestfailed', (failed) => {
    const local = toLocal(new URL(failed.url()));
    // Leaving a page aborts what it still loads (the favicon): not a broken link. Links are fetched on their own below.
    if (local !== null && failed.failure()?.errorText !== 'net::ERR_ABORTED')
      problems.push(`${local}: request failed (${failed.failure()?.errorText ?? 'unknown'}) (loaded by ${current})`);
  });

  while (queue.length > 0) {
    const path = queue.shift()!;
    current = path;
    const response = await page.goto(path, { waitUntil: 'load' });
    if (response === null || response.status() !== 200) {
      problems.push(`${path}: expected status 200, got ${response?.status() ?? 'no response'}`);
      continue;
    }
    const found: Found = await page.evaluate(() => {
      const values: string[] = [];
      const push = (value: string | null) => {
        if (value !== null && value.trim() !== '') values.push(value.trim());
      };
      for (const el of document.querySelectorAll('a[href], link[href], area[href]')) push(el.getAttribute('href'));
      for (const el of document.querySelectorAll('script[src], img[src], iframe[src], video[src], audio[src], source[src], track[src]'))
        push(el.getAttribute('src'));
      for (const el of document.querySelectorAll('img[srcset], source[srcset]')) {
        for (const candidate of (el.getAttribute('srcset') ?? '').split(',')) push(candidate.trim().split(/\s+/)[0] ?? null);
      }
      for (const el of document.querySelectorAll('meta[property="og:url"], meta[property="og:image"]')) push(el.getAttribute('content'));
      return { links: values, ids: [...document.querySelectorAll('[id]')].map((el) => el.id) };
    });
    idsByPage.set(path, new Set(found.ids));

    for (const raw of found.links) {
      const url = new URL(raw, page.url());
      if (!['http:', 'https:'].includes(url.protocol)) continue;
      const local = toLocal(url);
      if (local === null) {
        external.add(url.href);
        continue;
      }
      const target = local.split('#')[0]!;
      if (url.hash.length > 1) fragmentsWanted.push({ path: target, fragment: decodeURIComponent(url.hash.slice(1)), from: path });
      if (PAGE_PATH.test(target)) {
        if (!seenPages.has(target)) {
          seenPages.add(target);
          queue.push(target);
        }
      } else if (!seenAssets.has(target)) {
        seenAssets.add(target);
        const asset = await request.get(target);
        if (asset.status() !== 200) problems.push(`${target}: status ${asset.status()} (linked from ${path})`);
      }
    }
  }

  for (const { path, fragment, from } of fragmentsWanted) {
    const ids = idsByPage.get(path);
    if (ids && !ids.has(fragment)) problems.push(`${path}#${fragment}: no element with that id (linked from ${from})`);
  }
  return { pages: [...seenPages].sort(), assets: [...seenAssets].sort(), externalLinks: [...external].sort(), problems };
}
