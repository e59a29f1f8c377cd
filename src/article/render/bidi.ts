// Bidirectional control characters from a snapshot (a pod's output, a value
// read from it) must not reorder the page around them: `ab\u202Edc` would show
// as "abcd" and hide what the run said. Each one is shown instead, as the
// visible escape `\u202E`, in the one place an article's and a run record's HTML
// is finished (ProseFinish). Pure.

/** Embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069), the marks LRM, RLM and ALM. */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
const HAS_BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
/** A tag or a comment; attribute values never hold a raw `>` (Astro, shiki and fact-html.ts all escape it). */
const MARKUP = /<!--[\s\S]*?-->|<(\/?)([A-Za-z][\w:-]*)[^>]*>/g;
/** Elements whose content is code or style, never text. */
const RAW_TEXT = new Set(['script', 'style']);

/** `\u202E` for U+202E: what a reader sees in place of the character. */
export function bidiEscape(char: string): string {
  return `\\u${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Text with every bidi control written as its escape. */
export function escapeBidiControls(text: string): string {
  return HAS_BIDI_CONTROL.test(text) ? text.replace(BIDI_CONTROL, bidiEscape) : text;
}

/**
 * `html` with every bidi control made visible: in text, a
 * `<span class="bidi-control" data-ui>\u202E</span>` (the page's chrome for a
 * character it will not obey); in an attribute value (a tooltip, data-raw), the
 * escape alone. Scripts, styles and comments are left as they are.
 */
export function isolateBidiControls(html: string): string {
  if (!HAS_BIDI_CONTROL.test(html)) return html;
  const text = (t: string) => (HAS_BIDI_CONTROL.test(t) ? t.replace(BIDI_CONTROL, (c) => `<span class="bidi-control" data-ui>${bidiEscape(c)}</span>`) : t);
  let out = '';
  let last = 0;
  for (MARKUP.lastIndex = 0; ;) {
    const m = MARKUP.exec(html);
    if (!m) break;
    out += text(html.slice(last, m.index));
    const isComment = m[0].startsWith('<!--');
    out += isComment ? m[0] : escapeBidiControls(m[0]);
    last = m.index + m[0].length;
    const name = m[2]?.toLowerCase();
    if (!isComment && m[1] === '' && name !== undefined && RAW_TEXT.has(name)) {
      const close = html.toLowerCase().indexOf(`</${name}`, last);
      const end = close < 0 ? html.length : close;
      out += html.slice(last, end);
      last = end;
      MARKUP.lastIndex = end;
    }
  }
  return out + text(html.slice(last));
}
