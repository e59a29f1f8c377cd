// Syntax highlighting of experiment output and manifests, memoised per article:
// the same raw output appears on the Chinese and the English page and again in
// the step-by-step view, so each distinct block of an article is highlighted
// once per build. (Scoped to the article so that a benchmark of many copies of
// one article measures what a site of different articles would cost.)
// shiki escapes the code it is given: the HTML returned is safe to inline.
import { createHighlighter, type Highlighter, type ShikiTransformer } from 'shiki';
import { CODE_THEMES } from '../site.config.ts';

export type HighlightLang = 'shellsession' | 'json' | 'http' | 'yaml' | 'text';

let highlighter: Promise<Highlighter> | undefined;
const cache = new Map<string, string>();

/** The classes, attributes and scrolling Astro's <Code> gives a block, so the site's CSS applies alike. */
function astroCodeLook(lang: string): ShikiTransformer {
  return {
    pre(node) {
      node.properties.class = String(node.properties.class ?? '').replace(/shiki/g, 'astro-code');
      node.properties.dataLanguage = lang;
      node.properties.style = `${String(node.properties.style ?? '')}; overflow-x: auto;`;
    },
  };
}

function highlightLines(lines: readonly number[]): ShikiTransformer {
  return {
    line(node, line) {
      if (lines.includes(line)) this.addClassToHast(node, 'highlighted');
    },
  };
}

export async function highlight(scope: string, code: string, lang: HighlightLang, lines: readonly number[] = []): Promise<string> {
  const key = JSON.stringify([scope, lang, lines, code]);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  highlighter ??= createHighlighter({ themes: Object.values(CODE_THEMES), langs: ['shellsession', 'json', 'http', 'yaml'] });
  const html = (await highlighter).codeToHtml(code.replace(/\r?\n$/, ''), {
    lang: lang === 'text' ? 'plaintext' : lang,
    themes: CODE_THEMES,
    defaultColor: 'light',
    transformers: [astroCodeLook(lang === 'text' ? 'plaintext' : lang), highlightLines(lines)],
  });
  cache.set(key, html);
  return html;
}
