// Writing values into MDX so that MDX shows them exactly as given: a value
// with characters MDX would read as markup (JSX, expressions, emphasis, code,
// links, entities) goes in as a string expression instead of raw text. Pure.

/**
 * Characters and sequences that MDX, GFM or smartypants would turn into
 * something else: markup, links, typographic quotes, dashes and ellipses.
 */
const MARKUP = /[{}<>*_`[\]\\&~|"']|https?:\/\/|www\.|--|\.\.\./i;
/** What would open a block (list, heading, quote, code) at the start of a line. */
const BLOCK_START = /^(?:\d+[.)](?:\s|$)|[-+#>=]|\s{4})/;

/** `text` as MDX phrasing content that renders to exactly `text`. */
export function mdxText(text: string, atLineStart = false): string {
  if (text === '') return '';
  // Whitespace at either end may be dropped or read as indentation: keep it inside a string.
  const plain = !MARKUP.test(text) && !/^\s|\s$|\n/.test(text) && !(atLineStart && BLOCK_START.test(text));
  return plain ? text : `{${JSON.stringify(text)}}`;
}

/** An attribute of a JSX tag in MDX; a value with a double quote goes in as an expression. */
export function mdxAttribute(name: string, value: string): string {
  if (!/^[A-Za-z_:][\w:.-]*$/.test(name)) throw new Error(`mdxAttribute: ${JSON.stringify(name)} is not an attribute name`);
  return value.includes('"') || /[{}]/.test(value) ? `${name}={${JSON.stringify(value)}}` : `${name}="${value}"`;
}

/**
 * A fenced code block, with blank lines around it so MDX reads it as markdown
 * even between JSX tags. The fence is longer than any backtick run inside.
 */
export function codeFence(lang: string, code: string): string {
  if (!/^[\w+-]*$/.test(lang)) throw new Error(`codeFence: ${JSON.stringify(lang)} is not a language id`);
  const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `\n${fence}${lang}\n${code.replace(/\n+$/, '')}\n${fence}\n`;
}
