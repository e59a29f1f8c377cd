// WOFF 1 to the TrueType/OpenType file it wraps, for the card's rasterizer
// (resvg reads sfnt, not WOFF). A WOFF file is the font's tables, each
// zlib-compressed unless that made it no smaller, behind a directory that keeps
// each table's original length and checksum; decoding inflates each table and
// writes the sfnt header and directory again. Pure: buffers in, buffers out.
// https://www.w3.org/TR/WOFF/
import { inflateSync } from 'node:zlib';

export interface SfntTables {
  /** The sfnt version: 0x00010000 for TrueType outlines, 'OTTO' for CFF. */
  flavor: number;
  /** Each table by its tag, as the font has it. */
  tables: Map<string, Buffer>;
}

const WOFF_SIGNATURE = 0x774f4646; // 'wOFF'

/** The tables of a WOFF 1 file; throws on anything else (WOFF 2 is Brotli and a transform of its own). */
export function readWoff(woff: Buffer): SfntTables {
  if (woff.length < 44 || woff.readUInt32BE(0) !== WOFF_SIGNATURE) throw new Error('not a WOFF 1 file (no wOFF signature)');
  if (woff.readUInt32BE(8) !== woff.length) throw new Error(`WOFF: the header says ${woff.readUInt32BE(8)} bytes, the file has ${woff.length}`);
  const flavor = woff.readUInt32BE(4);
  const numTables = woff.readUInt16BE(12);
  const tables = new Map<string, Buffer>();
  for (let i = 0; i < numTables; i++) {
    const entry = 44 + i * 20;
    const tag = woff.toString('latin1', entry, entry + 4);
    const offset = woff.readUInt32BE(entry + 4);
    const compLength = woff.readUInt32BE(entry + 8);
    const origLength = woff.readUInt32BE(entry + 12);
    const origChecksum = woff.readUInt32BE(entry + 16);
    if (offset + compLength > woff.length) throw new Error(`WOFF: table ${tag} runs past the end of the file`);
    const stored = woff.subarray(offset, offset + compLength);
    const data = compLength < origLength ? inflateSync(stored) : Buffer.from(stored);
    if (data.length !== origLength) throw new Error(`WOFF: table ${tag} is ${data.length} bytes, its entry says ${origLength}`);
    // head's checksum is of the table with checkSumAdjustment zeroed.
    const sum = tag === 'head' ? tableChecksum(withAdjustment(data, 0)) : tableChecksum(data);
    if (sum !== origChecksum) throw new Error(`WOFF: table ${tag}'s checksum is ${sum.toString(16)}, its entry says ${origChecksum.toString(16)}`);
    tables.set(tag, data);
  }
  return { flavor, tables };
}

/** The OpenType checksum: the table as big-endian 32-bit words, zero-padded, summed modulo 2³². */
export function tableChecksum(data: Buffer): number {
  let sum = 0;
  const whole = data.length & ~3;
  for (let i = 0; i < whole; i += 4) sum = (sum + data.readUInt32BE(i)) >>> 0;
  if (whole < data.length) {
    const tail = Buffer.alloc(4);
    data.copy(tail, 0, whole);
    sum = (sum + tail.readUInt32BE(0)) >>> 0;
  }
  return sum;
}

/** head with its checkSumAdjustment (bytes 8–11) set. */
function withAdjustment(head: Buffer, adjustment: number): Buffer {
  const copy = Buffer.from(head);
  copy.writeUInt32BE(adjustment >>> 0, 8);
  return copy;
}

/** The sfnt file of `font`'s tables: header, directory sorted by tag, tables 4-byte aligned, head's checkSumAdjustment set. */
export function writeSfnt(font: SfntTables): Buffer {
  const tags = [...font.tables.keys()].sort();
  const numTables = tags.length;
  const entrySelector = Math.floor(Math.log2(numTables));
  const searchRange = 2 ** entrySelector * 16;
  const header = Buffer.alloc(12 + numTables * 16);
  header.writeUInt32BE(font.flavor, 0);
  header.writeUInt16BE(numTables, 4);
  header.writeUInt16BE(searchRange, 6);
  header.writeUInt16BE(entrySelector, 8);
  header.writeUInt16BE(numTables * 16 - searchRange, 10);
  const parts: Buffer[] = [header];
  let offset = header.length;
  let headOffset = -1;
  tags.forEach((tag, i) => {
    const data = tag === 'head' ? withAdjustment(font.tables.get(tag)!, 0) : font.tables.get(tag)!;
    if (tag === 'head') headOffset = offset;
    const entry = 12 + i * 16;
    header.write(tag, entry, 'latin1');
    header.writeUInt32BE(tableChecksum(data), entry + 4);
    header.writeUInt32BE(offset, entry + 8);
    header.writeUInt32BE(data.length, entry + 12);
    const padded = Buffer.alloc((data.length + 3) & ~3);
    data.copy(padded);
    parts.push(padded);
    offset += padded.length;
  });
  const file = Buffer.concat(parts);
  if (headOffset >= 0) file.writeUInt32BE((0xb1b0afba - tableChecksum(file)) >>> 0, headOffset + 8);
  return file;
}

/** The sfnt file a WOFF 1 file wraps. */
export const woffToSfnt = (woff: Buffer): Buffer => writeSfnt(readWoff(woff));

/**
 * A name table that names the face `family` (and nothing else: no copyright or licence strings, which
 * the rasterizer never reads), in the Windows platform's UTF-16 as every reader takes it. The card
 * names each face it draws with by such a name of its own (see fonts.ts).
 */
export function nameTable(family: string, subfamily: string): Buffer {
  const names: [number, string][] = [
    [1, family],
    [2, subfamily],
    [4, `${family} ${subfamily}`],
    [6, `${family}-${subfamily}`.replace(/[^\x21-\x7e]|[[\](){}<>/%]/g, '')],
  ];
  const strings = names.map(([, text]) => Buffer.from(text, 'utf16le').swap16());
  const header = Buffer.alloc(6 + names.length * 12);
  header.writeUInt16BE(0, 0);
  header.writeUInt16BE(names.length, 2);
  header.writeUInt16BE(header.length, 4);
  let offset = 0;
  names.forEach(([id], i) => {
    const record = 6 + i * 12;
    header.writeUInt16BE(3, record); // Windows
    header.writeUInt16BE(1, record + 2); // Unicode BMP
    header.writeUInt16BE(0x409, record + 4); // en-US
    header.writeUInt16BE(id, record + 6);
    header.writeUInt16BE(strings[i]!.length, record + 8);
    header.writeUInt16BE(offset, record + 10);
    offset += strings[i]!.length;
  });
  return Buffer.concat([header, ...strings]);
}

/**
 * The advance widths, in ems, of `text`'s characters in the font (cmap format 4, the Basic
 * Multilingual Plane; hmtx). A character the font lacks is undefined.
 */
export function advances(font: SfntTables, text: string): (number | undefined)[] {
  const table = (tag: string) => {
    const t = font.tables.get(tag);
    if (!t) throw new Error(`the font has no ${tag} table`);
    return t;
  };
  const head = table('head');
  const hhea = table('hhea');
  const hmtx = table('hmtx');
  const cmap = table('cmap');
  const unitsPerEm = head.readUInt16BE(18);
  const longMetrics = hhea.readUInt16BE(34);
  let sub = -1;
  for (let i = 0; i < cmap.readUInt16BE(2); i++) {
    const record = 4 + i * 8;
    const platform = cmap.readUInt16BE(record);
    const encoding = cmap.readUInt16BE(record + 2);
    const offset = cmap.readUInt32BE(record + 4);
    if (((platform === 3 && encoding === 1) || platform === 0) && cmap.readUInt16BE(offset) === 4) sub = offset;
  }
  if (sub < 0) throw new Error('the font has no cmap subtable of format 4');
  const segments = cmap.readUInt16BE(sub + 6) / 2;
  const ends = sub + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  const glyphOf = (cp: number): number => {
    for (let s = 0; s < segments; s++) {
      if (cmap.readUInt16BE(ends + s * 2) < cp) continue;
      const start = cmap.readUInt16BE(starts + s * 2);
      if (start > cp) return 0;
      const delta = cmap.readUInt16BE(deltas + s * 2);
      const rangeOffset = cmap.readUInt16BE(rangeOffsets + s * 2);
      if (rangeOffset === 0) return (cp + delta) & 0xffff;
      const glyph = cmap.readUInt16BE(rangeOffsets + s * 2 + rangeOffset + (cp - start) * 2);
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
  return [...text].map((ch) => {
    const cp = ch.codePointAt(0)!;
    const glyph = cp > 0xffff ? 0 : glyphOf(cp);
    if (glyph === 0) return undefined;
    return hmtx.readUInt16BE(Math.min(glyph, longMetrics - 1) * 4) / unitsPerEm;
  });
}
