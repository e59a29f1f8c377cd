// The pure pieces of the article page: tokens kept whole, heading links, the
// table of contents, plurals, title phrases and code colours as classes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unbreakableRuns } from '../../src/article/render/unbreakable.ts';
import { addHeadingAnchors, keepNamesWhole } from '../../src/article/render/prose-html.ts';
import { tocEntries } from '../../src/article/render/toc.ts';
import { choosePlurals } from '../../src/article/render/plural.ts';
import { titlePhrases } from '../../src/i18n/phrases.ts';
import { highlight, highlightCss, splitThemeStyle } from '../../src/article/render/highlight.ts';
import type { Fact } from '../../src/evidence/facts.ts';

test('hyphenated names and flags are whole tokens; plain words and Chinese are not', () => {
  const whole = (text: string) =>
    unbreakableRuns(text)
      .filter((r) => r.whole)
      .map((r) => r.text);
  assert.deepEqual(whole('curl 等满 --max-time 设定的秒数，s-cluster 和 kube-proxy'), ['--max-time', 's-cluster', 'kube-proxy']);
  assert.deepEqual(whole('-m addrtype --dst-type LOCAL'), ['--dst-type']);
  assert.deepEqual(whole('worker2 上没有后端'), []);
  assert.equal(
    unbreakableRuns('a s-lb b')
      .map((r) => r.text)
      .join(''),
    'a s-lb b',
    'nothing is lost',
  );
});

test('names are kept whole in text, never inside code, pre or attributes', () => {
  const html = '<p title="s-lb">经 s-local 访问 <code>--max-time</code></p><pre><code>kube-proxy</code></pre>';
  assert.equal(keepNamesWhole(html), '<p title="s-lb">经 <span class="nobr">s-local</span> 访问 <code>--max-time</code></p><pre><code>kube-proxy</code></pre>');
});

test('a long path or image reference may break after a slash or colon, never inside a piece; a short one stays whole', () => {
  const html = '<li>镜像 docker.io/shice/nginx-light:bookworm-276f85219e0e 和 default/s-local</li>';
  assert.equal(
    keepNamesWhole(html),
    '<li>镜像 <span class="nobr">docker.io/</span><wbr><span class="nobr">shice/</span><wbr><span class="nobr">nginx-light:</span><wbr><span class="nobr">bookworm-276f85219e0e</span> 和 <span class="nobr">default/s-local</span></li>',
  );
  const long = 'registry.example.org/team-a/';
  assert.equal(
    keepNamesWhole(`<p>${long}</p>`),
    '<p><span class="nobr">registry.example.org/</span><wbr><span class="nobr">team-a/</span></p>',
    'no break after a closing slash',
  );
});

test('each h2 and h3 with an id gets a link to itself, named after its section', () => {
  assert.equal(
    addHeadingAnchors('<h2 id="local">Local：保住<span class="nobr">来源</span>地址</h2><h4 id="x">x</h4>', '本节链接：{title}'),
    '<h2 id="local">Local：保住<span class="nobr">来源</span>地址<a class="heading-anchor" href="#local" aria-label="本节链接：Local：保住来源地址">#</a></h2><h4 id="x">x</h4>',
  );
});

test('a table of contents only for articles with more than a few sections, and of sections only', () => {
  const h = (depth: number, slug: string) => ({ depth, slug, text: slug });
  assert.deepEqual(tocEntries([h(2, 'a'), h(2, 'b'), h(3, 'b1'), h(2, 'c')]), []);
  assert.deepEqual(
    tocEntries([h(2, 'a'), h(3, 'a1'), h(2, 'b'), h(2, 'c'), h(2, 'd')]).map((e) => e.slug),
    ['a', 'b', 'c', 'd'],
  );
});

test('plural forms follow the bound count through Intl.PluralRules', () => {
  const fact = (value: string): Fact => ({ id: 'conntrack-worker2.count', step: 'conntrack-worker2', value }) as Fact;
  const line = (value: string) =>
    choosePlurals(
      [
        { kind: 'text', text: 'holds ' },
        { kind: 'fact', fact: fact(value) },
        { kind: 'text', text: ' [connection|connections] to' },
      ],
      'en',
    )
      .map((s) => (s.kind === 'text' ? s.text : s.fact.value))
      .join('');
  assert.equal(line('1'), 'holds 1 connection to');
  assert.equal(line('2'), 'holds 2 connections to');
  assert.equal(line('0'), 'holds 0 connections to');
  assert.throws(() => line('none'), /follows fact "conntrack-worker2.count", whose value "none" is not a number/);
});

test('a Chinese title breaks only after its punctuation', () => {
  assert.deepEqual(titlePhrases('externalTrafficPolicy：保住客户端地址，还是多绕一跳'), ['externalTrafficPolicy：', '保住客户端地址，', '还是多绕一跳']);
  assert.deepEqual(titlePhrases('externalTrafficPolicy: source IP'), ['externalTrafficPolicy: source IP']);
});

test('code colours are classes with light and dark rules, not inline styles', async () => {
  assert.deepEqual(splitThemeStyle('color:#005CC5;--shiki-dark:#79B8FF'), { light: 'color:#005CC5', dark: 'color:#79B8FF' });
  const html = await highlight('unit', 'apiVersion: v1\nkind: Service', 'yaml', [2]);
  assert.doesNotMatch(html, /<span[^>]* style=/, 'no token carries a style');
  assert.match(html, /class="line highlighted/, 'a highlighted line keeps its span');
  const css = highlightCss(html);
  for (const name of new Set(html.match(/\bhl\d+\b/g))) assert.match(css, new RegExp(`\\.${name}\\{`), `rules for ${name}`);
  assert.match(css, /@media \(prefers-color-scheme: dark\)/);
  assert.equal(highlightCss('<p>no code</p>'), '');
});
