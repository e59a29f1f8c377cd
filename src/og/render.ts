// The card (card.ts) as a PNG, by resvg with the fonts from npm (fonts.ts)
// and no others: the system's fonts are not read, so the same card, packages
// and resvg give the same bytes on any machine, and a build needs nothing
// installed besides Node and the npm packages.
//
// resvg-js 2.6.2 reads fonts from files only (its fontBuffers option is the
// WebAssembly build's), so each decoded face is written once per process to a
// folder of its own under the system's temporary folder, removed at exit.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { CARD, cardSvg, type CardText } from './card.ts';
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

export function cardPng(card: CardText): Buffer {
  const { svg, faces, uncovered } = cardSetting(card, loadFaces(Object.keys(PACKAGES)));
  if (uncovered.length > 0) {
    const chars = uncovered.map((ch) => `${ch} (${codePoint(ch)})`).join(', ');
    throw new Error(`og:image: "${card.title}": no font of the card has ${chars} (src/og/fonts.ts loads Noto Sans, Noto Sans Mono and Noto Sans SC)`);
  }
  const image = new Resvg(svg, {
    font: { loadSystemFonts: false, fontFiles: faces.map(faceFile), defaultFontFamily: faceName(faces[0]!) },
    fitTo: { mode: 'width', value: CARD.width },
  }).render();
  return image.asPng();
}
