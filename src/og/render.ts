// The card (card.ts) as a PNG, by resvg with the fonts from npm (fonts.ts)
// and no others: the system's fonts are not read, so the same card, packages
// and resvg give the same bytes on any machine, and a build needs nothing
// installed besides Node and the npm packages.
//
// resvg-js 2.6.2 reads fonts from files only (its fontBuffers option is the
// WebAssembly build's), so each decoded face is written once per process to a
// folder of its own under the system's temporary folder, removed at exit.
//
// Drawing is the build's costly part (a quarter of a second a card): given a
// cache (card-cache.ts), a card is drawn once per content, keyed by its SVG,
// the bytes of the faces it names, resvg's version and the options it is
// drawn with, and read back on every later build.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg, type ResvgRenderOptions } from '@resvg/resvg-js';
import { CARD, cardSvg, type CardText } from './card.ts';
import { cardKey, type CardCache } from './card-cache.ts';
import { faceName, faceSfnt, loadFaces, PACKAGES, setText, type FontFace } from './fonts.ts';

/** The card's SVG with each run naming the face that sets it, the faces it names, and the characters none covers. */
export function cardSetting(card: CardText, faces: readonly FontFace[]): { svg: string; faces: FontFace[]; uncovered: string[] } {
  const used = new Set<FontFace>();
  const uncovered = new Set<string>();
  const svg = cardSvg(card, (text, families, weight) => {
    const setting = setText(text, families, weight, faces);
    for (const run of setting.runs) used.add(run.face);
    for (const ch of setting.uncovered) uncovered.add(ch);
    return setting.runs.map((run) => ({ text: run.text, families: [faceName(run.face)] }));
  });
  return { svg, faces: [...used].sort((a, b) => faceName(a).localeCompare(faceName(b))), uncovered: [...uncovered] };
}

let folder: string | undefined;
const written = new Map<FontFace, string>();

/** The face's sfnt file, written once per process. */
function faceFile(face: FontFace): string {
  let file = written.get(face);
  if (!file) {
    if (!folder) {
      const made = mkdtempSync(join(tmpdir(), 'shice-og-fonts-'));
      process.once('exit', () => rmSync(made, { recursive: true, force: true }));
      folder = made;
    }
    file = join(folder, `${faceName(face).replace(/[^\w-]/g, '_')}.ttf`);
    writeFileSync(file, faceSfnt(face));
    written.set(face, file);
  }
  return file;
}

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** resvg's options but the font files' paths (which differ between processes, their bytes not). */
const drawOptions = (faces: readonly FontFace[]) =>
  ({
    font: { loadSystemFonts: false, defaultFontFamily: faceName(faces[0]!) },
    fitTo: { mode: 'width', value: CARD.width },
  }) satisfies ResvgRenderOptions;

/** resvg drawing the card's SVG with exactly these faces. */
export function drawCard(svg: string, faces: readonly FontFace[]): Buffer {
  const options = drawOptions(faces);
  return new Resvg(svg, { ...options, font: { ...options.font, fontFiles: faces.map(faceFile) } }).render().asPng();
}

const faceHashes = new Map<FontFace, string>();

/** The SHA-256 of the face as resvg reads it (decoded from its WOFF by woff.ts), once per process. */
function faceHash(face: FontFace): string {
  let hash = faceHashes.get(face);
  if (!hash) {
    hash = createHash('sha256').update(faceSfnt(face)).digest('hex');
    faceHashes.set(face, hash);
  }
  return hash;
}

/** The installed resvg-js's version (its native binding is published with the same). */
export const RESVG_VERSION: string = (createRequire(import.meta.url)('@resvg/resvg-js/package.json') as { version: string }).version;

/**
 * The key of a card's PNG in the cache: its SVG (every text, position and face name), each face's
 * bytes, resvg's version and the options it is drawn with; what else goes in is bumped here.
 */
export function cardPngKey(svg: string, faces: readonly FontFace[], resvg: string = RESVG_VERSION): string {
  return cardKey({
    format: 1,
    svg,
    faces: faces.map((face) => [faceName(face), faceHash(face)]),
    resvg,
    options: drawOptions(faces),
  });
}

export interface CardPngOptions {
  /** Where cards already drawn are kept (card-cache.ts); none draws every time. */
  cache?: CardCache | null;
  /** What draws a card not in the cache (the tests count its calls). */
  draw?: (svg: string, faces: readonly FontFace[]) => Buffer;
}

export function cardPng(card: CardText, options: CardPngOptions = {}): Buffer {
  const { svg, faces, uncovered } = cardSetting(card, loadFaces(Object.keys(PACKAGES)));
  if (uncovered.length > 0) {
    const chars = uncovered.map((ch) => `${ch} (${codePoint(ch)})`).join(', ');
    throw new Error(`og:image: "${card.title}": no font of the card has ${chars} (src/og/fonts.ts loads Noto Sans, Noto Sans Mono and Noto Sans SC)`);
  }
  const draw = options.draw ?? drawCard;
  if (!options.cache) return draw(svg, faces);
  return options.cache.png(cardPngKey(svg, faces), () => draw(svg, faces));
}
