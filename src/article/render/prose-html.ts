// The last touch on an article's rendered HTML, in one pass: a link on each
// section heading, and hyphenated names and flags kept on one line (browsers
// break "s-cluster" and "--max-time" after a hyphen). Pure: HTML in, HTML out.
// Code blocks, inline code and scripts are left as they are.
// (Written with indexOf rather than one regular expression per rule: this runs
// over every article page's whole HTML. Each function gives exactly what the
// regular expression in its comment gives; the unit tests compare them.)
import { UNBREAKABLE_TOKEN, wholeTokenHtml } from './unbreakable.ts';

/** Each name or flag in `text` wrapped to stay on one line (the runs unbreakableRuns marks whole). */
function keepTokensWhole(text: string): string {
  return text.replace(UNBREAKABLE_TOKEN, wholeTokenHtml);
}

/** A heading link's name: `label` with `{title}` as the heading's text, so that each link says which section it is. */
export function anchorLabel(label: string, headingHtml: string): string {
  return label.replace('{title}', () => headingHtml.replace(/<[^>]*>/g, '').replaceAll('"', '&quot;'));
}

/**
 * `<h2 id="x">Title</h2>` -> the same with a trailing `#` link to itself; h2 and h3 of the prose.
 * As html.replace(/<h([23]) id="([^"]+)">([^]*?)<\/h\1>/g, ...).
 */
export function addHeadingAnchors(html: string, label: string): string {
  let out = '';
  let last = 0;
  let at = html.indexOf('<h');
  while (at >= 0) {
    const level = html[at + 2];
    if ((level === '2' || level === '3') && html.startsWith(' id="', at + 3)) {
      const idStart = at + 8;
      const quote = html.indexOf('"', idStart);
      if (quote > idStart && html[quote + 1] === '>') {
        const close = html.indexOf(`</h${level}>`, quote + 2);
        if (close >= 0) {
          const id = html.slice(idStart, quote);
          const inner = html.slice(quote + 2, close);
          out += `${html.slice(last, at)}<h${level} id="${id}">${inner}<a class="heading-anchor" href="#${id}" aria-label="${anchorLabel(label, inner)}">#</a></h${level}>`;
          last = close + 5;
          at = html.indexOf('<h', last);
          continue;
        }
      }
    }
    at = html.indexOf('<h', at + 1);
  }
  return last === 0 ? html : out + html.slice(last);
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

/**
 * In HTML without skipped elements: each text node holding a hyphen gets its names wrapped.
 * As html.replace(/(^|>)([^<]*-[^<]*)(?=<|$)/g, ...): a text runs from the segment's start,
 * or from just after any `>`, to the next `<`; the first one holding a hyphen is wrapped,
 * and the search goes on from its end.
 */
function wholeNamesInText(html: string): string {
  if (!html.includes('-')) return html;
  let out = '';
  let last = 0;
  // The segment's start first (the `^` alternative), then just after each `>`.
  let start = 0;
  // The next hyphen at or after `start`, found again only once passed (so the text is searched once).
  let dash = html.indexOf('-');
  while (start <= html.length) {
    const lt = html.indexOf('<', start);
    const end = lt < 0 ? html.length : lt;
    if (dash >= 0 && dash < start) dash = html.indexOf('-', start);
    if (dash < 0) break;
    if (dash < end) {
      out += html.slice(last, start) + keepTokensWhole(html.slice(start, end));
      last = end;
      if (lt < 0) break;
      const gt = html.indexOf('>', end);
      if (gt < 0) break;
      start = gt + 1;
    } else {
      const gt = html.indexOf('>', start);
      if (gt < 0) break;
      // A `>` inside the text just tried starts a text that is a tail of it, without a hyphen either.
      start = gt + 1;
    }
  }
  return last === 0 ? html : out + html.slice(last);
}

export function polishProseHtml(html: string, anchorLabel: string): string {
  return keepNamesWhole(addHeadingAnchors(html, anchorLabel));
}
