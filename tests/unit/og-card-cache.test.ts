// The Open Graph cards' cache (src/og/card-cache.ts): a card is drawn once per
// content and read back after; a changed text, font or resvg is another key; an
// entry cut short or changed is drawn again, never served; a cache that cannot
// be written costs nothing but the cache (one warning).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CARD, type CardText } from '../../src/og/card.ts';
import { CardCache, cardKey, pngProblem } from '../../src/og/card-cache.ts';
import { cardPng, cardPngKey, cardSetting, drawCard } from '../../src/og/render.ts';
import { loadFaces, PACKAGES, type FontFace } from '../../src/og/fonts.ts';

const card: CardText = {
  lang: 'en',
  series: 'Kubernetes · 74',
  site: 'shice',
  title: 'What externalTrafficPolicy: Local does to a client’s address',
  titlePhrases: ['What externalTrafficPolicy: Local does to a client’s address'],
  headlines: [{ value: '10.0.0.9', label: 'the client address the backend saw' }],
  footer: 'Every number comes from a real run.',
};
const other: CardText = { ...card, title: 'Another title', titlePhrases: ['Another title'] };

/** One real drawing, shared: the fakes below hand it out and count. */
const drawn = drawCard(cardSetting(card, loadFaces(Object.keys(PACKAGES))).svg, cardSetting(card, loadFaces(Object.keys(PACKAGES))).faces);

function counting(png: Buffer = drawn) {
  const calls: string[] = [];
  return { calls, draw: (svg: string, _faces: readonly FontFace[]) => (calls.push(svg), png) };
}

function folder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'shice-og-cache-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a drawn card is a whole PNG of the card size; one cut short, changed or of another size is not', () => {
  assert.equal(pngProblem(drawn, CARD), null);
  assert.equal(pngProblem(drawn.subarray(0, drawn.length - 1), CARD), 'cut short');
  assert.equal(pngProblem(drawn.subarray(0, 100), CARD), 'cut short');
  assert.equal(pngProblem(Buffer.alloc(0), CARD), 'no PNG signature');
  assert.equal(pngProblem(Buffer.from('<html>not a png</html>'), CARD), 'no PNG signature');
  const flipped = Buffer.from(drawn);
  flipped[flipped.length >> 1]! ^= 0xff;
  assert.match(pngProblem(flipped, CARD) ?? '', /CRC mismatch/);
  assert.equal(pngProblem(drawn, { width: 600, height: 315 }), '1200×630, not 600×315');
  assert.equal(pngProblem(Buffer.concat([drawn, Buffer.from([0])]), CARD), 'bytes after IEND');
});

test('the same card twice: drawn once, read back the second time, the same bytes, and nothing half-written left', (t) => {
  const dir = folder(t);
  const cache = new CardCache(dir, CARD, () => assert.fail('no warning expected'));
  const { calls, draw } = counting();
  const first = cardPng(card, { cache, draw });
  const second = cardPng(card, { cache, draw });
  assert.equal(calls.length, 1, 'the second render reads the cache');
  assert.ok(second.equals(first));
  assert.deepEqual(cache.counts, { read: 1, drawn: 1, written: 1 });
  assert.deepEqual(readdirSync(dir), [`${cardPngKey(calls[0]!, cardSetting(card, loadFaces(Object.keys(PACKAGES))).faces)}.png`]);
  // Another process (the next build) with its own cache object reads the same file.
  const next = counting();
  assert.ok(cardPng(card, { cache: new CardCache(dir, CARD), draw: next.draw }).equals(first));
  assert.equal(next.calls.length, 0);
});

test('a changed text is another card: drawn anew, the first one still kept', (t) => {
  const dir = folder(t);
  const cache = new CardCache(dir, CARD);
  const { calls, draw } = counting();
  cardPng(card, { cache, draw });
  cardPng(other, { cache, draw });
  assert.equal(calls.length, 2);
  assert.notEqual(calls[0], calls[1]);
  cardPng(card, { cache, draw });
  cardPng(other, { cache, draw });
  assert.equal(calls.length, 2, 'both are read back');
  assert.equal(readdirSync(dir).length, 2);
});

test("the key follows the SVG, the faces' bytes and resvg's version", () => {
  const { svg, faces } = cardSetting(card, loadFaces(Object.keys(PACKAGES)));
  const key = cardPngKey(svg, faces);
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal(cardPngKey(svg, faces), key, 'the same inputs, the same key');
  assert.notEqual(cardPngKey(svg.replace('Kubernetes', 'Kubernetez'), faces), key);
  assert.notEqual(cardPngKey(svg, faces, '2.6.3'), key);
  assert.notEqual(cardPngKey(svg, faces.slice(1)), key);
  const moreFaces = loadFaces(['Noto Sans SC']).filter((f) => !faces.includes(f));
  assert.notEqual(cardPngKey(svg, [...faces, moreFaces[0]!]), key);
  assert.notEqual(cardKey(['a', 'b']), cardKey(['ab']));
});

test('an entry cut short, changed or not a PNG is drawn again and replaced, never served', (t) => {
  const dir = folder(t);
  const cache = new CardCache(dir, CARD);
  const { calls, draw } = counting();
  cardPng(card, { cache, draw });
  const [name] = readdirSync(dir);
  const entry = join(dir, name!);
  const flipped = Buffer.from(drawn);
  flipped[200]! ^= 0x01;
  for (const bad of [drawn.subarray(0, drawn.length >> 1), Buffer.alloc(0), flipped, Buffer.from('not a png')]) {
    writeFileSync(entry, bad);
    const served = cardPng(card, { cache, draw });
    assert.ok(served.equals(drawn), 'the drawn card, not the entry');
    assert.ok(readFileSync(entry).equals(drawn), 'the entry is replaced by the drawn card');
  }
  assert.equal(calls.length, 5);
});

test('a cache folder that cannot be written: every card still drawn, one warning, nothing written', (t) => {
  const dir = folder(t);
  // A file where the folder would be: no user, root included, can make a folder under it.
  writeFileSync(join(dir, 'a-file'), '');
  const warnings: string[] = [];
  const cache = new CardCache(join(dir, 'a-file', 'og-cards'), CARD, (line) => warnings.push(line));
  const { calls, draw } = counting();
  const first = cardPng(card, { cache, draw });
  cardPng(other, { cache, draw });
  cardPng(card, { cache, draw });
  assert.ok(first.equals(drawn));
  assert.equal(calls.length, 3, 'each drawn, none cached');
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0]!, /^og:image: the card cache .*a-file\/og-cards cannot be written \(ENOTDIR\); the cards are drawn without it$/);
  assert.deepEqual(readdirSync(dir), ['a-file']);
  assert.deepEqual(cache.counts, { read: 0, drawn: 3, written: 0 });
});

test('without a cache every card is drawn, as before', () => {
  const { calls, draw } = counting();
  cardPng(card, { draw });
  cardPng(card, { draw, cache: null });
  assert.equal(calls.length, 2);
});
