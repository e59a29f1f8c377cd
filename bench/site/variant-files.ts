// The few files that make a copy of the project one variant or the other.
// Both variants build with the project's own astro.config.mjs, wrapped:
// the evidence variant checks that the evidence integration is there (else
// the bench would measure nothing), the plain variant takes it out, its
// ArticleBody renders the MDX without loading any evidence, and the pages
// around the body (header, feeds, Open Graph card) find no evidence to read.

/**
 * `probe`: the evidence components without the build checks, to see what each component renders.
 * `floor`: the plain copy whose article, evidence and record pages emit the evidence site's content as it is (floorRoute).
 */
export type Variant = 'evidence' | 'plain' | 'probe' | 'floor';

export const EVIDENCE_INTEGRATION = 'shice-evidence';
export const BENCH_CONFIG = 'astro.bench.config.mjs';

export function benchConfig(variant: Variant): string {
  const head = [
    `// Written by npm run bench (${variant} variant): the project's config, ${variant === 'evidence' ? 'checked for' : 'without'} the evidence integration.`,
    "import config from './astro.config.mjs';",
    `const EVIDENCE = ${JSON.stringify(EVIDENCE_INTEGRATION)};`,
    'const integrations = (config.integrations ?? []).flat(Infinity).filter(Boolean);',
    'const evidence = integrations.filter((i) => i.name === EVIDENCE);',
    'if (evidence.length !== 1) throw new Error(`astro.config.mjs: expected one integration named "${EVIDENCE}", found ${evidence.length}`);',
  ];
  const tail =
    variant === 'evidence' ? ['export default config;'] : ['export default { ...config, integrations: integrations.filter((i) => i.name !== EVIDENCE) };'];
  return [...head, ...tail, ''].join('\n');
}

/** Replaces src/components/evidence/ArticleBody.astro in the plain copy: the MDX, nothing bound. */
export const PLAIN_ARTICLE_BODY = `---
// Written by npm run bench (plain variant): the article's MDX with its values
// typed in; no snapshots are read and no component binds anything.
import { render, type CollectionEntry } from 'astro:content';
import type { Lang } from '../../site.config.ts';
import { articleSlug } from '../../article/evidence/entries.ts';
import '../../styles/evidence.css';

interface Props {
  entry: CollectionEntry<'articles'>;
  lang: Lang;
}

const { entry } = Astro.props;
const { Content } = await render(entry);
---
<article class="article-body" data-article={articleSlug(entry.id)} lang={entry.data.lang === 'zh' ? 'zh-CN' : 'en'}>
  <Content />
</article>
`;

export const ARTICLE_BODY_PATH = 'src/components/evidence/ArticleBody.astro';

/** The routes of the run records, per language: the plain copy replaces them with PLAIN_RECORD_ROUTE. */
export const RUN_RECORD_ROUTES = ['src/pages/[slug]/run', 'src/pages/en/[slug]/run'];
/** The routes of the evidence pages, per language. */
export const EVIDENCE_ROUTES = ['src/pages/[slug]/evidence', 'src/pages/en/[slug]/evidence'];

/** The routes of the article pages, per language. */
export const ARTICLE_ROUTES = ['src/pages/[slug]/index.astro', 'src/pages/en/[slug]/index.astro'];

/**
 * Which of an article's pages a generated site builds: every page, all but the run records, the
 * article pages alone, or none (the build still reads every article and, in the evidence site,
 * derives its evidence and judges its claims). The growth series builds each set of the same
 * copies, so that what a page of each kind adds is read as the difference between two sets
 * (growth.ts, pageKindFigures).
 */
export type PageSet = 'all' | 'no-records' | 'articles' | 'none';
export const PAGE_SETS: readonly PageSet[] = ['all', 'no-records', 'articles', 'none'];
/** The routes a page set takes out of the copy. */
export const ROUTES_LEFT_OUT: Record<PageSet, readonly string[]> = {
  all: [],
  'no-records': RUN_RECORD_ROUTES,
  articles: [...RUN_RECORD_ROUTES, ...EVIDENCE_ROUTES],
  none: [...RUN_RECORD_ROUTES, ...EVIDENCE_ROUTES, ...ARTICLE_ROUTES],
};

/** The route file under each of RUN_RECORD_ROUTES. */
export const RUN_RECORD_FILE = '[...run]/index.astro';

/** Where a floor copy keeps its pages' content: <slug>/<lang>/article.html, evidence.html, run/<run>.html (floor-pages.ts). */
export const FLOOR_PAGES_DIR = 'content/floor-pages';

export type PageKind = 'article' | 'evidence' | 'record';

/** A floor page's file under FLOOR_PAGES_DIR/<slug>/, for its language, kind and (a record) route parameter (`v1.34/lab`, none for the article's own run). */
export function floorPageFile(lang: 'zh' | 'en', kind: PageKind, run?: string): string {
  if (kind !== 'record') return `${lang}/${kind}.html`;
  return `${lang}/run/${run === undefined ? '_' : run.replaceAll('/', '~')}.html`;
}

/** Each kind's route file, per language (zh, en). */
export const FLOOR_ROUTE_FILES: Record<PageKind, readonly [string, string]> = {
  article: ['src/pages/[slug]/index.astro', 'src/pages/en/[slug]/index.astro'],
  evidence: ['src/pages/[slug]/evidence/index.astro', 'src/pages/en/[slug]/evidence/index.astro'],
  record: [`${RUN_RECORD_ROUTES[0]}/${RUN_RECORD_FILE}`, `${RUN_RECORD_ROUTES[1]}/${RUN_RECORD_FILE}`],
};

/**
 * A route of the floor copy, in place of the project's for that kind of page: each page's content
 * (FLOOR_PAGES_DIR) emitted as it is, in the site's layout, at the URL the evidence site gives it.
 * Nothing is read, derived, bound, checked or highlighted: Astro's own cost for such a page.
 */
export function floorRoute(lang: 'zh' | 'en', kind: PageKind): string {
  const file = FLOOR_ROUTE_FILES[kind][lang === 'zh' ? 0 : 1];
  const up = '../'.repeat(file.split('/').length - 2);
  const pattern = kind === 'record' ? `${lang}/run/*.html` : `${lang}/${kind}.html`;
  const params = kind === 'record' ? "{ slug, run: name === '_' ? undefined : name.replaceAll('~', '/') }" : '{ slug }';
  return `---
// Written by npm run bench (floor variant): a ${kind} page's content as the evidence site rendered it, in the layout.
import BaseLayout from '${up}layouts/BaseLayout.astro';

export function getStaticPaths() {
  const pages = import.meta.glob('/${FLOOR_PAGES_DIR}/*/${pattern}', { query: '?raw', import: 'default', eager: true });
  return Object.entries(pages).map(([file, html]) => {
    const slug = file.split('/')[3];
    const name = file.split('/').at(-1).replace(/\.html$/, '');
    return { params: ${params}, props: { html } };
  });
}

const path = Astro.url.pathname;
---
<BaseLayout lang="${lang}" title={Astro.params.slug} description="" path={path} alternates={[]} switchHref={path}>
  <Fragment set:html={Astro.props.html} />
</BaseLayout>
`;
}

/** The module every page reads an article's evidence through (its definition, its runs). */
export const REGISTRY_PATH = 'src/article/evidence/registry.ts';
/** Where the plain copy keeps the project's own registry, which its stand-in re-exports. */
export const REGISTRY_KEPT_PATH = 'src/article/evidence/registry.project.ts';

/**
 * Replaces src/article/evidence/registry.ts in the plain copy. The copy's articles are MDX
 * alone, without article.ts or snapshots; besides ArticleBody, pages read an article's
 * evidence for the header's measured day, the feeds' dates and the Open Graph card's values.
 * Here every article is one not yet measured, as a draft's is: the header says so, the feeds
 * date items by publication, and the card draws the values the plain MDX types in. Everything
 * else is the project's registry, re-exported.
 */
/** What the stand-in answers itself; anything else a page asks the registry for needs an article.ts, which a plain copy has not. */
export const PLAIN_REGISTRY_ANSWERS = ['articleEvidence'] as const;

export const PLAIN_REGISTRY = `// Written by npm run bench (plain variant): the project's registry (registry.project.ts),
// except that no article has evidence: the plain MDX carries its values typed in.
import type { ArticleEvidence } from '../../evidence/article/types.ts';

export * from './registry.project.ts';

export function articleEvidence(slug: string): ArticleEvidence {
  return { slug, unmeasured: true, facts: new Map(), skipped: [], claims: [] } as unknown as ArticleEvidence;
}
`;

/**
 * The routes that draw each article page's Open Graph card (a PNG, by resvg): taken out of every
 * generated site unless asked for. A card costs the same in every variant, is neither Astro's work
 * nor the evidence pipeline's, and at a few hundred milliseconds each would swamp every difference
 * the other figures are about; the growth phase measures it on its own (growth.ogCard).
 */
export const OG_CARD_ROUTES = ['src/pages/[slug]/og.png.ts', 'src/pages/en/[slug]/og.png.ts'];
