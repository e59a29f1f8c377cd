import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LANGS } from '../../src/site.config.ts';
import { fill, ui } from '../../src/i18n/ui.ts';

const placeholders = (s: string): string[] => [...s.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]!).sort();

test('every language has every interface string, none empty', () => {
  const keys = Object.keys(ui('zh')).sort();
  for (const lang of LANGS) {
    assert.deepEqual(Object.keys(ui(lang)).sort(), keys, `keys of ${lang}`);
    for (const [key, value] of Object.entries(ui(lang))) assert.notEqual(value.trim(), '', `${lang}.${key} is empty`);
  }
});

test('a string asks for the same placeholders in every language', () => {
  for (const key of Object.keys(ui('zh')) as (keyof ReturnType<typeof ui>)[]) {
    for (const lang of LANGS) assert.deepEqual(placeholders(ui(lang)[key]), placeholders(ui('zh')[key]), `${lang}.${key}`);
  }
});

test('no string is left untranslated (the same text in both languages)', () => {
  const keys = Object.keys(ui('zh')) as (keyof ReturnType<typeof ui>)[];
  assert.deepEqual(
    keys.filter((key) => ui('zh')[key] === ui('en')[key]),
    [],
  );
});

test('fill replaces every placeholder', () => {
  assert.equal(fill('{series} 系列', { series: 'Kubernetes' }), 'Kubernetes 系列');
  assert.equal(fill('{site}: all articles', { site: 'Measured' }), 'Measured: all articles');
});

test('fill refuses a missing value and a value nobody asked for', () => {
  assert.throws(() => fill('{series} series', {}), /needs \{series\}, got no value for it/);
  assert.throws(() => fill('{series} series', { series: 'K', site: 'x' }), /has no placeholder for \{site\}/);
});
