// What the search dialog makes of Pagefind's answers: excerpts as text parts
// (never HTML), and result links under the site's base path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { excerptParts, resultHref } from '../../src/search/excerpt.ts';

test('an excerpt is text parts, the matches marked; entities decoded once, other tags dropped', () => {
  assert.deepEqual(excerptParts('s-lb 的<mark>健康</mark><mark>检查</mark>端口返回 200'), [
    { text: 's-lb 的', mark: false },
    { text: '健康', mark: true },
    { text: '检查', mark: true },
    { text: '端口返回 200', mark: false },
  ]);
  // What an output holds arrives escaped and stays text: the dialog writes it with textContent.
  assert.deepEqual(excerptParts('a &lt;script&gt;alert(1)&lt;/script&gt; &amp;amp; <mark>health</mark> <b>x</b>'), [
    { text: 'a <script>alert(1)</script> &amp; ', mark: false },
    { text: 'health', mark: true },
    { text: ' x', mark: false },
  ]);
  assert.deepEqual(excerptParts(''), []);
});

test('a result links to the page Pagefind indexed, under the base path', () => {
  assert.equal(resultHref('/074-external-traffic-policy/', '/'), '/074-external-traffic-policy/');
  assert.equal(resultHref('/en/074-external-traffic-policy/', '/'), '/en/074-external-traffic-policy/');
  assert.equal(resultHref('/en/074-external-traffic-policy/', '/shice/'), '/shice/en/074-external-traffic-policy/');
  assert.equal(resultHref('en/074-external-traffic-policy/', '/shice'), '/shice/en/074-external-traffic-policy/');
});
