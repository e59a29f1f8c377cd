import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hreflangAlternates } from '../../src/i18n/alternates.ts';

const SITE = 'https://shice.example';

test('an article in both languages: zh-CN, en, and x-default on the Chinese page', () => {
  assert.deepEqual(hreflangAlternates({ zh: '/a/', en: '/en/a/' }, SITE), [
    { hreflang: 'zh-CN', href: 'https://shice.example/a/' },
    { hreflang: 'en', href: 'https://shice.example/en/a/' },
    { hreflang: 'x-default', href: 'https://shice.example/a/' },
  ]);
});

test('order follows the site languages, not the order of the keys given', () => {
  const alternates = hreflangAlternates({ en: '/en/a/', zh: '/a/' }, SITE);
  assert.deepEqual(
    alternates.map((a) => a.hreflang),
    ['zh-CN', 'en', 'x-default'],
  );
});

test('an article written only in English: no zh-CN alternate, x-default is the English page', () => {
  assert.deepEqual(hreflangAlternates({ en: '/en/b/' }, SITE), [
    { hreflang: 'en', href: 'https://shice.example/en/b/' },
    { hreflang: 'x-default', href: 'https://shice.example/en/b/' },
  ]);
});

test('no page in any language is a mistake', () => {
  assert.throws(() => hreflangAlternates({}, SITE), /expected a path in at least one language, got none/);
});
