import { test } from 'node:test';
import assert from 'node:assert/strict';
import { componentTree, rewriteComponents, startsLine } from '../../bench/plain/component-tree.ts';
import { findElements, parseHtml, textContent } from '../../bench/plain/html-tree.ts';
import { flowMdx, inlineMdx } from '../../bench/plain/html-to-mdx.ts';
import { codeFence, mdxAttribute, mdxText } from '../../bench/plain/mdx-text.ts';
import { plainMdx, probeMdx, readProbePage, splitFrontmatter } from '../../bench/plain/plain-mdx.ts';

// An article body using the evidence components the way article 074 does.
const SOURCE = `---
title: 样例
summary: 样例
date: 2026-12-02
lang: zh
series:
  name: Kubernetes
  number: 74
---

客户端是 <Fact id="node.control-plane.ip" />,退出码 rc=<Fact id="local-via-worker2.rc" />。

<Measured steps="local-via-worker2">
对照:<Fact id="node.control-plane.ip" />。
</Measured>

<Claim ids="local-keeps-client">

经 worker 访问,后端看到的是 <Fact id="local-via-worker.client" />。

</Claim>

> <Fact id="run.environment.summary" />

<p><code><Fact id="iptables-worker2.dropRule" /></code></p>
`;

// What a real probe build (astro build of probeMdx(SOURCE) with the project's
// components, article 074's snapshots of run 20261202T114747Z-152be1) wrote
// for <article class="article-body">, cut out of dist/074-external-traffic-policy/index.html.
const PROBE_ARTICLE = `<article class="article-body" data-run="20261202T114747Z-152be1" data-article="074-external-traffic-policy" lang="zh-CN"><aside class="run-badge" aria-label="本文的数字来自这次运行"><span class="run-badge-title">本文的数字来自这次运行</span><span>日期 <span class="fact" data-fact="run.date" data-step="run">2026-12-02</span></span><span>驱动 lab(Linux 网络命名空间模拟)</span><span>Linux 内核 <span class="fact" data-fact="version.kernel" data-step="run">6.18.44-fc-v1045</span></span><a href="#provenance"><code><span class="fact" data-fact="run.id" data-step="run">20261202T114747Z-152be1</span></code></a></aside><div data-bench-content><p>客户端是 <span data-bench-block="0"><span class="fact" data-fact="node.control-plane.ip" data-step="run">172.18.0.3</span></span>,退出码 rc=<span data-bench-block="1"><span class="fact" data-fact="local-via-worker2.rc" data-step="local-via-worker2">28</span></span>。</p><div data-bench-block="2"><figure class="measured" data-measured="local-via-worker2"><figcaption class="measured-heading">实测 · 本机执行输出</figcaption><ul class="measured-lines"><li data-step="local-via-worker2">控制面 → worker2 <span class="fact" data-fact="node.worker2.ip" data-step="run">172.18.0.4</span>:<span class="fact" data-fact="service.s-local.nodePort" data-step="run">32123</span>(s-local,本节点没有后端):没有任何回应,curl 到了 --max-time <span class="fact" data-fact="local-via-worker2.timeout" data-step="local-via-worker2">3</span> 秒的上限后放弃,rc=<span class="fact" data-fact="local-via-worker2.rc" data-step="local-via-worker2">28</span>,用时 <span class="fact" data-fact="local-via-worker2.seconds" data-step="local-via-worker2" data-raw="3047.2459259999996">3.0</span> 秒</li></ul><div class="measured-note"><div data-bench-slot="2"><p>对照:<span data-bench-block="3"><span class="fact" data-fact="node.control-plane.ip" data-step="run">172.18.0.3</span></span>。</p></div></div><details class="measured-raw"><summary>原始输出</summary><div class="step-output" data-step="local-via-worker2"><pre class="astro-code astro-code-themes github-light github-dark" style="background-color:#fff;--shiki-dark-bg:#24292e;color:#24292e;--shiki-dark:#e1e4e8; overflow-x: auto;" tabindex="0" data-language="shellsession"><code><span class="line"><span style="color:#005CC5;--shiki-dark:#79B8FF">control-plane$ curl --silent --show-error --max-time 3 http://172.18.0.4:32123/</span></span></code></pre><div class="step-stream step-stderr"><span class="step-stream-label">标准错误</span><pre class="astro-code astro-code-themes github-light github-dark" style="background-color:#fff;--shiki-dark-bg:#24292e;color:#24292e;--shiki-dark:#e1e4e8; overflow-x: auto;" tabindex="0" data-language="text"><code><span class="line"><span>curl: (28) Connection timed out after 3000 milliseconds</span></span></code></pre></div></div></details><details class="measured-provenance"><summary>这组数字从哪来</summary><dl class="step-provenance" data-step="local-via-worker2"><dt>步骤</dt><dd><code data-ui>local-via-worker2</code></dd><dt>节点</dt><dd><span class="fact" data-fact="local-via-worker2.node" data-step="local-via-worker2">control-plane</span></dd><dt>退出码</dt><dd><span class="fact" data-fact="local-via-worker2.rc" data-step="local-via-worker2">28</span></dd><dt>用时</dt><dd><span class="fact" data-fact="local-via-worker2.seconds" data-step="local-via-worker2" data-raw="3047.2459259999996">3.0</span> 秒</dd><dt>开始于</dt><dd><span class="fact" data-fact="local-via-worker2.startedAt" data-step="local-via-worker2">2026-12-02T11:47:49.445Z</span></dd><dt>实际执行的 argv</dt><dd><code class="argv"><span class="fact" data-fact="local-via-worker2.argv" data-step="local-via-worker2">ip netns exec shice-lab-20261202T114747Z-152be1.node.control-plane curl --silent --show-error --max-time 3 http://172.18.0.4:32123/</span></code></dd></dl><div class="measured-claims"><p class="measured-claims-title">这组数字支撑的论断</p><ul><li data-claim="local-drops-without-backend" data-claim-status="holds"><span class="claim-status claim-holds">成立</span> Local 策略下,没有本地后端的节点丢弃发往该 NodePort 的包:curl 以超时的退出码放弃,filter 表里有对应的 DROP 规则</li></ul></div></details></figure></div><div data-bench-block="4"><div class="claim" data-claims="local-keeps-client" data-claim-status="holds"><div data-bench-slot="4"><p>经 worker 访问,后端看到的是 <span data-bench-block="5"><span class="fact" data-fact="local-via-worker.client" data-step="local-via-worker">172.18.0.3</span></span>。</p></div></div></div><blockquote>
<span data-bench-block="6"><span class="fact" data-fact="run.environment.summary" data-step="run">A lab on one Linux kernel: network namespaces for a bridge, each node and each pod, wired like kind and kindnet, with real nginx, curl, conntrack and iptables.</span></span>
</blockquote><p><code><span data-bench-block="7"><span class="fact" data-fact="iptables-worker2.dropRule" data-step="iptables-worker2">-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment &quot;default/s-local has no local endpoints&quot; -m addrtype --dst-type LOCAL -m tcp --dport 32123 -j DROP</span></span></code></p></div></article>`;

test('components form a tree; flow when alone on their lines, inline inside prose', () => {
  const tree = componentTree('zh.mdx', SOURCE);
  assert.deepEqual(
    tree.map((n) => [n.index, n.name, n.flow, n.aloneOnLine, n.children.map((c) => c.index)]),
    [
      [0, 'Fact', false, false, []],
      [1, 'Fact', false, false, []],
      [2, 'Measured', true, true, [3]],
      [4, 'Claim', true, true, [5]],
      [6, 'Fact', false, true, []],
      [7, 'Fact', false, false, []],
    ],
  );
});

test('unbalanced components are errors with file, line and column', () => {
  assert.throws(() => componentTree('a.mdx', '\n<Measured steps="x">\ntext\n'), /a\.mdx:2:1: <Measured> is never closed/);
  assert.throws(() => componentTree('a.mdx', '<Claim ids="x">\n</Measured>\n'), /a\.mdx:2:1: <\/Measured> does not close <Claim> \(opened at 1:1\)/);
});

test('startsLine: only whitespace and container markers before the offset', () => {
  assert.equal(startsLine('> <Fact />', 2), true);
  assert.equal(startsLine('  - <Fact />', 4), true);
  assert.equal(startsLine('1. <Fact />', 3), true);
  assert.equal(startsLine('rc=<Fact />', 3), false);
});

test('rewriteComponents replaces each component in the range and keeps the rest', () => {
  const source = 'a <Fact id="x" /> b <Fact id="y" /> c';
  assert.equal(
    rewriteComponents(source, 0, source.length, componentTree('f', source), (n) => `[${n.index}]`),
    'a [0] b [1] c',
  );
});

test('the probe wraps every component and its children in numbered markers, and the body in one more', () => {
  const probe = probeMdx('zh.mdx', SOURCE);
  assert.ok(probe.startsWith(splitFrontmatter('zh.mdx', SOURCE).frontmatter));
  assert.match(probe, /\n<div data-bench-content="">\n\n客户端是 <span data-bench-block="0"><Fact id="node\.control-plane\.ip" \/><\/span>/);
  assert.match(
    probe,
    /<div data-bench-block="2">\n<Measured steps="local-via-worker2">\n<div data-bench-slot="2">\n\n对照:<span data-bench-block="3"><Fact id="node\.control-plane\.ip" \/><\/span>。\n\n<\/div>\n<\/Measured>\n<\/div>/,
  );
  assert.match(probe, /> <span data-bench-block="6"><Fact id="run\.environment\.summary" \/><\/span>/);
  assert.throws(() => probeMdx('x.mdx', '---\ntitle: t\n---\nimport X from "./x"\n'), /x\.mdx: an import\/export line/);
  assert.throws(() => probeMdx('x.mdx', 'no frontmatter'), /x\.mdx: expected a frontmatter block/);
});

test("the probe page gives what surrounds the MDX and each component's output", () => {
  const probe = readProbePage('probe.html', PROBE_ARTICLE);
  assert.deepEqual([...probe.blocks.keys()].sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(probe.before.length, 1);
  assert.equal(probe.after.length, 0);
  assert.throws(() => readProbePage('p.html', '<main></main>'), /p\.html: expected an <article class="article-body"> element/);
  assert.throws(() => readProbePage('p.html', '<article class="article-body"><p>x</p></article>'), /marker data-bench-content not found/);
});

test('the plain MDX: values typed in, components as the static markup they rendered, prose as written', () => {
  const plain = plainMdx('zh.mdx', SOURCE, 'probe.html', PROBE_ARTICLE);
  assert.ok(plain.startsWith(splitFrontmatter('zh.mdx', SOURCE).frontmatter));
  assert.ok(!/<[A-Z]/.test(plain), 'no component is left');
  assert.ok(!plain.includes('data-bench-'), 'no probe marker is left');
  assert.ok(!plain.includes('data-fact'), 'values are bare text');
  assert.match(plain, /\n客户端是 172\.18\.0\.3,退出码 rc=28。\n/);
  // The run badge ArticleBody draws above the MDX.
  assert.match(
    plain,
    /\n<aside class="run-badge" aria-label="本文的数字来自这次运行"><span class="run-badge-title">本文的数字来自这次运行<\/span><span>日期 2026-12-02<\/span>/,
  );
  // The Measured block: its figure, its note back as markdown, its output as fenced code the plain build highlights.
  assert.match(
    plain,
    /\n<figure class="measured" data-measured="local-via-worker2">\n<figcaption class="measured-heading">实测 · 本机执行输出<\/figcaption>\n/,
  );
  assert.match(plain, /<div class="measured-note">\n\n对照:172\.18\.0\.3。\n\n<\/div>/);
  assert.match(plain, /\n```shellsession\ncontrol-plane\$ curl --silent --show-error --max-time 3 http:\/\/172\.18\.0\.4:32123\/\n```\n/);
  assert.match(plain, /\n```text\ncurl: \(28\) Connection timed out after 3000 milliseconds\n```\n/);
  assert.match(plain, /<dd><code data-ui>local-via-worker2<\/code><\/dd>/);
  // A passage under a claim keeps its own prose.
  assert.match(
    plain,
    /<div class="claim" data-claims="local-keeps-client" data-claim-status="holds">\n\n经 worker 访问,后端看到的是 172\.18\.0\.3。\n\n<\/div>/,
  );
  // Alone on a quoted line: a string expression, as a bare line would become a paragraph the page did not have.
  assert.match(plain, /\n> \{"A lab on one Linux kernel: network namespaces/);
  // Text MDX would read as markup goes in as a string.
  assert.match(plain, /<p><code>\{"-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment \\"default\/s-local has no local endpoints\\"/);
});

test('the unhighlighted baseline: code blocks as static <pre> text, everything else the same', () => {
  const fenced = plainMdx('zh.mdx', SOURCE, 'probe.html', PROBE_ARTICLE);
  const bare = plainMdx('zh.mdx', SOURCE, 'probe.html', PROBE_ARTICLE, { staticCode: true });
  assert.ok(!bare.includes('```'));
  assert.match(bare, /<pre class="astro-code" data-language="text"><code>\{"curl: \(28\) Connection timed out after 3000 milliseconds"\}<\/code><\/pre>/);
  const withoutCode = (mdx: string) => mdx.replace(/\n```\w+\n[\s\S]*?\n```\n|<pre [^>]*><code>\{.*?\}<\/code><\/pre>/g, '<CODE>').replace(/\n+/g, '\n');
  assert.equal(withoutCode(bare), withoutCode(fenced));
});

test('plainMdx fails naming the component whose output the probe page lacks', () => {
  const withoutBlock7 = PROBE_ARTICLE.replace('data-bench-block="7"', 'data-other="7"');
  assert.throws(
    () => plainMdx('zh.mdx', SOURCE, 'probe.html', withoutBlock7),
    /probe\.html: no output of <Fact> at zh\.mdx:\d+:\d+ \(marker data-bench-block="7" not found\)/,
  );
});

test('html-tree: elements, bare and quoted attributes, decoded text, raw script bodies', () => {
  const nodes = parseHtml('<!DOCTYPE html><p class="a" data-ui>x &lt; y<br>z</p><script type="module">if(a<b&&c)x()</script><!-- c --><img src="/i.png">');
  const p = findElements(nodes, (e) => e.name === 'p')[0]!;
  assert.deepEqual(p.attributes, [
    { name: 'class', value: 'a' },
    { name: 'data-ui', value: null },
  ]);
  assert.equal(textContent(p.children), 'x < yz');
  const script = findElements(nodes, (e) => e.name === 'script')[0]!;
  assert.equal(textContent(script.children), 'if(a<b&&c)x()');
  assert.equal(findElements(nodes, (e) => e.name === 'img')[0]!.children.length, 0);
});

test('html-to-mdx: blocks on their own lines, inline runs as text, code as fences, scripts kept as they are', () => {
  const none = { slot: () => undefined };
  const nodes = parseHtml(
    '<div class="w"><span class="l">标准输出</span><pre class="astro-code" data-language="http"><code><span class="line"><span>HTTP/1.1 200 OK</span></span>\n<span class="line"><span>X: 1</span></span></code></pre></div>' +
      '<script type="module">if(a<b)x("y")</script>',
  );
  assert.equal(
    flowMdx(nodes, none),
    '<div class="w">\n<span class="l">标准输出</span>\n\n```http\nHTTP/1.1 200 OK\nX: 1\n```\n\n</div>\n<script type="module" set:html={"if(a<b)x(\\"y\\")"}></script>',
  );
  const withFact = parseHtml('a <span class="fact" data-fact="x">1.2</span> b<br>');
  assert.equal(inlineMdx(withFact, none), 'a 1.2 b<br />');
  assert.equal(inlineMdx(withFact, none, true, true), '{"a 1.2 b"}<br />', 'a line of its own: text as a string, never a paragraph');
  assert.equal(flowMdx(parseHtml('\n  text at block level  \n'), none), '{"text at block level"}');
});

// A packet path draws its values as <tspan>s inside SVG, bound like a <Fact>: the plain page keeps
// the drawing and loses the binding, as a hand-drawn one would have it.
test('html-to-mdx: a bound element that is not a value span keeps its element and drops the binding', () => {
  const none = { slot: () => undefined };
  const svg = parseHtml(
    '<text class="pp-addr"><tspan class="pp-key">src </tspan><tspan class="pp-value" data-fact="node.control-plane.ip" data-step="run" data-raw="x" data-declared="m.yaml" data-unmeasured data-variant="nftables" data-run="r1">172.18.0.3</tspan></text>',
  );
  assert.equal(inlineMdx(svg, none), '<text class="pp-addr"><tspan class="pp-key">{"src "}</tspan><tspan class="pp-value">172.18.0.3</tspan></text>');
  // data-run elsewhere (no data-fact) is not the binding of a value.
  assert.equal(inlineMdx(parseHtml('<div data-run="r1">x</div>'), none), '<div data-run="r1">x</div>');
});

test('mdxText: plain when MDX would show it as is, a string otherwise', () => {
  assert.equal(mdxText('172.18.0.3'), '172.18.0.3');
  assert.equal(mdxText('控制面节点 kx-main-control-plane'), '控制面节点 kx-main-control-plane');
  for (const risky of [
    'a{b}',
    '<x>',
    '*a*',
    'a_b',
    '`c`',
    '[l](u)',
    'a & b',
    'a|b',
    '"q"',
    "it's",
    'a--b',
    'wait...',
    'http://x/',
    ' lead',
    'trail ',
    'two\nlines',
  ]) {
    assert.equal(mdxText(risky), `{${JSON.stringify(risky)}}`, risky);
  }
  assert.equal(mdxText('1. item', true), '{"1. item"}');
  assert.equal(mdxText('1. item', false), '1. item');
  assert.equal(mdxText('# h', true), '{"# h"}');
  assert.equal(mdxText(''), '');
});

test('mdxAttribute and codeFence keep values and code intact', () => {
  assert.equal(mdxAttribute('aria-label', '本文的数字'), 'aria-label="本文的数字"');
  assert.equal(mdxAttribute('title', 'say "hi"'), 'title={"say \\"hi\\""}');
  assert.throws(() => mdxAttribute('on click', 'x'), /mdxAttribute: "on click" is not an attribute name/);
  assert.equal(codeFence('yaml', 'kind: Service\n'), '\n```yaml\nkind: Service\n```\n');
  assert.equal(codeFence('text', 'a ``` b'), '\n````text\na ``` b\n````\n');
  assert.throws(() => codeFence('a b', 'x'), /codeFence: "a b" is not a language id/);
});
