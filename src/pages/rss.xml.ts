import type { APIRoute } from 'astro';
import { feedResponse } from '../components/site/feed.ts';

export const GET: APIRoute = () => feedResponse('zh');
