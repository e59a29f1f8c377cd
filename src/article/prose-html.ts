// The last touch on an article's rendered HTML, in one pass: a link on each
// section heading, and hyphenated names and flags kept on one line (browsers
// break "s-cluster" and "--max-time" after a hyphen). Pure: HTML in, HTML out.
// Code blocks, inline code and scripts are left as they are.
import { unbreakableRuns } from './unbreakable.ts';

const SKIP = new Set(['pre', 'code', 'script', 'style', 'svg', 'textarea']);

function keepTokensWhole(text: string): string {
  return unbreakableRuns(text).map((r) => (r.whole ? `<span class="nobr">${r.text}</span>` : r.text)).join('');
}

/** `<h2 id="x">Title</h2>` -> the same with a trailing `#` link to itself; h2 and h3 of the prose. */
export function addHeadingAnchors(html: string, label: string): string {
  return html.replace(/<h([23]) id="([^"]+)">([\s\S]*?)<\/h\1>/g, (_m, level: string, id: string, inner: string) =>
    `<h${level} id="${id}">${inner}<a class="heading-anchor" href="#${id}" aria-label="${label}">#</a></h${level}>`);
}

export function keepNamesWhole(html: string): string {
  let skipping: string | null = null;
  let depth = 0;
  return html.replace(/<[^>]*>|[^<]+/g, (part) => {
    if (part.startsWith('<')) {
      const match = /^<(\/?)([a-zA-Z][\w-]*)/.exec(part);
      if (match) {
        const [, closing, name] = match;
        const tag = name!.toLowerCase();
        if (skipping === null && !closing && SKIP.has(tag) && !part.endsWith('/>')) { skipping = tag; depth = 1; }
        else if (skipping === tag) depth += closing ? -1 : 1;
        if (skipping === tag && depth === 0) skipping = null;
      }
      return part;
    }
    return skipping === null ? keepTokensWhole(part) : part;
  });
}

export function polishProseHtml(html: string, anchorLabel: string): string {
  return keepNamesWhole(addHeadingAnchors(html, anchorLabel));
}
