// blockHtml (src/article/render/highlight.ts) writes a code block's HTML straight from
// the tokens of the site's highlighter (JavaScript RegExp engine). It must write
// exactly what shiki's codeToHtml wrote with the default engine (Oniguruma) and
// the transformers the site used before (kept below as the reference): the same
// markup, the same escaping, the same colour classes learnt in the same order.
// Compared on every output, command and manifest of the reference articles, with
// and without highlighted lines, and on text made to hit the edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { createHighlighter, type ShikiTransformer } from 'shiki';
import { blockHtml, colourKey, createSiteHighlighter, StyleClasses } from '../../src/article/render/highlight.ts';
import { CODE_THEMES } from '../../src/site.config.ts';
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LANGS = ['shellsession', 'json', 'http', 'yaml'] as const;
/** The reference: shiki as the site used it, with its default engine (Oniguruma, WebAssembly). */
const shiki = await createHighlighter({ themes: Object.values(CODE_THEMES), langs: [...LANGS] });
/** The site's highlighter now (JavaScript RegExp engine). */
const site = await createSiteHighlighter();

type HastNode = { type: string; tagName?: string; properties?: Record<string, unknown>; children?: HastNode[]; value?: string };

/** The site's former pipeline: shiki's codeToHtml with these transformers (highlight.ts before blockHtml). */
function reference(code: string, lang: string, marked: readonly number[], classes: StyleClasses): string {
  const styleToClass = (node: { properties: Record<string, unknown> }) => {
    const style = node.properties.style;
    if (typeof style !== 'string' || style === '') return undefined;
    delete node.properties.style;
    return classes.classOf(style);
  };
  const classesOf = (node: HastNode) => {
    const value = node.properties?.class ?? node.properties?.className;
    return Array.isArray(value)
      ? value.map(String)
      : String(value ?? '')
          .split(/\s+/)
          .filter(Boolean);
  };
  const slim = (children: HastNode[], blockColour: string): HastNode[] => {
    const out: HastNode[] = [];
    for (const child of children) {
      if (child.type !== 'element' || child.tagName !== 'span') {
        out.push(child);
        continue;
      }
      const inner = slim(child.children ?? [], blockColour);
      const style = typeof child.properties?.style === 'string' ? child.properties.style : '';
      const isLine = classesOf(child).includes('line');
      if (isLine && !classesOf(child).includes('highlighted')) out.push(...inner);
      else if (!isLine && (!style || colourKey(style) === blockColour)) out.push(...inner);
      else {
        const colour = styleToClass(child as { properties: Record<string, unknown> });
        child.children = inner;
        if (colour) child.properties = { ...child.properties, class: [...classesOf(child), colour].join(' ') };
        out.push(child);
      }
    }
    return out;
  };
  const astroCodeLook: ShikiTransformer = {
    pre(node) {
      const blockColour = colourKey(String(node.properties.style ?? ''));
      const colour = styleToClass(node);
      node.properties.class = colour ? `astro-code ${colour}` : 'astro-code';
      node.properties.dataLanguage = lang;
      for (const c of node.children as HastNode[]) {
        if (c.type === 'element' && c.tagName === 'code') c.children = slim(c.children ?? [], blockColour);
      }
    },
  };
  const highlightLines: ShikiTransformer = {
    line(node, line) {
      if (marked.includes(line)) this.addClassToHast(node, 'highlighted');
    },
  };
  return shiki.codeToHtml(code, { lang, themes: CODE_THEMES, defaultColor: 'light', transformers: [astroCodeLook, highlightLines] });
}

function fast(code: string, lang: string, marked: readonly number[], classes: StyleClasses): string {
  return blockHtml(site.codeToTokens(code, { lang: lang as 'yaml', themes: CODE_THEMES, defaultColor: 'light' }), lang, marked, classes);
}

/** Every block the reference articles can show: stdout and stderr of every step, every command line, every manifest. */
function corpus(): Array<{ code: string; lang: string }> {
  const blocks: Array<{ code: string; lang: string }> = [];
  const articles = join(root, 'content/articles');
  for (const slug of REFERENCE_ARTICLES) {
    const dir = join(articles, slug);
    for (const folder of readdirSync(dir).filter((n) => n.startsWith('snapshots'))) {
      for (const file of readdirSync(join(dir, folder)).filter((n) => n.endsWith('.yaml') && n !== 'run.yaml')) {
        const step = load(readFileSync(join(dir, folder, file), 'utf8')) as { stdout?: string; stderr?: string; argv?: string[]; node?: string };
        for (const text of [step.stdout, step.stderr]) {
          if (!text) continue;
          const body = text.replace(/\n$/, '');
          blocks.push({ code: body, lang: 'plaintext' });
          const blank = body.search(/\r?\n\r?\n/);
          if (/^HTTP\//.test(body) && blank > 0) {
            blocks.push({ code: body.slice(0, blank).replaceAll('\r', ''), lang: 'http' });
            blocks.push({ code: body.slice(blank).trim(), lang: 'json' });
          }
          try {
            JSON.parse(body);
            blocks.push({ code: body, lang: 'json' });
          } catch {
            // not JSON
          }
        }
        if (step.argv) blocks.push({ code: `${step.node ?? 'host'}$ ${step.argv.join(' ')}`, lang: 'shellsession' });
      }
    }
    const manifests = join(dir, 'manifests');
    if (existsSync(manifests))
      for (const file of readdirSync(manifests)) blocks.push({ code: readFileSync(join(manifests, file), 'utf8').replace(/\n$/, ''), lang: 'yaml' });
  }
  return blocks;
}

const EDGE_CASES: Array<{ code: string; lang: string }> = [
  { code: '', lang: 'plaintext' },
  { code: '', lang: 'yaml' },
  { code: '\n\n', lang: 'yaml' },
  { code: 'a: <b> & "c" \'d\' > e', lang: 'yaml' },
  { code: 'key:   value  \n   \n\tindented:\ttab\r\nwin: crlf', lang: 'yaml' },
  { code: '{"a": "<script>&amp;</script>", "b": [1, 2.5e3, null, true], "c": "中文 😀 \\u00e9"}', lang: 'json' },
  { code: 'HTTP/1.1 200 OK\nContent-Type: text/plain; charset=<x>&y\nX-Empty:', lang: 'http' },
  {
    code: '$ echo "a & b" | grep -E \'<[a-z]+>\' > /dev/null && echo $((1 + 2)) # comment\nroot@node# ls -la ~/.kube\noutput line <not a prompt>',
    lang: 'shellsession',
  },
  { code: '   leading spaces\ntrailing spaces   \n \u00a0 \u3000 wide space', lang: 'plaintext' },
  {
    code: 'apiVersion: v1\nkind: ConfigMap\ndata:\n  conf: |\n    server { listen 80; return 200 "a&b<c>"; }\n  list:\n    - "x"   # note\n    - 0x1F',
    lang: 'yaml',
  },
  // Constructs the grammars treat specially, for the engine comparison.
  {
    code: "---\nanchor: &a {k: v, \"q k\": [1, 2.0, -3e4, .inf, ~, null, true, no]}\nref: *a\nmerge:\n  <<: *a\nfolded: >-\n  text\n  more\nliteral: |+\n  keep\n\n? complex key\n: value\ndate: 2026-12-02T20:21:36Z\nsingle: 'it''s'\n...\n--- !!map\ntagged: !custom x\n# end",
    lang: 'yaml',
  },
  {
    code: '$ cat <<\'EOF\' > /tmp/x.conf\nline $HOME ${PATH:-/bin} `date` $(uname -r)\nEOF\n$ for i in 1 2 3; do echo "$i" 2>&1 | tee -a log; done\n$ if [[ -n "$X" && $Y -eq 0 ]]; then exit 1; fi\n$ kubectl get svc -o jsonpath=\'{.items[*].spec.ports[0].nodePort}\' # ports\n$ echo \\$escaped "a\\"b" \'c\\d\'; arr=(a b); echo ${arr[@]} $((i++)) ~user/*.{yaml,json}',
    lang: 'shellsession',
  },
  {
    code: '{\n  "a": {"b": [true, false, null, -0.5e-7, 12345678901234567890]},\n  "esc": "\\"\\\\\\/\\b\\f\\n\\r\\t\\u4e2d",\n  "empty": {}, "list": [], "k": "v"\n}',
    lang: 'json',
  },
  {
    code: 'GET /healthz?x=1&y=%20 HTTP/1.1\nHost: 172.18.0.3:32154\nAccept: */*\n\nHTTP/1.1 503 Service Unavailable\nContent-Type: application/json\nX-Content-Type-Options: nosniff\nDate: Wed, 02 Dec 2026 19:42:38 GMT\nContent-Length: 102',
    lang: 'http',
  },
];

const MARKS: number[][] = [[], [1], [2, 3], [1, 4, 40]];

test("blockHtml writes what shiki's codeToHtml wrote with the former transformers, byte for byte, classes included", () => {
  const blocks = [...corpus(), ...EDGE_CASES];
  assert.ok(blocks.length > 40, `the reference articles give blocks to compare (${blocks.length})`);
  let compared = 0;
  for (const { code, lang } of blocks) {
    for (const marked of MARKS) {
      const expected = reference(code, lang, marked, new StyleClasses());
      const actual = fast(code, lang, marked, new StyleClasses());
      assert.equal(actual, expected, `${lang} block ${JSON.stringify(code.slice(0, 60))}, lines ${marked.join(',')}`);
      compared++;
    }
  }
  // Across blocks too: one class map for a whole build, learnt in the same order.
  const a = new StyleClasses();
  const b = new StyleClasses();
  for (const { code, lang } of blocks) assert.equal(fast(code, lang, [2], b), reference(code, lang, [2], a));
  assert.deepEqual([...b.styles], [...a.styles]);
  assert.ok(compared > 100);
});
