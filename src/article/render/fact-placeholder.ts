// <Fact> in an article's MDX, without an Astro component per value. ArticleBody
// maps the MDX's <Fact> to a plain element, <shicefact id=".." variant="..">,
// which Astro writes as it is; ProseFinish, which already gives the article's
// HTML its last touch, replaces each with the value's markup before anything
// else. The markup is boundFactHtml's, the one <Fact> (Fact.astro) renders, so
// the page is the same; what goes is a component instance per value (a page
// binds a hundred or so, and each one cost more than the rest of its work).
import { requireFact, runContext, type ArticleContext, type RunRef } from './context.ts';
import { factHtml } from './fact-html.ts';
import { evidenceStrings } from '../../i18n/evidence.ts';

/** The element name the MDX's <Fact> is written as until ProseFinish replaces it. Not an HTML element. */
export const FACT_PLACEHOLDER = 'shicefact';

/** A value's markup as <Fact id environment variant> renders it (the binding contract: fact-html.ts). */
export function boundFactHtml(context: ArticleContext, id: string | undefined, ref: RunRef): string {
  const { article, binding } = runContext(context, ref, 'Fact');
  const fact = requireFact(article, id);
  const t = evidenceStrings(article.lang);
  return factHtml(fact, binding, { mark: t.declaredMark, title: t.declaredTitle });
}

/** Astro's escaping of attribute values, undone (escape.ts: & < > ' "). */
function unescapeAttribute(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
}

/** An opening placeholder tag at the offset: its attributes (values quoted, `"` written as &quot;), then `>`. */
const OPENING = new RegExp(`<${FACT_PLACEHOLDER}((?:\\s+[^\\s=/>"']+(?:="[^"]*")?)*)\\s*/?>`, 'y');

/** The attributes of an opening tag's inside (` id="a" variant="b"`); a bare name reads as ''. */
function attributes(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/\s([^\s=/>"']+)(?:="([^"]*)")?/g)) found.set(m[1]!, m[2] === undefined ? '' : unescapeAttribute(m[2]));
  return found;
}

/** The opening tag at `at`: its attributes and where it ends. */
function openingTag(html: string, at: number): { attrs: Map<string, string>; end: number; selfClosing: boolean } {
  OPENING.lastIndex = at;
  const m = OPENING.exec(html);
  if (!m) throw new Error(`a malformed <${FACT_PLACEHOLDER}> in the rendered article: ${html.slice(at, at + 80)}`);
  return { attrs: attributes(m[1]!), end: at + m[0].length, selfClosing: m[0].endsWith('/>') };
}

/**
 * `html` with every `<shicefact ...></shicefact>` replaced by `render(id, run)`
 * (anything between the tags, which <Fact> never shows, is dropped). Pure apart from `render`.
 */
export function resolveFactPlaceholders(html: string, render: (id: string | undefined, run: RunRef) => string): string {
  const open = `<${FACT_PLACEHOLDER}`;
  const close = `</${FACT_PLACEHOLDER}>`;
  let at = html.indexOf(open);
  if (at < 0) return html;
  let out = '';
  let last = 0;
  while (at >= 0) {
    const tag = openingTag(html, at);
    // Nested placeholders (a <Fact> given children) close in order: skip to the matching close.
    let depth = tag.selfClosing ? 0 : 1;
    let from = tag.end;
    while (depth > 0) {
      const nextClose = html.indexOf(close, from);
      if (nextClose < 0) throw new Error(`an unclosed <${FACT_PLACEHOLDER}> in the rendered article: ${html.slice(at, at + 80)}`);
      const nextOpen = html.indexOf(open, from);
      if (nextOpen >= 0 && nextOpen < nextClose) {
        const inner = openingTag(html, nextOpen);
        if (!inner.selfClosing) depth++;
        from = inner.end;
      } else {
        depth--;
        from = nextClose + close.length;
      }
    }
    const environment = tag.attrs.get('environment');
    const variant = tag.attrs.get('variant');
    out +=
      html.slice(last, at) +
      render(tag.attrs.get('id'), { ...(environment === undefined ? {} : { environment }), ...(variant === undefined ? {} : { variant }) });
    last = from;
    at = html.indexOf(open, last);
  }
  return out + html.slice(last);
}
