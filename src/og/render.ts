// The card's SVG (card.ts) as a PNG, by resvg with the fonts it names and no
// others: the system's fonts are not read, so the same card, fonts and resvg
// give the same bytes on any machine. The font is Debian's fonts-wqy-microhei.
import { existsSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';
import { CARD, FONTS } from './card.ts';

/** WenQuanYi Micro Hei and its monospace face (one collection), where Debian and Ubuntu put it. */
export const FONT_FILES = ['/usr/share/fonts/truetype/wqy/wqy-microhei.ttc'];

export function cardPng(svg: string): Buffer {
  const missing = FONT_FILES.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(`og:image: the card's fonts are missing (${missing.join(', ')}): install Debian's fonts-wqy-microhei (apt-get install fonts-wqy-microhei)`);
  }
  const image = new Resvg(svg, {
    font: { loadSystemFonts: false, fontFiles: FONT_FILES, defaultFontFamily: FONTS.sans },
    fitTo: { mode: 'width', value: CARD.width },
  }).render();
  return image.asPng();
}
