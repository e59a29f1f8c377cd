// A small HTML reader for pages this site's build writes (well-formed,
// quoted attributes): elements, attributes in order, text with entities
// decoded, raw script/style bodies. Comments and doctypes are dropped. Pure.
import { decodeEntities } from '../page-weight.ts';

export interface HtmlAttribute {
  name: string;
  /** null for a bare attribute (`open`, `hidden`). */
  value: string | null;
}

export interface HtmlElement {
  type: 'element';
  name: string;
  attributes: HtmlAttribute[];
  children: HtmlNode[];
}

export interface HtmlText {
  type: 'text';
  /** Decoded; for script and style, the raw body. */
  text: string;
}

export type HtmlNode = HtmlElement | HtmlText;

export const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);
const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

function parseAttributes(source: string): HtmlAttribute[] {
  const found: HtmlAttribute[] = [];
  for (const m of source.matchAll(ATTRIBUTE)) {
    const raw = m[2] ?? m[3] ?? m[4];
    found.push({ name: m[1]!.toLowerCase(), value: raw === undefined ? null : decodeEntities(raw) });
  }
  return found;
}

export function parseHtml(html: string): HtmlNode[] {
  const root: HtmlElement = { type: 'element', name: '#root', attributes: [], children: [] };
  const stack: HtmlElement[] = [root];
  const top = () => stack.at(-1)!;
  const addText = (text: string) => {
    if (!text) return;
    const last = top().children.at(-1);
    if (last?.type === 'text') last.text += text;
    else top().children.push({ type: 'text', text });
  };
  const token = /<!--[\s\S]*?-->|<!(?:[^>]*)>|<\/([A-Za-z][\w:-]*)\s*>|<([A-Za-z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
  let pos = 0;
  for (let m = token.exec(html); m; m = token.exec(html)) {
    addText(decodeEntities(html.slice(pos, m.index)));
    pos = m.index + m[0].length;
    if (m[1]) {
      const name = m[1].toLowerCase();
      const at = stack.map((e) => e.name).lastIndexOf(name);
      // A stray end tag closes nothing; a matching one closes what is still open inside it.
      if (at > 0) stack.length = at;
      continue;
    }
    if (!m[2]) continue;
    const name = m[2].toLowerCase();
    const rest = m[3] ?? '';
    const selfClosing = /\/\s*$/.test(rest);
    const element: HtmlElement = { type: 'element', name, attributes: parseAttributes(rest.replace(/\/\s*$/, '')), children: [] };
    top().children.push(element);
    if (RAW_TEXT.has(name)) {
      const close = new RegExp(`</${name}\\s*>`, 'gi');
      close.lastIndex = pos;
      const end = close.exec(html);
      const body = html.slice(pos, end ? end.index : html.length);
      if (body) element.children.push({ type: 'text', text: name === 'script' || name === 'style' ? body : decodeEntities(body) });
      pos = end ? end.index + end[0].length : html.length;
      token.lastIndex = pos;
      continue;
    }
    if (!VOID_ELEMENTS.has(name) && !selfClosing) stack.push(element);
  }
  addText(decodeEntities(html.slice(pos)));
  return root.children;
}

export function attribute(element: HtmlElement, name: string): string | null | undefined {
  const found = element.attributes.find((a) => a.name === name);
  return found === undefined ? undefined : found.value;
}

export function hasClass(element: HtmlElement, name: string): boolean {
  return (attribute(element, 'class') ?? '').split(/\s+/).includes(name);
}

export function textContent(nodes: readonly HtmlNode[]): string {
  return nodes.map((n) => (n.type === 'text' ? n.text : textContent(n.children))).join('');
}

/** Depth-first, document order. */
export function findElements(nodes: readonly HtmlNode[], test: (e: HtmlElement) => boolean): HtmlElement[] {
  const found: HtmlElement[] = [];
  const walk = (list: readonly HtmlNode[]) => {
    for (const node of list) {
      if (node.type !== 'element') continue;
      if (test(node)) found.push(node);
      walk(node.children);
    }
  };
  walk(nodes);
  return found;
}
