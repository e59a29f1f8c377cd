import type { APIRoute } from 'astro';
import { site } from '../site.config.ts';
import { absoluteUrl, rootFilePath } from '../i18n/urls.ts';

// Points crawlers at the sitemap on the configured origin.
export const GET: APIRoute = () =>
  new Response(`User-agent: *\nAllow: /\n\nSitemap: ${absoluteUrl(rootFilePath('sitemap-index.xml'), site.url)}\n`, {
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
