// "No JavaScript is needed to read the article": every piece of prose the
// author wrote in the MDX must be visible in the HTML as served, before any
// script runs (scripts, templates and `hidden` elements do not count). Pure.
import { scanMdx } from '../src/evidence/mdx-scan.ts';
import { decodeEntities } from './page-weight.ts';

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
/** Elements whose body is not rendered text. */
const RAW = new Set(['script', 'style', 'template']);

/**
 * The text a reader sees with scripts off: tags removed, entities decoded,
 * nothing from script/style/template bodies or from elements marked `hidden`.
 * (CSS can hide things too; the site's stylesheet is not evaluated here.)
 */
export function visibleText(html: string): string {
  const source = html.replace(/<!--[\s\S]*?-->/g, '');
  const stack: Array<{ name: string; hidden: boolean }> = [];
  const hidden = () => stack.some((e) => e.hidden);
  let text = '';
  let pos = 0;
  const tag = /<(\/?)([A-Za-z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
  for (let m = tag.exec(source); m; m = tag.exec(source)) {
    if (!hidden()) text += decodeEntities(source.slice(pos, m.index));
    pos = m.index + m[0].length;
    const name = m[2]!.toLowerCase();
    if (m[1]) {
      const at = stack.map((e) => e.name).lastIndexOf(name);
      if (at >= 0) stack.length = at;
      text += ' ';
      continue;
    }
    if (RAW.has(name)) {
      const close = source.toLowerCase().indexOf(`</${name}`, pos);
      const end = close < 0 ? source.length : source.indexOf('>', close) + 1;
      pos = end;
      tag.lastIndex = end;
      continue;
    }
    text += ' ';
    const selfClosing = m[3]!.trimEnd().endsWith('/');
    if (VOID.has(name) || selfClosing) continue;
    stack.push({ name, hidden: /(?:^|\s)hidden(?:\s*=|\s|\/|$)/i.test(m[3]!) });
  }
  if (!hidden()) text += decodeEntities(source.slice(pos));
  return text;
}

/** The same text however it was typed or typeset: quotes, dashes, ellipses and whitespace. */
export function normalizeForMatch(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[\u201c\u201d\u201e\u00ab\u00bb]/g, '"')
    .replace(/[\u2018\u2019\u201a]/g, "'")
    .replace(/\.\.\./g, '\u2026')
    .replace(/[\u2013\u2014]|-{2,3}/g, '-')
    .replace(/\s+/g, '');
}

/** Markdown syntax around prose that is not itself shown. */
function stripMarkdown(line: string): string {
  return line
    .replace(/^\s*#{1,6}\s+/, '')
    .replace(/^\s*(?:>\s*)+/, '')
    .replace(/^\s*[-*+]\s+/, '')
    .replace(/\\(.)/g, '$1')
    .replace(/`+/g, '')
    .replace(/\*+|__|~~/g, '')
    .replace(/[[\]]/g, '');
}

/**
 * A JavaScript string literal written as an MDX expression (`{"{\n  "}`, the way
 * MDX puts braces and newlines into a <pre>) is text on the page: its value.
 */
function expandStringExpressions(text: string): string {
  return text.replace(/\{\s*("(?:[^"\\\n]|\\.)*")\s*\}/g, (whole, literal: string) => {
    try {
      return JSON.parse(literal) as string;
    } catch {
      return whole;
    }
  });
}

/**
 * The author's prose out of an MDX file, in pieces that must each appear in the
 * page: text between components and tags, one line at a time. Pieces without
 * at least two letters (a lone "/" between two facts) say nothing and are left out.
 */
export function proseFragments(mdx: string): string[] {
  const scan = scanMdx(mdx);
  const fragments: string[] = [];
  for (const span of scan.prose) {
    for (const line of expandStringExpressions(mdx.slice(span.start, span.end)).split('\n')) {
      const text = stripMarkdown(line).trim();
      if ((text.match(/\p{L}/gu) ?? []).length >= 2) fragments.push(text);
    }
  }
  return fragments;
}

/** The fragments that the visible text does not contain. */
export function missingFragments(fragments: readonly string[], visible: string): string[] {
  const haystack = normalizeForMatch(visible);
  return fragments.filter((f) => !haystack.includes(normalizeForMatch(f)));
}
