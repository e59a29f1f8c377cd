// A small lexer for what the binding checks need from an MDX file: its JSX
// tags (name, attributes, position) and its prose. Frontmatter, fenced code,
// import/export blocks, comments, link destinations, entities and ordered-list
// markers are not prose. It does not build a tree: mdx-check pairs the tags.

export interface MdxAttribute {
  name: string;
  /** The string value, the expression's source, or undefined for a bare attribute. */
  value: string | undefined;
  kind: 'string' | 'expression' | 'boolean' | 'spread';
}

export interface MdxTag {
  /** '' for a fragment. */
  name: string;
  closing: boolean;
  selfClosing: boolean;
  attributes: MdxAttribute[];
  /** Offsets in the source: from '<' to just after '>'. */
  start: number;
  end: number;
}

export interface MdxSpan {
  start: number;
  end: number;
}

export interface MdxScan {
  tags: MdxTag[];
  /** Prose, in source order; inline code counts as prose (it is rendered). */
  prose: MdxSpan[];
  /** 1-based line and column of an offset. */
  position(offset: number): { line: number; column: number };
}

const NAME = /[A-Za-z][\w.:-]*/y;
const ATTRIBUTE_NAME = /[A-Za-z_:][\w:.-]*/y;
const FENCE = /^\s*(`{3,}|~{3,})/;
const ENTITY = /&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/y;
/** An ordered-list marker at a line start (sticky: tried at the offset, never past its line). */
const LIST_MARKER = /[ \t]*\d+[.)](?=[ \t])/y;
/** Where the lexer has something to look at: a character that may start markup, or the end of a line. */
const INTERESTING = /[\\`<{\]&\n]/g;

/** The offset just after the `}` that closes the `{` at `open`, skipping strings; -1 when unbalanced. */
export function matchBrace(source: string, open: number, limit = source.length): number {
  let depth = 0;
  for (let i = open; i < limit; i++) {
    const c = source[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < limit && source[i] !== c; i++) if (source[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

function skipSpace(source: string, i: number): number {
  while (i < source.length && /\s/.test(source[i]!)) i++;
  return i;
}

function matchAt(re: RegExp, source: string, i: number): string | undefined {
  re.lastIndex = i;
  return re.exec(source)?.[0];
}

/** The JSX tag starting at `start` ('<'), or undefined when the '<' is just text. */
export function parseTag(source: string, start: number, limit = source.length): MdxTag | undefined {
  let i = start + 1;
  const closing = source[i] === '/';
  if (closing) i++;
  const name = matchAt(NAME, source, i) ?? '';
  if (!name && source[i] !== '>') return undefined;
  i += name.length;
  const attributes: MdxAttribute[] = [];
  for (;;) {
    i = skipSpace(source, i);
    if (i >= limit) return undefined;
    if (source.startsWith('/>', i)) return { name, closing, selfClosing: true, attributes, start, end: i + 2 };
    if (source[i] === '>') return { name, closing, selfClosing: false, attributes, start, end: i + 1 };
    if (closing) return undefined;
    if (source[i] === '{') {
      const end = matchBrace(source, i, limit);
      if (end < 0) return undefined;
      attributes.push({ name: '...', value: source.slice(i + 1, end - 1), kind: 'spread' });
      i = end;
      continue;
    }
    const attribute = matchAt(ATTRIBUTE_NAME, source, i);
    if (!attribute) return undefined;
    i = skipSpace(source, i + attribute.length);
    if (source[i] !== '=') {
      attributes.push({ name: attribute, value: undefined, kind: 'boolean' });
      continue;
    }
    i = skipSpace(source, i + 1);
    const quote = source[i];
    if (quote === '"' || quote === "'") {
      const close = source.indexOf(quote, i + 1);
      if (close < 0 || close >= limit) return undefined;
      attributes.push({ name: attribute, value: source.slice(i + 1, close), kind: 'string' });
      i = close + 1;
    } else if (quote === '{') {
      const end = matchBrace(source, i, limit);
      if (end < 0) return undefined;
      attributes.push({ name: attribute, value: source.slice(i + 1, end - 1), kind: 'expression' });
      i = end;
    } else {
      return undefined;
    }
  }
}

/** Line-level regions that are not prose: frontmatter, fenced code, import/export blocks. */
function blockRegions(lines: string[]): boolean[] {
  const excluded = lines.map(() => false);
  let i = 0;
  if (lines[0]?.trim() === '---') {
    const close = lines.findIndex((l, n) => n > 0 && l.trim() === '---');
    const last = close < 0 ? lines.length - 1 : close;
    for (; i <= last; i++) excluded[i] = true;
  }
  let fence: string | undefined;
  let esm = false;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      excluded[i] = true;
      const m = FENCE.exec(line);
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = undefined;
    } else if (esm) {
      excluded[i] = true;
      if (line.trim() === '') esm = false;
    } else if (FENCE.test(line)) {
      fence = FENCE.exec(line)![1];
      excluded[i] = true;
    } else if (/^(?:import|export)\b/.test(line)) {
      esm = true;
      excluded[i] = true;
    }
  }
  return excluded;
}

/**
 * The first offset from `from` on where the lexer could do anything but step
 * over a character: a character that may start markup, or a line's start (a
 * list marker); `limit` when there is none before it.
 */
function nextInteresting(source: string, from: number, limit: number): number {
  if (from >= limit || source[from - 1] === '\n') return Math.min(from, limit);
  INTERESTING.lastIndex = from;
  const match = INTERESTING.exec(source);
  if (!match) return limit;
  const at = match[0] === '\n' ? match.index + 1 : match.index;
  return Math.min(at, limit);
}

export function scanMdx(source: string): MdxScan {
  const lines = source.split('\n');
  const starts: number[] = [];
  lines.reduce((offset, line) => (starts.push(offset), offset + line.length + 1), 0);
  const excluded = blockRegions(lines);

  const tags: MdxTag[] = [];
  const prose: MdxSpan[] = [];
  const addProse = (start: number, end: number) => {
    if (end > start) prose.push({ start, end });
  };

  // Contiguous lines that are not excluded form one region; tags may span its lines.
  for (let first = 0; first < lines.length; first++) {
    if (excluded[first]) continue;
    let last = first;
    while (last + 1 < lines.length && !excluded[last + 1]) last++;
    const regionStart = starts[first]!;
    const regionEnd = starts[last]! + lines[last]!.length;
    let textStart = regionStart;
    let pos = regionStart;
    const skip = (from: number, to: number) => {
      addProse(textStart, from);
      pos = to;
      textStart = to;
    };
    while (pos < regionEnd) {
      const c = source[pos]!;
      const atLineStart = pos === regionStart || source[pos - 1] === '\n';
      if (atLineStart) {
        LIST_MARKER.lastIndex = pos;
        const marker = LIST_MARKER.exec(source);
        if (marker) {
          skip(pos, pos + marker[0].length);
          continue;
        }
      }
      if (c === '\\') {
        pos += 2;
      } else if (c === '`') {
        const run = /`+/y;
        run.lastIndex = pos;
        const ticks = run.exec(source)![0];
        const close = source.indexOf(ticks, pos + ticks.length);
        // Inline code is prose (it is rendered), but no tag starts inside it.
        pos = close >= 0 && close < regionEnd ? close + ticks.length : pos + ticks.length;
      } else if (source.startsWith('<!--', pos)) {
        const close = source.indexOf('-->', pos + 4);
        skip(pos, close < 0 || close >= regionEnd ? regionEnd : close + 3);
      } else if (source.startsWith('{/*', pos)) {
        const close = source.indexOf('*/}', pos + 3);
        skip(pos, close < 0 || close >= regionEnd ? regionEnd : close + 3);
      } else if (c === '<' && /[A-Za-z/>]/.test(source[pos + 1] ?? '')) {
        const tag = parseTag(source, pos, regionEnd);
        if (tag) {
          tags.push(tag);
          skip(pos, tag.end);
        } else {
          pos++;
        }
      } else if (c === ']' && source[pos + 1] === '(') {
        // A link's destination is not rendered text.
        let depth = 0;
        let close = pos + 1;
        for (; close < regionEnd; close++) {
          if (source[close] === '(') depth++;
          else if (source[close] === ')' && --depth === 0) break;
        }
        skip(pos + 1, Math.min(close + 1, regionEnd));
      } else if (c === '&' && matchAt(ENTITY, source, pos)) {
        skip(pos, pos + matchAt(ENTITY, source, pos)!.length);
      } else {
        pos = nextInteresting(source, pos + 1, regionEnd);
      }
    }
    addProse(textStart, regionEnd);
    first = last;
  }

  const position = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
  return { tags, prose, position };
}
