// The public origin the build writes into canonical URLs, hreflang, feeds and the sitemap.
import { site } from '../../../src/site.config.ts';

export const SITE_URL = site.url.replace(/\/$/, '');

export function publicUrl(path: string): string {
  return `${SITE_URL}${path}`;
}

/** '/en/x/' from 'https://shice.example/en/x/'; throws for any other origin. */
export function localPathOf(url: string): string {
  if (!url.startsWith(`${SITE_URL}/`)) throw new Error(`expected a URL on ${SITE_URL}, got "${url}"`);
  return url.slice(SITE_URL.length);
}
