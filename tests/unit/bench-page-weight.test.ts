import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { attributes, cssUrls, decodeEntities, distPath, gzipSize, javascriptWeight, pageReferences, weighPage } from '../../bench/page-weight.ts';

// The <head> of this site's built article page (dist/en/074-external-traffic-policy/index.html),
// its inline style cut short, and the walkthrough's module script as Astro inlines it.
const HEAD =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<title>externalTrafficPolicy: keep the client&#39;s address, or take the extra hop · Measured</title>' +
  '<link rel="canonical" href="https://shice.example/en/074-external-traffic-policy/">' +
  '<link rel="alternate" hreflang="zh-CN" href="https://shice.example/074-external-traffic-policy/">' +
  '<link rel="alternate" type="application/rss+xml" title="Measured: all articles" href="/en/rss.xml">' +
  '<link rel="sitemap" href="/sitemap-index.xml"><link rel="icon" href="/favicon.svg" type="image/svg+xml">' +
  '<meta property="og:type" content="article"><link rel="stylesheet" href="/_astro/BaseLayout.CVBnhKk1.css">' +
  '<style>.fact{font-variant-numeric:tabular-nums;overflow-wrap:anywhere}</style></head>';
const SCRIPT =
  'for(let e of document.querySelectorAll(`[data-walkthrough]`)){let t=[...e.querySelectorAll(`.walkthrough-stop`)],n=e.querySelector(`.walkthrough-nav`);if(!n||t.length<2)continue}';
const BODY =
  '<body><a class="skip-link" href="#content">Skip to content</a><main id="content">' +
  '<div class="walkthrough-nav" hidden><button type="button" data-walk="prev">Previous step</button></div></section>' +
  `<script type="module">${SCRIPT}</script>` +
  '<script type="application/ld+json">{"@type":"Article"}</script>' +
  '<!-- <script src="/_astro/commented.js"></script> -->' +
  '</main></body></html>';
const PAGE = HEAD + BODY;

test('a built page asks for its stylesheet, its icon and its inline module script', () => {
  const refs = pageReferences(PAGE);
  assert.deepEqual(refs.stylesheets, ['/_astro/BaseLayout.CVBnhKk1.css']);
  assert.deepEqual(refs.images, ['/favicon.svg']);
  assert.deepEqual(refs.scripts, []);
  assert.deepEqual(refs.inlineScripts, [SCRIPT]);
  assert.deepEqual(refs.inlineStyles, ['.fact{font-variant-numeric:tabular-nums;overflow-wrap:anywhere}']);
});

test('canonical, alternate, RSS and sitemap links are not downloads; JSON-LD and commented tags are not scripts', () => {
  const refs = pageReferences(PAGE);
  const all = [...refs.stylesheets, ...refs.scripts, ...refs.images];
  assert.ok(!all.some((u) => u.includes('rss') || u.includes('sitemap') || u.startsWith('https://') || u.includes('commented')));
  assert.equal(refs.inlineScripts.length, 1);
});

test('script files, module preloads, images, srcset candidates and image inputs are found once each', () => {
  const refs = pageReferences(
    [
      '<script type="module" src="/_astro/page.abc.js"></script><script src="/_astro/page.abc.js"></script>',
      '<link rel="modulepreload" href="/_astro/chunk.js"><link rel="preload" as="script" href="/_astro/pre.js">',
      '<link rel="preload" as="font" href="/f.woff2">',
      '<img src="/a.png" srcset="/a.png 1x, /a@2x.png 2x"><picture><source srcset="/b.webp"></picture>',
      '<input type="image" src="/go.png"><input type="text" src="/not.png">',
      '<script>var s = "<link rel=stylesheet href=/fake.css>";</script>',
    ].join(''),
  );
  assert.deepEqual(refs.scripts, ['/_astro/page.abc.js', '/_astro/chunk.js', '/_astro/pre.js']);
  assert.deepEqual(refs.images, ['/a.png', '/a@2x.png', '/b.webp', '/go.png']);
  assert.deepEqual(refs.stylesheets, []);
});

test('attributes: quoted, unquoted, bare, with entities decoded', () => {
  const attrs = attributes('<link rel=icon href="/x?a=1&amp;b=2" data-ui title=\'a "b"\'>');
  assert.equal(attrs.get('rel'), 'icon');
  assert.equal(attrs.get('href'), '/x?a=1&b=2');
  assert.equal(attrs.get('data-ui'), '');
  assert.equal(attrs.get('title'), 'a "b"');
  assert.equal(decodeEntities('client&#39;s &#x27;a&#x27; &lt;b&gt; &unknown;'), "client's 'a' <b> &unknown;");
});

test('CSS urls that load something; data: URIs and fragments do not', () => {
  const css =
    '@import "base.css";.a{background:url(/img/a.png)}.b{src:url("../fonts/x.woff2") format("woff2")}' +
    ".c{background:url(data:image/svg+xml;base64,AAAA)}/* url(/commented.png) */.d{mask:url(#m)}.e{background:url( '/img/a.png' )}";
  assert.deepEqual(cssUrls(css), ['/img/a.png', '../fonts/x.woff2', 'base.css']);
});

test('URLs resolve to paths in dist/; other origins cannot be weighed', () => {
  assert.equal(distPath('/_astro/BaseLayout.CVBnhKk1.css', '/en/074-external-traffic-policy/'), '/_astro/BaseLayout.CVBnhKk1.css');
  assert.equal(distPath('../fonts/x%20y.woff2', '/_astro/BaseLayout.css'), '/fonts/x y.woff2');
  assert.equal(distPath('favicon.svg', '/en/074-external-traffic-policy/'), '/en/074-external-traffic-policy/favicon.svg');
  assert.equal(distPath('https://cdn.example/x.js', '/'), null);
  assert.equal(distPath('//cdn.example/x.js', '/'), null);
});

test('weighing: each download gzipped on its own; inline resources reported, not counted twice', () => {
  const html = Buffer.from(PAGE);
  const css = Buffer.from('.a{color:red}'.repeat(200));
  const icon = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>');
  const weight = weighPage([
    { kind: 'html', name: 'index.html', bytes: html },
    { kind: 'css', name: 'a.css', bytes: css },
    { kind: 'image', name: 'favicon.svg', bytes: icon },
    { kind: 'js', name: 'inline script 1', bytes: Buffer.from(SCRIPT), inline: true },
    { kind: 'css', name: 'inline style 1', bytes: Buffer.from('.fact{}'), inline: true },
  ]);
  const gz = (b: Buffer) => gzipSync(b).length;
  assert.equal(gzipSize(css), gz(css));
  assert.deepEqual(weight.total, { raw: html.length + css.length + icon.length, gzip: gz(html) + gz(css) + gz(icon) });
  assert.equal(weight.byKind.css.count, 1);
  assert.ok(weight.byKind.css.gzip < css.length / 10, 'repetitive CSS compresses');
  assert.equal(weight.byKind.js.count, 0);
  assert.equal(weight.inline.js.raw, SCRIPT.length);
  assert.equal(weight.inline.css.count, 1);
  assert.deepEqual(javascriptWeight(weight), { raw: SCRIPT.length, gzip: gz(Buffer.from(SCRIPT)) });
  assert.equal(weight.items.length, 5);
});
