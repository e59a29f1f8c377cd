import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  absoluteUrl,
  articleOfPath,
  articlePath,
  homePath,
  isLang,
  localizePath,
  notFoundPath,
  otherLang,
  rssPath,
  runRecordPath,
  slugProblem,
  splitLangPath,
} from '../../src/i18n/urls.ts';

const SLUG = '074-external-traffic-policy';

test('Chinese pages live at the root, English ones under /en/', () => {
  assert.equal(homePath('zh'), '/');
  assert.equal(homePath('en'), '/en/');
  assert.equal(articlePath('zh', SLUG), `/${SLUG}/`);
  assert.equal(articlePath('en', SLUG), `/en/${SLUG}/`);
  assert.equal(rssPath('zh'), '/rss.xml');
  assert.equal(rssPath('en'), '/en/rss.xml');
  assert.equal(notFoundPath('en'), '/en/404.html');
});

test('localizePath gives the same page in the other language, both ways', () => {
  assert.equal(localizePath(`/${SLUG}/`, 'en'), `/en/${SLUG}/`);
  assert.equal(localizePath(`/en/${SLUG}/`, 'zh'), `/${SLUG}/`);
  assert.equal(localizePath('/', 'en'), '/en/');
  assert.equal(localizePath('/en/', 'zh'), '/');
  assert.equal(localizePath('/en', 'zh'), '/');
  assert.equal(localizePath('/en/rss.xml', 'zh'), '/rss.xml');
  // Same language: unchanged.
  assert.equal(localizePath(`/en/${SLUG}/`, 'en'), `/en/${SLUG}/`);
});

test('a slug that merely starts with "en" is not the English section', () => {
  assert.deepEqual(splitLangPath('/engine/'), { lang: 'zh', rest: '/engine/' });
  assert.equal(localizePath('/engine/', 'en'), '/en/engine/');
});

test('splitLangPath rejects a relative path', () => {
  assert.throws(() => splitLangPath('en/x/'), /expected a path starting with "\/", got "en\/x\/"/);
});

test('articleOfPath finds the article of an article page and nothing else', () => {
  assert.deepEqual(articleOfPath(`/${SLUG}/`), { lang: 'zh', slug: SLUG });
  assert.deepEqual(articleOfPath(`/en/${SLUG}/`), { lang: 'en', slug: SLUG });
  for (const other of ['/', '/en/', '/rss.xml', '/en/rss.xml', '/404.html', '/en/404.html', '/_astro/x.css', `/${SLUG}`, '/Bad_Slug/']) {
    assert.equal(articleOfPath(other), null, other);
  }
});

test('slugs are lowercase words joined by dashes, and never a language code', () => {
  assert.equal(slugProblem(SLUG), null);
  assert.match(slugProblem('en') ?? '', /language code/);
  assert.match(slugProblem('Bad Slug') ?? '', /not lowercase letters and digits/);
  assert.match(slugProblem('a--b') ?? '', /single dashes/);
  assert.throws(() => articlePath('zh', 'en'), /articlePath: slug "en" is a language code/);
});

test('languages: the two codes and the way between them', () => {
  assert.equal(isLang('zh'), true);
  assert.equal(isLang('en'), true);
  assert.equal(isLang('zh-CN'), false);
  assert.equal(otherLang('zh'), 'en');
  assert.equal(otherLang('en'), 'zh');
});

test('absoluteUrl puts a path on the public origin', () => {
  assert.equal(absoluteUrl(`/en/${SLUG}/`, 'https://shice.example'), `https://shice.example/en/${SLUG}/`);
  assert.equal(absoluteUrl('/', 'https://shice.example/'), 'https://shice.example/');
  assert.throws(() => absoluteUrl('en/', 'https://shice.example'), /expected a path starting with "\/"/);
});

test('a run record lives under its article, one page per run, in each language', () => {
  assert.equal(runRecordPath('zh', SLUG), `/${SLUG}/run/`);
  assert.equal(runRecordPath('en', SLUG), `/en/${SLUG}/run/`);
  assert.equal(runRecordPath('zh', SLUG, { variant: 'nftables' }), `/${SLUG}/run/nftables/`);
  assert.equal(localizePath(runRecordPath('zh', SLUG, { variant: 'nftables' }), 'en'), `/en/${SLUG}/run/nftables/`);
  // Another environment's runs: its name first, then its variant's.
  assert.equal(runRecordPath('zh', SLUG, { environment: 'lab' }), `/${SLUG}/run/lab/`);
  assert.equal(runRecordPath('en', SLUG, { environment: 'lab', variant: 'nftables' }), `/en/${SLUG}/run/lab/nftables/`);
  // A run record is not an article page.
  assert.equal(articleOfPath(runRecordPath('en', SLUG)), null);
  assert.throws(() => runRecordPath('zh', SLUG, { variant: '../x' }), /runRecordPath: "\.\.\/x" is not lowercase/);
  assert.throws(() => runRecordPath('zh', SLUG, { environment: 'Lab' }), /runRecordPath: "Lab" is not lowercase/);
});
