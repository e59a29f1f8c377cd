// The og:image card's fonts, from npm: a real WOFF of the package decoded to a
// valid sfnt (the checksums and sizes its directory records), the package's
// unicode-ranges read from its CSS and each character set in the face a browser
// would take, and the card's estimated advances checked against the fonts' own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { textWidth } from '../../src/og/card.ts';
import { covers, faceSfnt, loadFaces, parseFontFaces, parseUnicodeRange, setText } from '../../src/og/fonts.ts';
import { advances, nameTable, readWoff, tableChecksum, woffToSfnt, writeSfnt } from '../../src/og/woff.ts';

const require = createRequire(import.meta.url);
const pkg = (name: string) => dirname(require.resolve(`@fontsource/${name}/package.json`));
const woff = (name: string, file: string) => readFileSync(join(pkg(name), 'files', file));

/** The sfnt's directory: tag, checksum, offset and length of each table. */
function directory(sfnt: Buffer) {
  return Array.from({ length: sfnt.readUInt16BE(4) }, (_, i) => {
    const e = 12 + i * 16;
    return { tag: sfnt.toString('latin1', e, e + 4), checksum: sfnt.readUInt32BE(e + 4), offset: sfnt.readUInt32BE(e + 8), length: sfnt.readUInt32BE(e + 12) };
  });
}

test("a real WOFF decodes to an sfnt whose directory's checksums, offsets and sizes are right, and whose whole checksum is OpenType's", () => {
  for (const [name, file] of [
    ['noto-sans', 'noto-sans-latin-700-normal.woff'],
    ['noto-sans-sc', 'noto-sans-sc-117-400-normal.woff'],
  ] as const) {
    const source = woff(name, file);
    const sfnt = woffToSfnt(source);
    assert.equal(sfnt.readUInt32BE(0), source.readUInt32BE(4), `${file}: the flavour`);
    const entries = directory(sfnt);
    assert.equal(entries.length, source.readUInt16BE(12), `${file}: every table`);
    assert.deepEqual(
      entries.map((e) => e.tag),
      entries.map((e) => e.tag).sort(),
      'sorted by tag',
    );
    // The sizes the WOFF's own directory records (origLength) for each tag.
    const woffSizes = new Map(
      Array.from({ length: source.readUInt16BE(12) }, (_, i) => [source.toString('latin1', 44 + i * 20, 48 + i * 20), source.readUInt32BE(56 + i * 20)]),
    );
    for (const e of entries) {
      assert.equal(e.offset % 4, 0, `${file} ${e.tag}: aligned`);
      assert.ok(e.offset + e.length <= sfnt.length, `${file} ${e.tag}: inside the file`);
      assert.equal(e.length, woffSizes.get(e.tag), `${file} ${e.tag}: its size`);
      const data = Buffer.from(sfnt.subarray(e.offset, e.offset + e.length));
      if (e.tag === 'head') data.writeUInt32BE(0, 8);
      assert.equal(tableChecksum(data), e.checksum, `${file} ${e.tag}: its checksum`);
    }
    assert.equal(tableChecksum(sfnt), 0xb1b0afba, `${file}: the whole file's checksum with head's adjustment`);
    const head = entries.find((e) => e.tag === 'head')!;
    assert.equal(sfnt.readUInt32BE(head.offset + 12), 0x5f0f3cf5, `${file}: head's magic number`);
  }
});

test('a WOFF whose table was damaged, or that is no WOFF, is refused', () => {
  const source = Buffer.from(woff('noto-sans', 'noto-sans-latin-400-normal.woff'));
  assert.throws(() => readWoff(readFileSync(join(pkg('noto-sans'), 'files', 'noto-sans-latin-400-normal.woff2'))), /not a WOFF 1 file/);
  // The first table's recorded checksum, off by one.
  source.writeUInt32BE((source.readUInt32BE(60) + 1) >>> 0, 60);
  assert.throws(() => readWoff(source), /checksum/);
});

test('a face renamed to a family of its own keeps its glyphs and metrics', () => {
  const font = readWoff(woff('noto-sans-sc', 'noto-sans-sc-117-700-normal.woff'));
  const before = advances(font, '的是');
  font.tables.set('name', nameTable('shice test', 'Bold'));
  const renamed = readWoffLike(writeSfnt(font));
  assert.deepEqual(advances(renamed, '的是'), before);
  const name = renamed.tables.get('name')!;
  assert.ok(name.includes(Buffer.from('shice test', 'utf16le').swap16()), 'the family, in UTF-16BE');
});

/** An sfnt's tables, read back (the test's own reader: the code under test writes them). */
function readWoffLike(sfnt: Buffer) {
  return { flavor: sfnt.readUInt32BE(0), tables: new Map(directory(sfnt).map((e) => [e.tag, sfnt.subarray(e.offset, e.offset + e.length)])) };
}

test("the package's CSS: every subset at 400 and 700 with its WOFF file and unicode-range", () => {
  assert.deepEqual(parseUnicodeRange('U+0000-00FF,U+0131, U+2000-206F,U+4??'), [
    [0, 255],
    [0x131, 0x131],
    [0x2000, 0x206f],
    [0x400, 0x4ff],
  ]);
  const css = readFileSync(join(pkg('noto-sans-sc'), '400.css'), 'utf8');
  const faces = parseFontFaces(css);
  assert.equal(faces.length, (css.match(/@font-face/g) ?? []).length);
  assert.ok(faces.every((f) => f.family === 'Noto Sans SC' && f.weight === 400 && /^files\/noto-sans-sc-[\w-]+-400-normal\.woff$/.test(f.file)));
  const latin = faces.find((f) => f.file === 'files/noto-sans-sc-latin-400-normal.woff')!;
  assert.ok(covers(latin, 0x2019) && covers(latin, 0x41) && !covers(latin, 0x4e00));
});

test('each character in the first family that covers it at its weight, in as few runs as the subsets allow; a character none covers is reported', () => {
  const faces = loadFaces(['Noto Sans', 'Noto Sans Mono', 'Noto Sans SC']);
  const en = setText('The same pod’s share', ['Noto Sans', 'Noto Sans SC'], 400, faces);
  assert.deepEqual(
    en.runs.map((r) => [r.text, r.face.file]),
    [['The same pod’s share', 'files/noto-sans-latin-400-normal.woff']],
  );
  const zh = setText('Local 下：包被丢弃', ['Noto Sans SC'], 700, faces);
  assert.deepEqual(zh.uncovered, []);
  assert.equal(zh.runs.map((r) => r.text).join(''), 'Local 下：包被丢弃');
  for (const run of zh.runs) {
    assert.equal(run.face.weight, 700);
    assert.equal(run.face.family, 'Noto Sans SC');
    for (const ch of run.text) assert.ok(covers(run.face, ch.codePointAt(0)!), `${ch} in ${run.face.file}`);
    // Each glyph is really in the face's file, not only in its unicode-range.
    const font = readWoff(woff('noto-sans-sc', run.face.file.replace('files/', '')));
    assert.ok(
      advances(font, run.text).every((a) => a !== undefined),
      `${run.text} in ${run.face.file}`,
    );
  }
  assert.deepEqual(setText('a𓀀b𓀀', ['Noto Sans'], 400, faces).uncovered, ['𓀀']);
  assert.ok(faceSfnt(en.runs[0]!.face) === faceSfnt(en.runs[0]!.face), 'decoded once per process');
});

test("the card's estimated advances are within a few per cent of the fonts' own, a little wide rather than narrow", () => {
  const faces = loadFaces(['Noto Sans', 'Noto Sans Mono', 'Noto Sans SC']);
  const width = (family: string, weight: 400 | 700, text: string) =>
    setText(text, [family], weight, faces)
      .runs.flatMap((run) => advances(readWoff(woff(family.toLowerCase().replaceAll(' ', '-'), run.face.file.replace('files/', ''))), run.text))
      .reduce<number>((sum, a) => sum + a!, 0);
  const title = 'internalTrafficPolicy: traffic from inside the cluster stays on its node too';
  const label = 'Under Local, a pod on worker2, which has no local backend, asks the ClusterIP: the packets are dropped';
  for (const [weight, text] of [
    [700, title],
    [400, label],
  ] as const) {
    const ratio = textWidth(text, 1) / width('Noto Sans', weight, text);
    assert.ok(ratio >= 0.97 && ratio <= 1.12, `Noto Sans ${weight}: the estimate is ${ratio.toFixed(3)} of the real width`);
  }
  assert.equal(textWidth('10.244.2.3 / rc=28', 1, true), width('Noto Sans Mono', 700, '10.244.2.3 / rc=28'));
  assert.equal(textWidth('集群内部的流量', 1), width('Noto Sans SC', 700, '集群内部的流量'));
});
