// prose-html.ts walks the HTML with indexOf instead of a regular expression per
// rule; it must give exactly what the regular expressions gave (kept below as
// the reference), on article-like HTML and on generated HTML made of the pieces
// the rules look at (headings, skipped elements, hyphens, stray `>`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addHeadingAnchors, anchorLabel, keepNamesWhole, polishProseHtml } from '../../src/article/render/prose-html.ts';
import { unbreakableRuns, wholeTokenHtml } from '../../src/article/render/unbreakable.ts';

const reference = {
  addHeadingAnchors: (html: string, label: string) =>
    html.replace(
      /<h([23]) id="([^"]+)">([^]*?)<\/h\1>/g,
      (_m, level: string, id: string, inner: string) =>
        `<h${level} id="${id}">${inner}<a class="heading-anchor" href="#${id}" aria-label="${anchorLabel(label, inner)}">#</a></h${level}>`,
    ),
  keepNamesWhole(html: string): string {
    const text = (segment: string) =>
      !segment.includes('-')
        ? segment
        : segment.replace(
            /(^|>)([^<]*-[^<]*)(?=<|$)/g,
            (_m, before: string, t: string) =>
              `${before}${unbreakableRuns(t)
                .map((r) => (r.whole ? wholeTokenHtml(r.text) : r.text))
                .join('')}`,
          );
    let out = '';
    let last = 0;
    let depth = 0;
    for (const match of html.matchAll(/<(\/?)(pre|code|script|style|svg|textarea)\b[^>]*>/gi)) {
      const segment = html.slice(last, match.index);
      out += depth === 0 ? text(segment) : segment;
      out += match[0];
      last = match.index + match[0].length;
      if (!match[0].endsWith('/>')) depth = Math.max(0, depth + (match[1] ? -1 : 1));
    }
    const rest = html.slice(last);
    return out + (depth === 0 ? text(rest) : rest);
  },
};

const PIECES = [
  '<',
  '>',
  '-',
  '--',
  'a',
  'b-c',
  ' ',
  '<h2 id="x">',
  '<h3 id="y-z">',
  '</h2>',
  '</h3>',
  '<h2 id="">',
  '<h2 id="a" >',
  '"',
  '<pre>',
  '</pre>',
  '<code>',
  '</code>',
  '<CODE>',
  '<svg/>',
  '<p>',
  '</p>',
  '<a title="x>y-z">',
  '--max-time',
  's-lb',
  'x=1-2',
  '中-文',
  '\n',
  '<h',
  'h2',
  'id="',
  '<script>',
  '</script>',
  'kube-proxy',
];

const ARTICLE =
  '<p>经 s-local 访问，<code>--max-time 3</code> 后 curl 退出</p><h2 id="local">Local：保住来源地址</h2><p title="s-lb">a-b</p>' +
  '<pre class="astro-code"><code>kube-proxy --mode=iptables</code></pre><h3 id="x-y">节点 worker-2 > 3</h3><p>--flag and a->b</p><h4 id="z">z-z</h4>';

test('the indexOf walk gives what the regular expressions gave', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const inputs = [ARTICLE, ARTICLE.repeat(3), ''];
  for (let i = 0; i < 20000; i++) {
    let html = '';
    for (let n = Math.floor(random() * 30); n > 0; n--) html += PIECES[Math.floor(random() * PIECES.length)];
    inputs.push(html);
  }
  for (const html of inputs) {
    assert.equal(addHeadingAnchors(html, '链接'), reference.addHeadingAnchors(html, '链接'), JSON.stringify(html));
    assert.equal(keepNamesWhole(html), reference.keepNamesWhole(html), JSON.stringify(html));
    assert.equal(polishProseHtml(html, 'L'), reference.keepNamesWhole(reference.addHeadingAnchors(html, 'L')), JSON.stringify(html));
  }
});
