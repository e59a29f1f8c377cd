// The last touch on an article's rendered HTML, in one pass: a link on each
// section heading, and hyphenated names and flags kept on one line (browsers
// break "s-cluster" and "--max-time" after a hyphen). Pure: HTML in, HTML out.
// Code blocks, inline code and scripts are left as they are.
import { unbreakableRuns } from './unbreakable.ts';

function keepTokensWhole(text: string): string {
  return unbreakableRuns(text).map((r) => (r.whole ? `<span class="nobr">${r.text}</span>` : r.text)).join('');
}

/** `<h2 id="x">Title</h2>` -> the same with a trailing `#` link to itself; h2 and h3 of the prose. */
export function addHeadingAnchors(html: string, label: string): string {
  return html.replace(/<h([23]) id="([^"]+)">([^]*?)<\/h\1>/g, (_m, level: string, id: string, inner: string) =>
    `<h${level} id="${id}">${inner}<a class="heading-anchor" href="#${id}" aria-label="${label}">#</a></h${level}>`);
}

/** Opening or closing tag of an element whose text is left alone. */
const SKIPPED = /<(\/?)(pre|code|script|style|svg|textarea)\b[^>]*>/gi;

/** Hyphenated names in the text between tags, outside code, scripts and the like. */
export function keepNamesWhole(html: string): string {
  let out = '';
  let last = 0;
  let depth = 0;
  // Walk only the tags that open or close a skipped element; text in between is prose when depth is 0.
  for (const match of html.matchAll(SKIPPED)) {
    const segment = html.slice(last, match.index);
    out += depth === 0 ? wholeNamesInText(segment) : segment;
    out += match[0];
    last = match.index + match[0].length;
    if (!match[0].endsWith('/>')) depth = Math.max(0, depth + (match[1] ? -1 : 1));
  }
  const rest = html.slice(last);
  return out + (depth === 0 ? wholeNamesInText(rest) : rest);
}

/** In HTML without skipped elements: each text node holding a hyphen gets its names wrapped. */
function wholeNamesInText(html: string): string {
  if (!html.includes('-')) return html;
  // Text after a tag, or at the start of the segment (right after a skipped element closed).
  return html.replace(/(^|>)([^<]*-[^<]*)(?=<|$)/g, (_m, before: string, text: string) => `${before}${keepTokensWhole(text)}`);
}

export function polishProseHtml(html: string, anchorLabel: string): string {
  return keepNamesWhole(addHeadingAnchors(html, anchorLabel));
}
