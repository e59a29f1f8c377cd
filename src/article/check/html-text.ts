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

/** The opening or closing tag at `at` (a `<`), or null when the `<` is text; offsets only of the attributes in `offsetsOf`. */
function readTag(
  html: string,
  at: number,
  offsetsOf: ReadonlySet<string>,
): { name: string; closing: boolean; selfClosing: boolean; attributes: Map<string, string>; attributeOffsets: Map<string, number> | null; end: number } | null {
  let i = at + 1;
  const closing = html.charCodeAt(i) === 47; // '/'
  if (closing) i++;
  TAG_NAME.lastIndex = i;
  const name = TAG_NAME.exec(html)?.[0];
  if (!name) return null;
  i += name.length;
  const attributes = new Map<string, string>();
  let attributeOffsets: Map<string, number> | null = null;
  for (;;) {
    ATTRIBUTE.lastIndex = i;
    const m = ATTRIBUTE.exec(html);
    if (!m) break;
    const raw = m[2] ?? m[3] ?? m[4];
    const key = m[1]!.toLowerCase();
    attributes.set(key, raw === undefined ? '' : decodeEntities(raw));
    if (raw !== undefined && offsetsOf.has(key)) (attributeOffsets ??= new Map()).set(key, m.index + m[0].length - raw.length - (m[4] === undefined ? 1 : 0));
    i = m.index + m[0].length;
  }
  while (i < html.length && isSpace(html.charCodeAt(i))) i++;
  const selfClosing = html.charCodeAt(i) === 47;
  if (selfClosing) i++;
  if (html.charCodeAt(i) !== 62) return null; // '>'
  return { name: name.toLowerCase(), closing, selfClosing, attributes, attributeOffsets, end: i + 1 };
}

/** What /\s/ matches among the characters a tag can hold before its `>`. */
const isSpace = (c: number) =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0xfeff ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000;

/** Where a raw-text element (`script`, `style`, `template`) closes, whatever the case of its end tag. */
const RAW_TEXT_END = new Map([...RAW_TEXT].map((name) => [name, new RegExp(`</${name}`, 'gi')]));

/**
 * Every run of text in `html` with its ancestors, and every attribute value
 * named in `readerAttributes` (a tooltip, alt text, an accessible name) as a
 * run of its own. Comments and the content of script, style and template are no text.
 */
export function htmlTextRuns(html: string, readerAttributes: ReadonlySet<string> = new Set()): TextRun[] {
  const runs: TextRun[] = [];
  const stack: HtmlElement[] = [];
  // The open elements as one array, shared by every run until the stack changes (a page has thousands of runs).
  let ancestors: readonly HtmlElement[] | null = null;
  let textFrom = 0;
  const flush = (to: number) => {
    if (to > textFrom) runs.push({ text: decodeEntities(html.slice(textFrom, to)), offset: textFrom, ancestors: (ancestors ??= [...stack]) });
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
    const tag = readTag(html, at, readerAttributes);
    if (!tag) {
      at = html.indexOf('<', at + 1);
      continue;
    }
    flush(at);
    textFrom = tag.end;
    if (tag.closing) {
      let open = stack.length - 1;
      while (open >= 0 && stack[open]!.name !== tag.name) open--;
      if (open >= 0) {
        stack.length = open;
        ancestors = null;
      }
    } else {
      const element: HtmlElement = { name: tag.name, attributes: tag.attributes };
      if (tag.attributeOffsets !== null)
        for (const [name, value] of tag.attributes) {
          if (readerAttributes.has(name) && value)
            runs.push({ text: value, offset: tag.attributeOffsets.get(name) ?? at, ancestors: [...stack, element], attribute: name });
        }
      const rawEnd = tag.selfClosing ? undefined : RAW_TEXT_END.get(tag.name);
      if (rawEnd !== undefined) {
        rawEnd.lastIndex = tag.end;
        const close = rawEnd.exec(html);
        textFrom = close === null ? html.length : close.index;
      } else if (!tag.selfClosing && !VOID.has(tag.name)) {
        stack.push(element);
        ancestors = null;
      }
    }
    at = html.indexOf('<', textFrom);
  }
  flush(html.length);
  return runs;
}
