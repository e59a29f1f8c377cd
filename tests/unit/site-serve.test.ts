// What the preview (and a static host) answers for the built site's paths: pages
// with and without their slash, the language's own 404 page, nothing outside the
// base path or above the output folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerFor, contentType, type ServeSite } from '../../src/site-serve.ts';

const FILES = new Set([
  'index.html',
  '404.html',
  'en/index.html',
  'en/404.html',
  '074-x/index.html',
  'en/074-x/index.html',
  'sitemap-index.xml',
  '_astro/a.css',
]);
const at = (base: string): ServeSite => ({ base, sections: ['en'], isFile: (p) => FILES.has(p) });

test('a page path is its index.html, with or without the slash; files are themselves', () => {
  const site = at('/');
  assert.deepEqual(answerFor('/', site), { status: 200, file: 'index.html' });
  assert.deepEqual(answerFor('/074-x/', site), { status: 200, file: '074-x/index.html' });
  assert.deepEqual(answerFor('/074-x', site), { status: 200, file: '074-x/index.html' });
  assert.deepEqual(answerFor('/en/074-x/?utm=1#top', site), { status: 200, file: 'en/074-x/index.html' });
  assert.deepEqual(answerFor('/_astro/a.css', site), { status: 200, file: '_astro/a.css' });
  assert.equal(contentType('_astro/a.css'), 'text/css; charset=utf-8');
  assert.equal(contentType('x.bin'), 'application/octet-stream');
});

test('a missing page is answered in its section’s language: the English 404 under /en/, the root one elsewhere', () => {
  const site = at('/');
  assert.deepEqual(answerFor('/en/no-such-article/', site), { status: 404, file: 'en/404.html' });
  assert.deepEqual(answerFor('/en', site), { status: 200, file: 'en/index.html' });
  assert.deepEqual(answerFor('/english/x', site), { status: 404, file: '404.html' }, 'a prefix of a section is not the section');
  assert.deepEqual(answerFor('/no-such/', site), { status: 404, file: '404.html' });
  assert.deepEqual(answerFor('/x', { ...site, isFile: () => false }), { status: 404, file: null });
});

test('under a base path: only paths inside it, and nothing above the output folder', () => {
  const site = at('/shice/');
  assert.deepEqual(answerFor('/shice/', site), { status: 200, file: 'index.html' });
  assert.deepEqual(answerFor('/shice', site), { status: 200, file: 'index.html' });
  assert.deepEqual(answerFor('/shice/en/missing', site), { status: 404, file: 'en/404.html' });
  assert.deepEqual(answerFor('/074-x/', site), { status: 404, file: '404.html' }, 'outside the base path');
  assert.deepEqual(answerFor('/shice/../../etc/passwd', site), { status: 404, file: '404.html' });
  assert.deepEqual(answerFor('/shice/%2e%2e/%2e%2e/etc/passwd', site), { status: 404, file: '404.html' });
  assert.deepEqual(answerFor('/shice/%00', site), { status: 404, file: '404.html' });
  assert.deepEqual(answerFor('/shice/%E0%A4%A', site), { status: 404, file: '404.html' }, 'a path that does not decode');
});
