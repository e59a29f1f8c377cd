// Syntax highlighting of experiment output and manifests, memoised per article:
// the same raw output appears on the Chinese and the English page and again in
// the step-by-step view, so each distinct block of an article is highlighted
// once per build. (Scoped to the article so that a benchmark of many copies of
// one article measures what a site of different articles would cost.)
// The code is escaped as it is written into the markup (blockHtml, escapeCode): the
// HTML returned is safe to inline.
// Colours become classes (a handful per theme pair) instead of an inline style on
// every token: the styles were a fifth of an article page. highlightCss() gives
// the rules for the classes a page uses.
import { createHighlighter, type Highlighter, type ThemedToken } from 'shiki';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { CODE_THEMES } from '../../site.config.ts';

export type HighlightLang = 'shellsession' | 'json' | 'http' | 'yaml' | 'text';

let highlighter: Promise<Highlighter> | undefined;

/** The languages the site highlights. */
export const HIGHLIGHT_LANGS = ['shellsession', 'json', 'http', 'yaml'] as const;

/**
 * The site's highlighter: shiki with JavaScript's own RegExp engine (the grammars'
 * Oniguruma patterns translated) instead of Oniguruma compiled to WebAssembly,
 * which cost a quarter more per block. For these grammars shiki lists the engine
 * as matching Oniguruma, and the unit tests compare the two on every block the
 * articles show.
 */
export function createSiteHighlighter(): Promise<Highlighter> {
  return createHighlighter({ themes: Object.values(CODE_THEMES), langs: [...HIGHLIGHT_LANGS], engine: createJavaScriptRegexEngine() });
}

/**
 * scope -> language and marked lines -> code -> HTML. Keyed by the code string
 * itself rather than a JSON key built from it: a page looks its blocks up again,
 * and a string used as a key keeps its hash.
 */
const cache = new Map<string, Map<string, Map<string, string>>>();

/** Inline style -> class name, in the order styles are first met (the set is small and fixed by the themes). */
export class StyleClasses {
  readonly styles = new Map<string, string>();

  classOf(style: string): string {
    let name = this.styles.get(style);
    if (name === undefined) {
      name = `hl${this.styles.size}`;
      this.styles.set(style, name);
    }
    return name;
  }
}

/** The build's classes: every page names a colour the same way. */
const styleClasses = new StyleClasses();

/** The colour pair of a style, case-insensitive: a token coloured like its block needs no span. */
const colourKeys = new Map<string, string>();
export function colourKey(style: string): string {
  let key = colourKeys.get(style);
  if (key === undefined) {
    const rules = splitThemeStyle(style.toLowerCase());
    key = `${rules.light.replace(/background-color:[^;]*;?/, '')}|${rules.dark.replace(/background-color:[^;]*;?/, '')}`;
    colourKeys.set(style, key);
  }
  return key;
}

/** Text in a code block, escaped as hast-util-to-html escapes text (what shiki's codeToHtml used): `<` and `&` only, as hexadecimal references. */
function escapeTokenText(text: string): string {
  if (!text.includes('<') && !text.includes('&')) return text;
  return text.replaceAll('&', '&#x26;').replaceAll('<', '&#x3C;');
}

const WHITESPACE_ONLY = /^\s+$/;

/** A token's inline style as shiki writes it (its htmlStyle, dual themes). */
function tokenStyle(token: ThemedToken): string {
  const style = token.htmlStyle;
  if (typeof style === 'string') return style;
  if (!style) return '';
  let out = '';
  for (const key in style) out += `${out ? ';' : ''}${key}:${style[key]}`;
  return out;
}

/**
 * A block's HTML from shiki's tokens, written directly: what codeToHtml made of
 * them with the transformers this file used to run (classes and attributes of
 * Astro's <Code>, colours as classes, a token coloured like its block and a
 * line that is not highlighted without a span; whitespace-only tokens merged
 * into the next one, as shiki does), without building a syntax tree first.
 * The unit tests compare it with that pipeline. Pure apart from `classes`,
 * which learns a class for each new style in the order the old pipeline met
 * them (the block's, then the tokens' in reading order).
 */
export function blockHtml(
  result: { tokens: ThemedToken[][]; fg?: string; bg?: string },
  lang: string,
  marked: readonly number[],
  classes: StyleClasses = styleClasses,
): string {
  const preStyle = `background-color:${result.bg};color:${result.fg}`;
  const blockColour = colourKey(preStyle);
  let html = `<pre class="astro-code ${classes.classOf(preStyle)}" tabindex="0" data-language="${lang}"><code>`;
  result.tokens.forEach((line, index) => {
    if (index) html += '\n';
    const highlighted = marked.includes(index + 1);
    if (highlighted) html += '<span class="line highlighted">';
    let carry = '';
    for (let i = 0; i < line.length; i++) {
      const token = line[i]!;
      // shiki's mergeWhitespaces: a whitespace-only token goes into the next one (the tokens here carry no underline).
      if (WHITESPACE_ONLY.test(token.content) && i + 1 < line.length) {
        carry += token.content;
        continue;
      }
      const text = escapeTokenText(carry + token.content);
      carry = '';
      const style = tokenStyle(token);
      html += !style || colourKey(style) === blockColour ? text : `<span class="${classes.classOf(style)}">${text}</span>`;
    }
    if (highlighted) html += '</span>';
  });
  return `${html}</code></pre>`;
}

const LIGHT: Record<string, string> = {
  color: 'color',
  'background-color': 'background-color',
  'font-style': 'font-style',
  'font-weight': 'font-weight',
  'text-decoration': 'text-decoration',
};
const DARK: Record<string, string> = {
  '--shiki-dark': 'color',
  '--shiki-dark-bg': 'background-color',
  '--shiki-dark-font-style': 'font-style',
  '--shiki-dark-font-weight': 'font-weight',
  '--shiki-dark-text-decoration': 'text-decoration',
};

/** A shiki dual-theme style as two rule bodies: the light declarations and the dark ones. */
export function splitThemeStyle(style: string): { light: string; dark: string } {
  const light: string[] = [];
  const dark: string[] = [];
  for (const declaration of style.split(';')) {
    const at = declaration.indexOf(':');
    if (at < 0) continue;
    const property = declaration.slice(0, at).trim();
    const value = declaration.slice(at + 1).trim();
    if (LIGHT[property]) light.push(`${LIGHT[property]}:${value}`);
    else if (DARK[property]) dark.push(`${DARK[property]}:${value}`);
  }
  return { light: light.join(';'), dark: dark.join(';') };
}

/** The CSS for the colour classes that occur in `html`: light rules, then dark ones under prefers-color-scheme. */
export function highlightCss(html: string): string {
  const used = new Set(html.match(/\bhl\d+\b/g) ?? []);
  const light: string[] = [];
  const dark: string[] = [];
  for (const [style, name] of styleClasses.styles) {
    if (!used.has(name)) continue;
    const rules = splitThemeStyle(style);
    if (rules.light) light.push(`.${name}{${rules.light}}`);
    if (rules.dark) dark.push(`.${name}{${rules.dark}}`);
  }
  if (!light.length && !dark.length) return '';
  return `${light.join('')}@media (prefers-color-scheme: dark){${dark.join('')}}`;
}

/** The opening <pre> shiki gives a block in these themes, learnt once from an empty block. */
let plainPre: string | undefined;

function escapeCode(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export async function highlight(scope: string, code: string, lang: HighlightLang, lines: readonly number[] = []): Promise<string> {
  let byKind = cache.get(scope);
  if (!byKind) cache.set(scope, (byKind = new Map()));
  const kind = `${lang} ${lines.join(',')}`;
  let byCode = byKind.get(kind);
  if (!byCode) byKind.set(kind, (byCode = new Map()));
  const cached = byCode.get(code);
  if (cached !== undefined) return cached;
  highlighter ??= createSiteHighlighter();
  const shiki = await highlighter;
  const render = (text: string, as: string, marked: readonly number[]) =>
    blockHtml(shiki.codeToTokens(text, { lang: as as 'yaml', themes: CODE_THEMES, defaultColor: 'light' }), as, marked);
  const text = code.replace(/\r?\n$/, '');
  let html: string;
  if (lang === 'text' && lines.length === 0) {
    // Plain text has no tokens to colour: the block's own markup around the escaped text,
    // without running the grammar engine over the largest outputs (iptables-save, conntrack).
    plainPre ??= render('', 'plaintext', []).replace(/<code>[^]*$/, '');
    html = `${plainPre}<code>${escapeCode(text)}</code></pre>`;
  } else {
    html = render(text, lang === 'text' ? 'plaintext' : lang, lines);
  }
  byCode.set(code, html);
  return html;
}
