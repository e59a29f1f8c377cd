// Syntax highlighting of experiment output and manifests, memoised per article:
// the same raw output appears on the Chinese and the English page and again in
// the step-by-step view, so each distinct block of an article is highlighted
// once per build. (Scoped to the article so that a benchmark of many copies of
// one article measures what a site of different articles would cost.)
// shiki escapes the code it is given: the HTML returned is safe to inline.
// Colours become classes (a handful per theme pair) instead of an inline style on
// every token: the styles were a fifth of an article page. highlightCss() gives
// the rules for the classes a page uses.
import { createHighlighter, type Highlighter, type ShikiTransformer } from 'shiki';
import { CODE_THEMES } from '../site.config.ts';

export type HighlightLang = 'shellsession' | 'json' | 'http' | 'yaml' | 'text';

let highlighter: Promise<Highlighter> | undefined;
const cache = new Map<string, string>();

/** Inline style -> class name, for the whole build (the set is small and fixed by the themes). */
const styleClasses = new Map<string, string>();

function classOf(style: string): string {
  let name = styleClasses.get(style);
  if (name === undefined) {
    name = `hl${styleClasses.size}`;
    styleClasses.set(style, name);
  }
  return name;
}

function styleToClass(node: { properties: Record<string, unknown> }): string | undefined {
  const style = node.properties.style;
  if (typeof style !== 'string' || style === '') return undefined;
  delete node.properties.style;
  return classOf(style);
}

type HastNode = { type: string; tagName?: string; properties?: Record<string, unknown>; children?: HastNode[]; value?: string };

/** The colour pair of a style, case-insensitive: a token coloured like its block needs no span. */
const colourKeys = new Map<string, string>();
function colourKey(style: string): string {
  let key = colourKeys.get(style);
  if (key === undefined) {
    const rules = splitThemeStyle(style.toLowerCase());
    key = `${rules.light.replace(/background-color:[^;]*;?/, '')}|${rules.dark.replace(/background-color:[^;]*;?/, '')}`;
    colourKeys.set(style, key);
  }
  return key;
}

function classesOf(node: HastNode): string[] {
  const value = node.properties?.class ?? node.properties?.className;
  return Array.isArray(value) ? value.map(String) : String(value ?? '').split(/\s+/).filter(Boolean);
}

/**
 * The markup kept small: a token coloured like its block, and a line that is not
 * highlighted, lose their span (lines stay separated by their newlines); other
 * tokens carry a colour class instead of an inline style.
 */
function slim(children: HastNode[], blockColour: string): HastNode[] {
  const out: HastNode[] = [];
  for (const child of children) {
    if (child.type !== 'element' || child.tagName !== 'span') {
      out.push(child);
      continue;
    }
    const inner = slim(child.children ?? [], blockColour);
    const style = typeof child.properties?.style === 'string' ? child.properties.style : '';
    const isLine = classesOf(child).includes('line');
    if (isLine && !classesOf(child).includes('highlighted')) {
      out.push(...inner);
    } else if (!isLine && (!style || colourKey(style) === blockColour)) {
      out.push(...inner);
    } else {
      const colour = styleToClass(child as { properties: Record<string, unknown> });
      child.children = inner;
      if (colour) child.properties = { ...child.properties, class: [...classesOf(child), colour].join(' ') };
      out.push(child);
    }
  }
  return out;
}

/** The classes and attributes Astro's <Code> gives a block, so the site's CSS applies alike; colours as classes. */
function astroCodeLook(lang: string): ShikiTransformer {
  return {
    pre(node) {
      const blockColour = colourKey(String(node.properties.style ?? ''));
      const colour = styleToClass(node);
      node.properties.class = colour ? `astro-code ${colour}` : 'astro-code';
      node.properties.dataLanguage = lang;
      for (const code of node.children as HastNode[]) {
        if (code.type === 'element' && code.tagName === 'code') code.children = slim(code.children ?? [], blockColour);
      }
    },
  };
}

const LIGHT: Record<string, string> = { color: 'color', 'background-color': 'background-color', 'font-style': 'font-style', 'font-weight': 'font-weight', 'text-decoration': 'text-decoration' };
const DARK: Record<string, string> = { '--shiki-dark': 'color', '--shiki-dark-bg': 'background-color', '--shiki-dark-font-style': 'font-style', '--shiki-dark-font-weight': 'font-weight', '--shiki-dark-text-decoration': 'text-decoration' };

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
  for (const [style, name] of styleClasses) {
    if (!used.has(name)) continue;
    const rules = splitThemeStyle(style);
    if (rules.light) light.push(`.${name}{${rules.light}}`);
    if (rules.dark) dark.push(`.${name}{${rules.dark}}`);
  }
  if (!light.length && !dark.length) return '';
  return `${light.join('')}@media (prefers-color-scheme: dark){${dark.join('')}}`;
}

function highlightLines(lines: readonly number[]): ShikiTransformer {
  return {
    line(node, line) {
      if (lines.includes(line)) this.addClassToHast(node, 'highlighted');
    },
  };
}

/** The opening <pre> shiki gives a block in these themes, learnt once from an empty block. */
let plainPre: string | undefined;

function escapeCode(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export async function highlight(scope: string, code: string, lang: HighlightLang, lines: readonly number[] = []): Promise<string> {
  const key = JSON.stringify([scope, lang, lines, code]);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  highlighter ??= createHighlighter({ themes: Object.values(CODE_THEMES), langs: ['shellsession', 'json', 'http', 'yaml'] });
  const render = async (text: string, as: string, marked: readonly number[]) => (await highlighter!).codeToHtml(text, {
    lang: as,
    themes: CODE_THEMES,
    defaultColor: 'light',
    transformers: [astroCodeLook(as), highlightLines(marked)],
  });
  const text = code.replace(/\r?\n$/, '');
  let html: string;
  if (lang === 'text' && lines.length === 0) {
    // Plain text has no tokens to colour: the block's own markup around the escaped text,
    // without running the grammar engine over the largest outputs (iptables-save, conntrack).
    plainPre ??= (await render('', 'plaintext', [])).replace(/<code>[^]*$/, '');
    html = `${plainPre}<code>${escapeCode(text)}</code></pre>`;
  } else {
    html = await render(text, lang === 'text' ? 'plaintext' : lang, lines);
  }
  cache.set(key, html);
  return html;
}
