// The text a reader sees in a piece of rendered HTML, as the browser would
// decode it, each run with the elements it sits in. Not a full HTML parser:
// enough for HTML the build writes itself (Astro's and shiki's output). Pure.

export interface HtmlElement {
  name: string;
  attributes: ReadonlyMap<string, string>;
}

export interface TextRun {
  /** Decoded: `&#51;` is "3". */
  text: string;
  /** Offset in the HTML where the run (or the attribute value) starts. */
  offset: number;
  /** The open elements around it, outermost first (for an attribute value: its element last). */
  ancestors: readonly HtmlElement[];
  /** The attribute this text is the value of; undefined for element content. */
  attribute?: string;
}

/** Elements whose content is no text for the reader. */
const RAW_TEXT = new Set(['script', 'style', 'template']);
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

/**
 * The named references that stand for a numeral (the rest stand for letters,
 * punctuation or spaces). An unknown name is decoded to itself.
 */
const NUMERAL_ENTITIES: Record<string, string> = {
  sup1: '¹',
  sup2: '²',
  sup3: '³',
  frac12: '½',
  frac13: '⅓',
  frac14: '¼',
  frac15: '⅕',
  frac16: '⅙',
  frac18: '⅛',
  frac23: '⅔',
  frac25: '⅖',
  frac34: '¾',
  frac35: '⅗',
  frac38: '⅜',
  frac45: '⅘',
  frac56: '⅚',
  frac58: '⅝',
  frac78: '⅞',
};
const TEXT_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', ...NUMERAL_ENTITIES };

/** Character references decoded as a browser does, for what the checks need: numeric ones, the escapes, the numerals. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    /&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([A-Za-z][A-Za-z0-9]*));/g,
    (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name !== undefined) return TEXT_ENTITIES[name] ?? whole;
      const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    },
  );
}

const TAG_NAME = /[A-Za-z][A-Za-z0-9:-]*/y;
const ATTRIBUTE = /\s*([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/y;

/** The opening or closing tag at `at` (a `<`), or null when the `<` is text. */
function readTag(
  html: string,
  at: number,
): { name: string; closing: boolean; selfClosing: boolean; attributes: Map<string, string>; attributeOffsets: Map<string, number>; end: number } | null {
  let i = at + 1;
  const closing = html[i] === '/';
  if (closing) i++;
  TAG_NAME.lastIndex = i;
  const name = TAG_NAME.exec(html)?.[0];
  if (!name) return null;
  i += name.length;
  const attributes = new Map<string, string>();
  const attributeOffsets = new Map<string, number>();
  for (;;) {
    ATTRIBUTE.lastIndex = i;
    const m = ATTRIBUTE.exec(html);
    if (!m) break;
    const raw = m[2] ?? m[3] ?? m[4];
    attributes.set(m[1]!.toLowerCase(), raw === undefined ? '' : decodeEntities(raw));
    if (raw !== undefined) attributeOffsets.set(m[1]!.toLowerCase(), m.index + m[0].length - raw.length - (m[4] === undefined ? 1 : 0));
    i = m.index + m[0].length;
  }
  while (i < html.length && /\s/.test(html[i]!)) i++;
  const selfClosing = html[i] === '/';
  if (selfClosing) i++;
  if (html[i] !== '>') return null;
  return { name: name.toLowerCase(), closing, selfClosing, attributes, attributeOffsets, end: i + 1 };
}

/**
 * Every run of text in `html` with its ancestors, and every attribute value
 * named in `readerAttributes` (a tooltip, alt text, an accessible name) as a
 * run of its own. Comments and the content of script, style and template are no text.
 */
export function htmlTextRuns(html: string, readerAttributes: ReadonlySet<string> = new Set()): TextRun[] {
  const runs: TextRun[] = [];
  const stack: HtmlElement[] = [];
  let textFrom = 0;
  const flush = (to: number) => {
    if (to > textFrom) runs.push({ text: decodeEntities(html.slice(textFrom, to)), offset: textFrom, ancestors: [...stack] });
  };
  let at = html.indexOf('<');
  while (at >= 0) {
    if (html.startsWith('<!--', at)) {
      flush(at);
      const end = html.indexOf('-->', at + 4);
      textFrom = end < 0 ? html.length : end + 3;
      at = html.indexOf('<', textFrom);
      continue;
    }
    if (html.startsWith('<!', at)) {
      flush(at);
      textFrom = html.indexOf('>', at) + 1 || html.length;
      at = html.indexOf('<', textFrom);
      continue;
    }
    const tag = readTag(html, at);
    if (!tag) {
      at = html.indexOf('<', at + 1);
      continue;
    }
    flush(at);
    textFrom = tag.end;
    if (tag.closing) {
      const open = stack.map((e) => e.name).lastIndexOf(tag.name);
      if (open >= 0) stack.length = open;
    } else {
      const element: HtmlElement = { name: tag.name, attributes: tag.attributes };
      for (const [name, value] of tag.attributes) {
        if (readerAttributes.has(name) && value)
          runs.push({ text: value, offset: tag.attributeOffsets.get(name) ?? at, ancestors: [...stack, element], attribute: name });
      }
      if (RAW_TEXT.has(tag.name) && !tag.selfClosing) {
        const close = html.toLowerCase().indexOf(`</${tag.name}`, tag.end);
        textFrom = close < 0 ? html.length : close;
      } else if (!tag.selfClosing && !VOID.has(tag.name)) {
        stack.push(element);
      }
    }
    at = html.indexOf('<', textFrom);
  }
  flush(html.length);
  return runs;
}
