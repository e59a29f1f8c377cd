// Just enough of an HTML reader for the built pages (dist/), without a browser:
// elements with their attributes and children, text with its entities decoded,
// and a few lookups. Astro writes well-formed HTML; this reader trusts that and
// is no general parser (no implied end tags beyond the void elements, no
// foreign-content rules besides raw text in script and style).

export interface Element {
  tag: string;
  attrs: Map<string, string>;
  children: Node[];
  parent: Element | null;
}
export type Node = Element | string;

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const RAW = new Set(['script', 'style']);
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') return String.fromCodePoint(name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1)));
    return NAMED[name.toLowerCase()] ?? whole;
  });
}

export function parseHtml(html: string): Element {
  const root: Element = { tag: '#root', attrs: new Map(), children: [], parent: null };
  let current = root;
  const tag =
    /<!--[\s\S]*?-->|<!doctype[^>]*>|<\/([a-zA-Z][\w:-]*)\s*>|<([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>/gi;
  let at = 0;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    if (m.index > at) current.children.push(decodeEntities(html.slice(at, m.index)));
    at = tag.lastIndex;
    if (m[1]) {
      const name = m[1].toLowerCase();
      // Close up to the matching open element (a stray end tag closes nothing).
      for (let el: Element | null = current; el && el !== root; el = el.parent)
        if (el.tag === name) {
          current = el.parent!;
          break;
        }
      continue;
    }
    if (!m[2]) continue; // a comment or the doctype
    const name = m[2].toLowerCase();
    const attrs = new Map<string, string>();
    for (const a of (m[3] ?? '').matchAll(/([^\s=>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g))
      attrs.set(a[1]!.toLowerCase(), decodeEntities(a[2] ?? a[3] ?? a[4] ?? ''));
    const el: Element = { tag: name, attrs, children: [], parent: current };
    current.children.push(el);
    if (RAW.has(name)) {
      const endTag = new RegExp(`</${name}`, 'gi');
      endTag.lastIndex = at;
      const end = endTag.exec(html);
      const stop = end === null ? html.length : end.index;
      el.children.push(html.slice(at, stop));
      at = html.indexOf('>', stop) + 1 || html.length;
      tag.lastIndex = at;
      continue;
    }
    if (!VOID.has(name) && m[4] !== '/') current = el;
  }
  if (at < html.length) current.children.push(decodeEntities(html.slice(at)));
  return root;
}

/** Every element below `root`, in document order; a page's whole list is kept, since every check walks it. */
export function elements(root: Element): Element[] {
  const kept = root.tag === '#root' ? wholePages.get(root) : undefined;
  if (kept) return kept;
  const found: Element[] = [];
  const stack: Node[] = [...root.children].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    if (typeof node === 'string') continue;
    found.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  if (root.tag === '#root') wholePages.set(root, found);
  return found;
}
const wholePages = new WeakMap<Element, Element[]>();

/** The elements below `root` with each id, in document order. */
export function byId(root: Element): Map<string, Element[]> {
  let ids = idIndexes.get(root);
  if (!ids) {
    ids = new Map();
    for (const el of elements(root)) {
      const id = el.attrs.get('id');
      if (id !== undefined) ids.set(id, [...(ids.get(id) ?? []), el]);
    }
    idIndexes.set(root, ids);
  }
  return ids;
}
const idIndexes = new WeakMap<Element, Map<string, Element[]>>();

export function textOf(node: Node): string {
  return typeof node === 'string' ? node : node.tag === 'script' || node.tag === 'style' ? '' : node.children.map(textOf).join('');
}

export const attr = (el: Element | undefined, name: string): string | null => el?.attrs.get(name) ?? null;
export const hasClass = (el: Element, name: string): boolean => (el.attrs.get('class') ?? '').split(/\s+/).includes(name);

/** The elements below `root` that `test` accepts. */
export function findAll(root: Element, test: (el: Element) => boolean): Element[] {
  return elements(root).filter(test);
}

export function closest(el: Element, test: (el: Element) => boolean): Element | null {
  for (let at: Element | null = el; at; at = at.parent) if (test(at)) return at;
  return null;
}
