// Each Chinese article's Open Graph card (src/components/site/og-image.ts), beside its page.
import type { APIRoute } from 'astro';
import { articlePaths, type ArticlePageProps } from '../../components/site/articles.ts';
import { ogImagePng } from '../../components/site/og-image.ts';

export const getStaticPaths = () => articlePaths('zh');

export const GET: APIRoute<ArticlePageProps> = ({ props }) => new Response(ogImagePng(props.edition), { headers: { 'Content-Type': 'image/png' } });
