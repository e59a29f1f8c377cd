// The card's fonts, from npm (@fontsource): Noto Sans for English, Noto Sans
// Mono for values, Noto Sans SC for Chinese, each split into unicode-range
// subsets (one WOFF file per subset and weight, listed in the package's
// <weight>.css). A text names its families in order, as CSS does; each
// character is set in the first family that has a subset covering it, and in
// that subset: what a browser does with the same @font-face rules. The pure
// part parses the CSS and picks the subsets; the edge (loadFaces) reads the
// package's files, once per process.
//
// resvg (2.6.2) is given exactly the subsets a card needs, each renamed to a
// family of its own, and each run of the card's text names the one face it is
// set in: resvg's own fallback picks the first loaded font that has a
// character, whatever its weight or the text's family list, so Chinese in a
// bold title could come out regular, and ’ in an English card from the CJK font.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { nameTable, readWoff, writeSfnt } from './woff.ts';

export type Weight = 400 | 700;

/** One @font-face rule: a subset of a family at one weight. */
export interface FontFace {
  family: string;
  weight: Weight;
  /** The WOFF file, relative to the package (files/noto-sans-sc-42-700-normal.woff). */
  file: string;
  /** Inclusive code point ranges. */
  ranges: [number, number][];
}

/** The families the card's texts name, and the npm package of each. */
export const PACKAGES: Record<string, string> = {
  'Noto Sans': '@fontsource/noto-sans',
  'Noto Sans Mono': '@fontsource/noto-sans-mono',
  'Noto Sans SC': '@fontsource/noto-sans-sc',
};

/** "U+0000-00FF,U+0131" → [[0, 255], [305, 305]]. */
export function parseUnicodeRange(value: string): [number, number][] {
  return value.split(',').map((part) => {
    const m = /^\s*U\+([0-9a-f?]+)(?:-([0-9a-f]+))?\s*$/i.exec(part);
    if (!m) throw new Error(`unicode-range: cannot read "${part}"`);
    if (m[1]!.includes('?')) return [parseInt(m[1]!.replace(/\?/g, '0'), 16), parseInt(m[1]!.replace(/\?/g, 'f'), 16)];
    const lo = parseInt(m[1]!, 16);
    return [lo, m[2] ? parseInt(m[2], 16) : lo];
  });
}

/** The normal-style @font-face rules of a fontsource CSS file, in its order, each with its WOFF (not WOFF 2) file. */
export function parseFontFaces(css: string): FontFace[] {
  const faces: FontFace[] = [];
  for (const [, body] of css.matchAll(/@font-face\s*\{([^}]*)\}/g)) {
    const prop = (name: string) => new RegExp(`(?:^|;)\\s*${name}\\s*:\\s*([^;]*)`).exec(body!)?.[1]?.trim();
    if ((prop('font-style') ?? 'normal') !== 'normal') continue;
    const family = prop('font-family')?.replace(/^['"]|['"]$/g, '');
    const weight = Number(prop('font-weight'));
    const file = /url\(\.?\/?([^)]+\.woff)\)\s*format\(['"]woff['"]\)/.exec(prop('src') ?? '')?.[1];
    const range = prop('unicode-range');
    if (!family || !file || (weight !== 400 && weight !== 700)) continue;
    faces.push({ family, weight, file, ranges: range ? parseUnicodeRange(range) : [[0, 0x10ffff]] });
  }
  return faces;
}

export const covers = (face: FontFace, cp: number): boolean => face.ranges.some(([lo, hi]) => cp >= lo && cp <= hi);

/** A run of a text set in one face. */
export interface FaceRun {
  text: string;
  face: FontFace;
}

export interface Setting {
  runs: FaceRun[];
  /** The characters no family of the list covers at this weight (they would be drawn as nothing). */
  uncovered: string[];
}

/**
 * `text` in runs of one face each: a character goes to the first of `families` with a subset at
 * `weight` that covers it, the subset of the run before when that one covers it too (the subsets
 * of one family and weight are one font cut apart), else the first such subset in the CSS's order.
 */
export function setText(text: string, families: readonly string[], weight: Weight, faces: readonly FontFace[]): Setting {
  const runs: FaceRun[] = [];
  const uncovered: string[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const last = runs.at(-1);
    let face: FontFace | undefined;
    for (const family of families) {
      const candidates = faces.filter((f) => f.family === family && f.weight === weight && covers(f, cp));
      if (candidates.length === 0) continue;
      face = last && candidates.includes(last.face) ? last.face : candidates[0];
      break;
    }
    if (!face) {
      if (!uncovered.includes(ch)) uncovered.push(ch);
      continue;
    }
    if (last && last.face === face) last.text += ch;
    else runs.push({ text: ch, face });
  }
  return { runs, uncovered };
}

/** The family a face is loaded under for the rasterizer: its own, so that a run can name exactly it. */
export const faceName = (face: FontFace): string => `shice ${face.file.replace(/^.*\//, '').replace(/\.woff$/, '')}`;

// The edge: the packages' CSS and files, read once per process.

const require = createRequire(import.meta.url);
const packageDir = (family: string) => {
  const name = PACKAGES[family];
  if (!name) throw new Error(`og:image: no package for the font family "${family}"`);
  return dirname(require.resolve(`${name}/package.json`));
};

const facesCache = new Map<string, FontFace[]>();

/** Every face of `families` at 400 and 700, in the order their CSS lists them. */
export function loadFaces(families: readonly string[]): FontFace[] {
  return families.flatMap((family) =>
    ([400, 700] as const).flatMap((weight) => {
      const key = `${family}/${weight}`;
      let faces = facesCache.get(key);
      if (!faces) {
        faces = parseFontFaces(readFileSync(join(packageDir(family), `${weight}.css`), 'utf8')).filter((f) => f.family === family);
        facesCache.set(key, faces);
      }
      return faces;
    }),
  );
}

const sfntCache = new Map<FontFace, Buffer>();

/** The face as a TrueType/OpenType file named faceName(face), decoded from its WOFF once per process. */
export function faceSfnt(face: FontFace): Buffer {
  let sfnt = sfntCache.get(face);
  if (!sfnt) {
    const font = readWoff(readFileSync(join(packageDir(face.family), face.file)));
    font.tables.set('name', nameTable(faceName(face), face.weight === 700 ? 'Bold' : 'Regular'));
    sfnt = writeSfnt(font);
    sfntCache.set(face, sfnt);
  }
  return sfnt;
}
