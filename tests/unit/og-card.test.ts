// An article's Open Graph card: the headline values read from the MDX through
// the evidence, the card's layout (wrapped, shrunk or cut to fit, every text
// escaped), its words for og:image:alt, and the PNG: 1200×630 and the same bytes
// from the same card, drawn with the fonts from npm and nothing of the system's
// (the fonts themselves: og-fonts.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { headlinesOf } from '../../src/article/render/headlines.ts';
import { breakPieces, CARD, cardAlt, cardSvg, escapeXml, textWidth, wrap, type CardText } from '../../src/og/card.ts';
import { cardPng, cardSetting } from '../../src/og/render.ts';
import { faceName, loadFaces, PACKAGES } from '../../src/og/fonts.ts';

const ARTICLES = fileURLToPath(new URL('../../content/articles/', import.meta.url));

test("the headlines are the MDX's headline paragraphs, each <Fact> its value from the run it names", () => {
  const mdx = [
    '<div class="headlines">',
    '  <div class="headline">',
    '    <p class="headline-value">rc=<Fact id="local-via-worker2.rc" /> / <Fact id="node.worker.ip" variant="nftables" /></p>',
    '    <p class="headline-label">curl gave up after <Fact id="local-via-worker2.seconds" environment="lab" /> s, **dropped**</p>',
    '  </div>',
    '  <p class="headline-value"><Fact id="health-worker.status" /></p>',
    '</div>',
    '<p class="other">not a headline <Fact id="x" /></p>',
  ].join('\n');
  const asked: string[] = [];
  const headlines = headlinesOf(mdx, (id, run) => {
    asked.push(`${id}@${run.environment ?? ''}/${run.variant ?? ''}`);
    return { 'local-via-worker2.rc': '28', 'node.worker.ip': '172.19.0.2', 'local-via-worker2.seconds': '3.0', 'health-worker.status': '200' }[id]!;
  });
  assert.deepEqual(headlines, [
    { value: 'rc=28 / 172.19.0.2', label: 'curl gave up after 3.0 s, dropped' },
    { value: '200', label: '' },
  ]);
  assert.deepEqual(asked, ['local-via-worker2.rc@/', 'node.worker.ip@/nftables', 'local-via-worker2.seconds@lab/', 'health-worker.status@/']);
});

test("every article's MDX, in both languages, has headlines whose values are all bound", () => {
  for (const slug of ['074-external-traffic-policy', '075-local-uneven-weights']) {
    for (const lang of ['zh', 'en']) {
      const headlines = headlinesOf(readFileSync(`${ARTICLES}${slug}/${lang}.mdx`, 'utf8'), (id) => `{${id}}`);
      assert.ok(headlines.length > 0, `${slug}/${lang}.mdx`);
      for (const h of headlines) {
        // With each value stood in for by its id, no digit is left: nothing typed in.
        assert.doesNotMatch(h.value.replace(/\{[^}]*\}/g, ''), /\d/, `${slug}/${lang}: ${h.value}`);
        assert.ok(h.label, `${slug}/${lang}: a label for ${h.value}`);
      }
    }
  }
});

test('text is measured by its characters: CJK full width, Latin narrower, monospace Latin at 0.6 em', () => {
  assert.equal(textWidth('保住', 10), 20);
  assert.equal(textWidth('abc', 10, true), 18);
  assert.ok(textWidth('iii', 10) < textWidth('mmm', 10));
  assert.deepEqual(breakPieces('curl 等了 3.1 秒 to worker2'), ['curl ', '等', '了', ' ', '3.1 ', '秒', ' ', 'to ', 'worker2']);
  // A closing mark stays with what it follows: no line starts with "：".
  assert.deepEqual(breakPieces('访问 ClusterIP：包被丢弃，curl'), ['访', '问', ' ', 'ClusterIP：', '包', '被', '丢', '弃，', 'curl']);
});

test('lines wrap between pieces, break a piece wider than a line, and the last kept line ends with … when cut', () => {
  assert.deepEqual(wrap(['aaaa ', 'bbbb ', 'cccc'], 10, 40, 5), ['aaaa', 'bbbb', 'cccc']);
  assert.deepEqual(wrap(['aaaaaaaaaaaaaaaaaaaa'], 10, 57, 9), ['aaaaaaaaaa', 'aaaaaaaaaa']);
  const cut = wrap([...'一二三四五六七八九十'], 10, 40, 2);
  assert.equal(cut.length, 2);
  assert.equal(cut[0], '一二三四');
  assert.ok(cut[1]!.endsWith('…') && textWidth(cut[1]!, 10) <= 40);
});

const card: CardText = {
  lang: 'en',
  series: 'Kubernetes · 74',
  site: 'Measured',
  title: 'A title with <script>alert("x")</script> & more',
  titlePhrases: [],
  headlines: [{ value: '10.244.2.1 / <b>', label: "worker's & worker2's" }],
  footer: 'Every measured number comes from the raw snapshots of a real run.',
};

test('the SVG is 1200×630 and every text in it is escaped', () => {
  const svg = cardSvg(card);
  assert.match(svg, /^<svg [^>]*width="1200" height="630"/);
  assert.doesNotMatch(svg, /<script|<b>/);
  assert.match(svg, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; more/);
  assert.match(svg, /worker&apos;s &amp; worker2&apos;s/);
  assert.equal(escapeXml(`<&>"'`), '&lt;&amp;&gt;&quot;&apos;');
});

test('the alt says the title, then each value with its label, as sentences', () => {
  assert.equal(
    cardAlt({
      ...card,
      title: 'Title',
      headlines: [
        { value: 'rc=28', label: 'curl gave up.' },
        { value: '200', label: '' },
      ],
    }),
    'Title. rc=28: curl gave up. 200.',
  );
  assert.equal(
    cardAlt({ ...card, lang: 'zh', title: '标题', headlines: [{ value: '200 / 503', label: '健康检查的状态' }] }),
    '标题。200 / 503：健康检查的状态。',
  );
});

const faces = loadFaces(Object.keys(PACKAGES));
const zhCard: CardText = {
  lang: 'zh',
  series: 'Kubernetes · 76',
  site: '实测',
  title: 'internalTrafficPolicy：集群内部的流量也只走本节点',
  titlePhrases: ['internalTrafficPolicy：', '集群内部的流量也只走本节点'],
  headlines: [{ value: 'rc=28', label: 'Local 下，没有本地后端的 worker2 上的 Pod 访问 ClusterIP：包被丢弃' }],
  footer: '每个实测数字都来自一次真实运行的原始快照。',
};

test('the PNG is 1200×630, and the same card gives the same bytes, in both languages, with no font of the system', () => {
  for (const c of [card, zhCard]) {
    const first = cardPng(c);
    assert.equal(first.subarray(1, 4).toString('latin1'), 'PNG');
    assert.deepEqual([first.readUInt32BE(16), first.readUInt32BE(20)], [CARD.width, CARD.height]);
    assert.ok(first.equals(cardPng(c)), `${c.lang}: the same card rendered twice differs`);
    assert.ok(!first.equals(cardPng({ ...c, title: 'Another title', titlePhrases: ['Another title'] })), `${c.lang}: another title, the same image`);
  }
});

test("each run of the card's text names one face of its weight that covers it, and no face more is loaded", () => {
  const { svg, faces: used, uncovered } = cardSetting(zhCard, faces);
  assert.deepEqual(uncovered, []);
  const named = new Set([...svg.matchAll(/font-family="&apos;([^&]+)&apos;"/g)].map((m) => m[1]));
  assert.deepEqual([...named].sort(), used.map(faceName).sort(), 'the faces loaded are the faces named');
  // Bold (the title, the site, the values) and regular (the labels, the series, the footer) from faces of their own weight.
  for (const [, weight, family] of svg.matchAll(/font-weight="(\d+)"[^>]*?(?:font-family="&apos;([^&]+)&apos;")?>/g)) {
    if (family) assert.match(family, new RegExp(`-${weight}-normal$`), family);
  }
  for (const [, weight, inner] of svg.matchAll(/<text [^>]*font-weight="(\d+)"[^>]*xml:space="preserve">(.*?)<\/text>/g)) {
    for (const [, family] of inner!.matchAll(/font-family="&apos;([^&]+)&apos;"/g)) assert.match(family!, new RegExp(`-${weight}-normal$`), family);
  }
  // The Chinese card sets its Chinese in Noto Sans SC, its Latin in Noto Sans, its values in Noto Sans Mono.
  assert.ok(used.every((f) => ['Noto Sans SC', 'Noto Sans', 'Noto Sans Mono'].includes(f.family)));
  assert.ok(used.some((f) => f.family === 'Noto Sans SC' && f.weight === 700) && used.some((f) => f.family === 'Noto Sans SC' && f.weight === 400));
  const latin = cardSetting({ ...zhCard, title: 'externalTrafficPolicy：保住客户端地址', titlePhrases: ['externalTrafficPolicy：', '保住客户端地址'] }, faces);
  assert.match(latin.svg, /<tspan font-family="&apos;shice noto-sans-latin-700-normal&apos;">externalTraf\u200cf\u200cicPolicy</);
});

test('a title line of Latin and Chinese together is drawn, a ligature in its Latin and all', () => {
  // resvg drew nothing of such a line (074's and 077's Chinese cards lost their first title line): with no
  // headlines, a card whose title is not drawn is the card without a title, byte for byte.
  const bare = { ...zhCard, headlines: [] };
  const blank = cardPng({ ...bare, title: ' ', titlePhrases: [' '] });
  for (const title of ['externalTrafficPolicy：保住', 'sessionAffinity：同一个客户端，', 'offset 同']) {
    assert.ok(!cardPng({ ...bare, title, titlePhrases: [title] }).equals(blank), title);
  }
});

test('an English card sets ’ in Noto Sans, loads no CJK face for it, and still has Noto Sans SC for Chinese', () => {
  const english = cardSetting({ ...card, title: 'The same pod’s share under Cluster' }, faces);
  assert.deepEqual(english.uncovered, []);
  assert.deepEqual(english.faces.map((f) => `${f.family} ${f.weight}`).sort(), ['Noto Sans 400', 'Noto Sans 700', 'Noto Sans Mono 700']);
  const mixed = cardSetting({ ...card, title: 'Kubernetes 实测' }, faces);
  assert.ok(mixed.faces.some((f) => f.family === 'Noto Sans SC' && f.weight === 700));
});

test('a character no font of the card covers is reported, and the card is not drawn without it', () => {
  const odd = { ...card, title: 'An Egyptian hieroglyph: 𓀀' };
  assert.deepEqual(cardSetting(odd, faces).uncovered, ['𓀀']);
  assert.throws(() => cardPng(odd), /og:image: "An Egyptian hieroglyph: 𓀀": no font of the card has 𓀀 \(U\+13000\)/);
});
