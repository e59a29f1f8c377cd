// The Chinese home page's Open Graph card (src/components/site/og-image.ts), beside it.
import type { APIRoute } from 'astro';
import { loadEditions } from '../components/site/articles.ts';
import { homeOgImagePng } from '../components/site/og-image.ts';
import { listingFor } from '../i18n/editions.ts';

export const GET: APIRoute = async () =>
  new Response(homeOgImagePng('zh', listingFor(await loadEditions(), 'zh')), { headers: { 'Content-Type': 'image/png' } });
