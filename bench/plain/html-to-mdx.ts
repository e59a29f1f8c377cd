// Rendered HTML written back as static MDX that renders to the same markup:
// elements as JSX, text as text, highlighted code blocks as fenced code (so
// the plain build highlights them again, as the evidence build does), bound
// values (span[data-fact]) as their bare value, and any other bound element
// (an SVG <tspan>) without the binding's attributes. Pure.
import { attribute, textContent, VOID_ELEMENTS, type HtmlElement, type HtmlNode } from './html-tree.ts';
import { codeFence, mdxAttribute, mdxText } from './mdx-text.ts';

/** Elements that start a block: they go on lines of their own in MDX. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'details',
  'dialog',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'caption',
  'colgroup',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'ul',
  'menu',
]);
/** Attributes the bench itself put in the probe page. */
export const BENCH_ATTRIBUTE_PREFIX = 'data-bench-';

export interface HtmlToMdx {
  /** MDX for an element that stands for an author's MDX (a component's children); undefined for any other element. */
  slot(element: HtmlElement, flow: boolean): string | undefined;
  /** Code blocks as static <pre> text instead of fenced code: a baseline without highlighting. */
  staticCode?: boolean;
}

/**
 * The binding contract's attributes on a bound value's element (src/article/render/fact-html.ts,
 * and packet-path.ts's <tspan> inside SVG). A value typed into a page by hand has none.
 */
export const BINDING_ATTRIBUTES = new Set([
  'data-fact',
  'data-step',
  'data-raw',
  'data-declared',
  'data-unmeasured',
  'data-environment',
  'data-variant',
  'data-run',
]);

const isFact = (node: HtmlNode) => node.type === 'element' && node.name === 'span' && attribute(node, 'data-fact') !== undefined;
const isRaw = (node: HtmlNode) => node.type === 'element' && (node.name === 'script' || node.name === 'style');

/** A bound value kept as an element (one not a span, e.g. an SVG <tspan>, whose element the drawing needs) keeps it without the binding. */
function openTag(element: HtmlElement, selfClose = false): string {
  const bound = attribute(element, 'data-fact') !== undefined;
  const attrs = element.attributes
    .filter((a) => !a.name.startsWith(BENCH_ATTRIBUTE_PREFIX) && !(bound && BINDING_ATTRIBUTES.has(a.name)))
    .map((a) => (a.value === null ? ` ${a.name}` : ` ${mdxAttribute(a.name, a.value)}`))
    .join('');
  return `<${element.name}${attrs}${selfClose ? ' />' : '>'}`;
}

/** A script or style body, unchanged: Astro's set:html writes it as is. */
function rawElement(element: HtmlElement): string {
  const body = textContent(element.children);
  return `${openTag(element).slice(0, -1)} set:html={${JSON.stringify(body)}}></${element.name}>`;
}

function codeBlock(element: HtmlElement, context: HtmlToMdx): string {
  const lang = attribute(element, 'data-language') ?? 'text';
  const code = textContent(element.children);
  if (context.staticCode) return `<pre class="astro-code" ${mdxAttribute('data-language', lang)}><code>{${JSON.stringify(code)}}</code></pre>`;
  return codeFence(lang === 'plaintext' ? 'text' : lang, code);
}

/**
 * Nodes inside a line. `atLineStart`: the first text starts a line of prose;
 * `textAsExpression`: the line has no element around it, where plain text
 * would become a paragraph of its own.
 */
export function inlineMdx(nodes: readonly HtmlNode[], context: HtmlToMdx, atLineStart = false, textAsExpression = false): string {
  let out = '';
  let run = '';
  const flushText = () => {
    if (run) out += textAsExpression ? `{${JSON.stringify(run)}}` : mdxText(run, atLineStart && out === '');
    run = '';
  };
  for (const node of nodes) {
    if (node.type === 'text') {
      run += node.text;
      continue;
    }
    if (isFact(node)) {
      run += textContent(node.children);
      continue;
    }
    flushText();
    const slot = context.slot(node, false);
    if (slot !== undefined) out += slot;
    else if (isRaw(node)) out += rawElement(node);
    else if (VOID_ELEMENTS.has(node.name)) out += openTag(node, true);
    else out += `${openTag(node)}${inlineMdx(node.children, context)}</${node.name}>`;
  }
  flushText();
  return out;
}

const startsBlock = (node: HtmlNode, context: HtmlToMdx) =>
  node.type === 'element' && (BLOCK.has(node.name) || isRaw(node) || context.slot(node, true) !== undefined);

function elementMdx(element: HtmlElement, context: HtmlToMdx): string {
  if (element.name === 'pre') return codeBlock(element, context);
  if (isRaw(element)) return rawElement(element);
  if (VOID_ELEMENTS.has(element.name)) return openTag(element, true);
  if (element.children.some((c) => startsBlock(c, context))) {
    return `${openTag(element)}\n${flowMdx(element.children, context)}\n</${element.name}>`;
  }
  return `${openTag(element)}${inlineMdx(element.children, context)}</${element.name}>`;
}

/** Nodes as blocks: one line per block element, fenced code for code, inline runs on lines of their own. */
export function flowMdx(nodes: readonly HtmlNode[], context: HtmlToMdx): string {
  const lines: string[] = [];
  let group: HtmlNode[] = [];
  const flush = () => {
    if (group.some((n) => n.type === 'element' || n.text.trim() !== '')) {
      const trimmed = trimWhitespaceEnds(group);
      lines.push(inlineMdx(trimmed, context, true, true));
    }
    group = [];
  };
  for (const node of nodes) {
    if (!startsBlock(node, context)) {
      group.push(node);
      continue;
    }
    flush();
    const element = node as HtmlElement;
    const slot = context.slot(element, true);
    if (slot !== undefined) lines.push('', slot.trim(), '');
    else lines.push(elementMdx(element, context));
  }
  flush();
  return lines.join('\n').replace(/\n{3,}/g, '\n\n');
}

/** Whitespace at the ends of an inline run between blocks is layout, not content. */
function trimWhitespaceEnds(nodes: readonly HtmlNode[]): HtmlNode[] {
  const copy = [...nodes];
  while (copy[0]?.type === 'text' && copy[0].text.trim() === '') copy.shift();
  while (copy.at(-1)?.type === 'text' && (copy.at(-1) as { text: string }).text.trim() === '') copy.pop();
  if (copy[0]?.type === 'text') copy[0] = { type: 'text', text: copy[0].text.trimStart() };
  const last = copy.at(-1);
  if (last?.type === 'text') copy[copy.length - 1] = { type: 'text', text: last.text.trimEnd() };
  return copy;
}
