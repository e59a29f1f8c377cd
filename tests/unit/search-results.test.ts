// What the search dialog makes of Pagefind's answers: excerpts as text parts
// (never HTML), result links under the site's base path, and each result landing
// on the section that matched most (real answers of Pagefind 1.6.0 over the built
// site, tests/fixtures/samples/pagefind/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { excerptParts, landingOf, resultHref, type ResultData } from '../../src/search/excerpt.ts';

const sample = (name: string): ResultData[] =>
  (JSON.parse(readFileSync(new URL(`../fixtures/samples/pagefind/${name}.json`, import.meta.url), 'utf8')) as { results: ResultData[] }).results;

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

test('a result lands on the section whose matches weigh most, at its heading, named under the title', () => {
  const [article] = sample('health-check.en');
  const landing = landingOf(article!, '/shice/');
  assert.equal(landing.href, '/shice/en/074-external-traffic-policy/#the-health-check-port');
  assert.equal(landing.title, 'externalTrafficPolicy: keep the client’s address, or take the extra hop');
  assert.equal(landing.section, 'The health-check port');
  assert.match(landing.excerpt, /<mark>/);
  // The section's own excerpt, not the page's.
  assert.equal(landing.excerpt, article!.sub_results!.find((s) => s.anchor?.id === 'the-health-check-port')!.excerpt);
});

test("a result whose matches are above the page's first heading opens the page's top; one without sections too", () => {
  const [article] = sample('source-ip.zh');
  const landing = landingOf(article!, '/');
  assert.equal(landing.href, '/074-external-traffic-policy/');
  assert.equal(landing.section, undefined);
  const { sub_results: _none, ...bare } = article!;
  assert.deepEqual(landingOf(bare, '/'), { href: '/074-external-traffic-policy/', title: article!.meta.title, excerpt: article!.excerpt });
  // A section Pagefind found under a heading without an id (no anchor to land on): the page's top.
  const top = article!.sub_results![0]!;
  assert.equal(landingOf({ ...article!, sub_results: [{ ...top, anchor: { element: 'h2' } }] }, '/').href, '/074-external-traffic-policy/');
});
