// Text that goes into XML (the RSS feed, the sitemap, the og card's SVG): XML 1.0 allows only tab, line
// feed, carriage return and the characters from U+0020 on, less the surrogates and U+FFFE/U+FFFF. One
// forbidden character (a vertical tab pasted from a word processor) makes the whole document not
// well-formed, and no escape can write it. The front matter refuses such a character with one line
// naming the file and the field (src/i18n/frontmatter.ts); every XML writer also strips it here.

/** A character XML 1.0 forbids in a document (a lone surrogate included). */
export const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

/** `text` without the characters XML 1.0 forbids; every XML writer of the site passes text through it. Pure. */
export function xmlText(text: string): string {
  return text.replace(XML_FORBIDDEN, '');
}

/** The first character of `text` XML 1.0 forbids, as `U+000B at character 6`, or null. Pure. */
export function xmlForbiddenCharacter(text: string): string | null {
  const match = new RegExp(XML_FORBIDDEN.source, 'u').exec(text);
  if (!match) return null;
  const code = match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return `U+${code} at character ${[...text.slice(0, match.index)].length + 1}`;
}
