// The articles the suites exercise the machinery on. Fixed, so that npm test
// costs the same however many articles the series has: every other article is
// checked from its committed snapshots by the build suite's build (claims,
// bindings) and by the browser suite's one load per page, and re-captured by
// the capture workflow.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The three articles of the series' first round: kind and the lab, both modes, four releases, every step kind. */
export const REFERENCE_ARTICLES: readonly string[] = ['074-external-traffic-policy', '075-local-uneven-weights', '076-internal-traffic-policy'];

const ARTICLE_LINK = /<ArticleLink\s+slug="([^"]+)"/g;

/**
 * `slugs` and every article their pages link to (<ArticleLink slug>), and those pages' links in turn: the
 * articles a build of `slugs` needs, since a link to an article the site does not have fails the build.
 */
export function withLinkedArticles(root: string, slugs: readonly string[]): string[] {
  const articles = join(root, 'content/articles');
  const found = new Set<string>();
  const visit = (slug: string) => {
    if (found.has(slug)) return;
    const dir = join(articles, slug);
    if (!existsSync(dir)) throw new Error(`content/articles/${slug} does not exist`);
    found.add(slug);
    for (const file of readdirSync(dir).filter((n) => n.endsWith('.mdx')))
      for (const [, linked] of readFileSync(join(dir, file), 'utf8').matchAll(ARTICLE_LINK)) visit(linked!);
  };
  for (const slug of slugs) visit(slug);
  return [...found].sort();
}
