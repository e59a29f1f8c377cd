// Each Chinese evidence page's Open Graph card (src/components/site/og-image.ts), beside it.
import type { APIRoute } from 'astro';
import { evidencePaths, type EvidencePageProps } from '../../../components/site/articles.ts';
import { evidenceOgImagePng } from '../../../components/site/og-image.ts';

export const getStaticPaths = () => evidencePaths('zh');

export const GET: APIRoute<EvidencePageProps> = ({ props }) => new Response(evidenceOgImagePng(props.edition), { headers: { 'Content-Type': 'image/png' } });
