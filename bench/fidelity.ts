// Are the two variants the same page? The binding ratio only means something
// if the plain build shows the reader the same text as the evidence build,
// without the bound elements. Pure.
import { findElements, hasClass, parseHtml, textContent, type HtmlNode } from './plain/html-tree.ts';
import { normalizeForMatch } from './readable-text.ts';

export interface ArticleSummary {
  /** The article body's text, whitespace and typography normalized. */
  text: string;
  /** Elements carrying data-fact: the evidence variant's bound values. */
  boundValues: number;
}

/** Scripts, styles, and the link the evidence page adds to each heading (interface, not text). */
function withoutRaw(nodes: readonly HtmlNode[]): HtmlNode[] {
  return nodes
    .filter((n) => n.type === 'text' || (n.name !== 'script' && n.name !== 'style' && !(n.name === 'a' && hasClass(n, 'heading-anchor'))))
    .map((n) => (n.type === 'text' ? n : { ...n, children: withoutRaw(n.children) }));
}

export function summarizeArticle(page: string, html: string): ArticleSummary {
  const article = findElements(parseHtml(html), (e) => e.name === 'article' && hasClass(e, 'article-body'))[0];
  if (!article) throw new Error(`${page}: expected an <article class="article-body"> element`);
  return {
    text: normalizeForMatch(textContent(withoutRaw(article.children))),
    boundValues: findElements(article.children, (e) => e.attributes.some((a) => a.name === 'data-fact')).length,
  };
}

/** null when both say the same; else where they part, with some context. */
export function firstDifference(a: string, b: string, context = 40): string | null {
  if (a === b) return null;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - context);
  return `at character ${i}: "${a.slice(from, i + context)}" vs "${b.slice(from, i + context)}"`;
}
