// The plain variant of an article, in two passes that know nothing about any
// particular component:
//   1. probeMdx marks every component occurrence (and where its children go)
//      so that one evidence build of the article shows what each rendered to;
//   2. plainMdx puts that rendered markup back into the author's MDX as static
//      markup: <Fact> becomes its value, <Measured>, <Walkthrough />, <Claim>
//      and the rest become the HTML they produced, with code blocks as fenced
//      code and the author's own prose inside them left as it was written.
// What ArticleBody draws around the MDX (e.g. the run badge) is carried too.
// Pure: the probe page's HTML comes in as a string.
import { childrenRange, componentTree, rewriteComponents, startsLine, type ComponentNode } from './component-tree.ts';
import { attribute, findElements, hasClass, parseHtml, type HtmlElement, type HtmlNode } from './html-tree.ts';
import { flowMdx, inlineMdx, type HtmlToMdx } from './html-to-mdx.ts';

export const BLOCK_MARK = 'data-bench-block';
export const SLOT_MARK = 'data-bench-slot';
export const CONTENT_MARK = 'data-bench-content';

export function splitFrontmatter(file: string, mdx: string): { frontmatter: string; bodyStart: number } {
  const match = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(mdx);
  if (!match) throw new Error(`${file}: expected a frontmatter block between --- lines at the top`);
  return { frontmatter: match[0], bodyStart: match[0].length };
}

function assertNoEsm(file: string, body: string): void {
  const line = body.split('\n').findIndex((l) => /^(?:import|export)\s/.test(l));
  if (line >= 0) throw new Error(`${file}: an import/export line in the body; the plain variant supports components passed by ArticleBody only`);
}

/** The article's MDX with every component wrapped in a marker element, and the whole body in one more. */
export function probeMdx(file: string, source: string): string {
  const { frontmatter, bodyStart } = splitFrontmatter(file, source);
  assertNoEsm(file, source.slice(bodyStart));
  const tree = componentTree(file, source);
  const wrap = (node: ComponentNode): string => {
    const open = source.slice(node.open.start, node.open.end);
    const range = childrenRange(node);
    const children = range ? rewriteComponents(source, range.start, range.end, node.children, wrap) : null;
    const close = node.close ? source.slice(node.close.start, node.close.end) : '';
    if (node.flow) {
      const slot = children === null ? '' : `\n<div ${SLOT_MARK}="${node.index}">\n\n${children.trim()}\n\n</div>\n${close}`;
      return `<div ${BLOCK_MARK}="${node.index}">\n${open}${slot}\n</div>`;
    }
    const slot = children === null ? '' : `<span ${SLOT_MARK}="${node.index}">${children}</span>${close}`;
    return `<span ${BLOCK_MARK}="${node.index}">${open}${slot}</span>`;
  };
  const body = rewriteComponents(source, bodyStart, source.length, tree, wrap);
  return `${frontmatter}\n<div ${CONTENT_MARK}="">\n\n${body.trim()}\n\n</div>\n`;
}

interface ProbePage {
  before: HtmlNode[];
  after: HtmlNode[];
  blocks: Map<number, HtmlElement>;
}

/** The probe page's article: what surrounds the MDX, and each marked component's output. */
export function readProbePage(page: string, html: string): ProbePage {
  const nodes = parseHtml(html);
  const article = findElements(nodes, (e) => e.name === 'article' && hasClass(e, 'article-body'))[0];
  if (!article) throw new Error(`${page}: expected an <article class="article-body"> element (the article body)`);
  const at = article.children.findIndex((n) => n.type === 'element' && attribute(n, CONTENT_MARK) !== undefined);
  if (at < 0) throw new Error(`${page}: expected the MDX content inside <article class="article-body"> (marker ${CONTENT_MARK} not found)`);
  const blocks = new Map<number, HtmlElement>();
  for (const element of findElements(article.children, (e) => attribute(e, BLOCK_MARK) !== undefined)) {
    blocks.set(Number(attribute(element, BLOCK_MARK)), element);
  }
  return { before: article.children.slice(0, at), after: article.children.slice(at + 1), blocks };
}

/**
 * The author's MDX with every component replaced by static markup of what it
 * rendered in the probe page. `staticCode`: code blocks as plain <pre> text
 * (no highlighting) instead of fenced code.
 */
export function plainMdx(file: string, source: string, page: string, probeHtml: string, options: { staticCode?: boolean } = {}): string {
  const { frontmatter, bodyStart } = splitFrontmatter(file, source);
  const probe = readProbePage(page, probeHtml);
  const tree = componentTree(file, source);
  const staticCode = Boolean(options.staticCode);
  const noSlots: HtmlToMdx = { slot: () => undefined, staticCode };

  const replace = (node: ComponentNode): string => {
    const block = probe.blocks.get(node.index);
    if (!block) throw new Error(`${page}: no output of <${node.name}> at ${file}:${node.at} (marker ${BLOCK_MARK}="${node.index}" not found)`);
    const range = childrenRange(node);
    const children = range ? rewriteComponents(source, range.start, range.end, node.children, replace) : '';
    const context: HtmlToMdx = {
      staticCode,
      slot: (element, flow) => {
        if (attribute(element, SLOT_MARK) !== String(node.index)) return undefined;
        return flow ? `\n${children.trim()}\n` : children;
      },
    };
    if (node.flow) return flowMdx(block.children, context);
    // Alone on a line inside a quote or list item: plain text there would become a paragraph the page did not have.
    return inlineMdx(block.children, context, startsLine(source, node.open.start), node.aloneOnLine);
  };

  const body = rewriteComponents(source, bodyStart, source.length, tree, replace);
  const around = (nodes: HtmlNode[]) => flowMdx(nodes, noSlots).trim();
  // Blank lines between the parts: a JSX block right above a paragraph would swallow it.
  return `${frontmatter}\n${[around(probe.before), body.trim(), around(probe.after)].filter((part) => part !== '').join('\n\n')}\n`;
}
