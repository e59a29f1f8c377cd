import { test } from 'node:test';
import assert from 'node:assert/strict';
import { missingFragments, normalizeForMatch, proseFragments, visibleText } from '../../bench/readable-text.ts';

// From content/articles/074-external-traffic-policy/en.mdx, and the HTML Astro built from it.
const MDX = `---
title: "externalTrafficPolicy: keep the client's address, or take the extra hop"
lang: en
---

The control-plane node, <Fact id="node.control-plane.name" /> at <Fact id="node.control-plane.ip" />, plays the client outside the cluster. It talks to the other nodes' addresses.

## Cluster rewrites the source address

<Measured steps="cluster-via-worker cluster-via-worker2">
For comparison: the control-plane node that sent both requests is <Fact id="node.control-plane.ip" />.
</Measured>

- \`internalTrafficPolicy\`.
- See [the issue](https://github.com/kubernetes/kubernetes/issues/127937) about **timeouts**.

> <Fact id="run.environment.summary" />

\`\`\`yaml
kind: Service
\`\`\`
`;

const HTML =
  '<article class="article-body" data-run="20261202T114747Z-152be1" lang="en">' +
  '<p>The control-plane node, <span class="fact" data-fact="node.control-plane.name" data-step="run">kx-main-control-plane</span> at ' +
  '<span class="fact" data-fact="node.control-plane.ip" data-step="run">172.18.0.3</span>, plays the client outside the cluster. It talks to the other nodes’ addresses.</p>\n' +
  '<h2 id="cluster-rewrites-the-source-address">Cluster rewrites the source address</h2>\n' +
  '<figure class="measured"><div class="measured-note"><p>For comparison: the control-plane node that sent both requests is <span class="fact">172.18.0.3</span>.</p></div></figure>' +
  '<ul>\n<li><code>internalTrafficPolicy</code>.</li>\n<li>See <a href="https://github.com/kubernetes/kubernetes/issues/127937">the issue</a> about <strong>timeouts</strong>.</li>\n</ul>' +
  '<blockquote><span class="fact">A lab on one Linux kernel</span></blockquote></article>';

test('prose fragments: text between components, without markdown syntax, link targets or code blocks', () => {
  assert.deepEqual(proseFragments(MDX), [
    'The control-plane node,',
    'at',
    ", plays the client outside the cluster. It talks to the other nodes' addresses.",
    'Cluster rewrites the source address',
    'For comparison: the control-plane node that sent both requests is',
    'internalTrafficPolicy.',
    // The link's destination is not text: the sentence is checked on both sides of it.
    'See the issue',
    'about timeouts.',
  ]);
});

test('every fragment of the real article text is visible in its HTML (smart quotes and all)', () => {
  assert.deepEqual(missingFragments(proseFragments(MDX), visibleText(HTML)), []);
});

test('text only a script would show, or that sits in a hidden element or a template, is missing', () => {
  const scripted =
    '<article><p>The control-plane node,</p><script>document.body.append("It talks to the other nodes\' addresses.")</script>' +
    '<div hidden><p>Cluster rewrites the source address</p></div>' +
    '<template><p>For comparison: the control-plane node that sent both requests is</p></template></article>';
  const missing = missingFragments(proseFragments(MDX), visibleText(scripted));
  assert.ok(missing.includes('Cluster rewrites the source address'));
  assert.ok(missing.includes('For comparison: the control-plane node that sent both requests is'));
  assert.ok(missing.includes(", plays the client outside the cluster. It talks to the other nodes' addresses."));
  assert.ok(!missing.includes('The control-plane node,'));
});

test('visible text: entities decoded, hidden subtrees skipped, text after them kept', () => {
  const text = visibleText('<p>a &amp; b</p><div hidden="">x<span>y</span></div><p>after<br>line</p><img alt="z"><!-- gone -->');
  assert.equal(text.replace(/\s+/g, ' ').trim(), 'a & b after line');
});

test('matching ignores whitespace and typography, not words', () => {
  assert.equal(normalizeForMatch('“a”  — it’s...\n b'), normalizeForMatch('"a" -- it\'s… b'));
  assert.notEqual(normalizeForMatch('client=10.244.1.1'), normalizeForMatch('client=10.244.1.2'));
});

test('a string written as an MDX expression counts as the text it stands for (article 074 puts braces into a <pre> that way)', () => {
  const mdx = '---\ntitle: t\n---\n\n<pre><code>chain filter-input {"{\\n  "}<Fact id="a" />{"\\n}"}</code></pre>\n';
  assert.deepEqual(proseFragments(mdx), ['chain filter-input {']);
  assert.deepEqual(missingFragments(proseFragments(mdx), visibleText('<pre><code>chain filter-input {\n  <span>x</span>\n}</code></pre>')), []);
  assert.deepEqual(missingFragments(proseFragments(mdx), visibleText('<pre><code>chain filter-output {</code></pre>')), ['chain filter-input {']);
});
