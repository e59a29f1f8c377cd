// An article's Open Graph card, 1200×630: the series, the title, and the
// article's headline values with their labels, as SVG for the rasterizer
// (render.ts). Pure: text is measured by an estimate of the fonts' advances
// (CJK full width, Latin by letter class), wrapped, shrunk or cut to fit, and
// every piece of text is escaped.
import { xmlText } from '../xml-text.ts';

export const CARD = { width: 1200, height: 630 } as const;

export interface CardText {
  lang: 'zh' | 'en';
  /** "Kubernetes · 74" */
  series: string;
  site: string;
  title: string;
  /** The title's unbreakable pieces (titlePhrases for Chinese; words are split here). */
  titlePhrases: string[];
  headlines: { value: string; label: string }[];
  /** One line at the foot: what the site is. */
  footer: string;
}

/**
 * The families render.ts loads (Debian's fonts-wqy-microhei, which the browser suite needs too): one
 * face for text, its monospace twin for values. It has no bold: a stroke of the text's own colour
 * stands in for one (BOLD). Noto Sans CJK has bold faces, but laying out a card with it took four to
 * six times as long (its layout tables are large), and the build lays out one card per page.
 */
export const FONTS = { sans: 'WenQuanYi Micro Hei', mono: 'WenQuanYi Micro Hei Mono' } as const;

const COLORS = { bg: '#fcfcfb', fg: '#1b1d21', muted: '#50565f', accent: '#0a57a8', rule: '#d5d9df' } as const;
const PAD = 72;
const WIDTH = CARD.width - 2 * PAD;

const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/** The advance of one character in ems. */
function advance(ch: string, mono: boolean): number {
  if (WIDE.test(ch)) return 1;
  // WenQuanYi Micro Hei Mono sets Latin at 0.6 em (CJK is full width, above).
  if (mono) return 0.6;
  if (/[il.,:;'|!`]/.test(ch)) return 0.28;
  if (/[ ]/.test(ch)) return 0.25;
  if (/[A-Z]|[mw@%]/.test(ch)) return 0.68;
  return 0.56;
}

/** The estimated width of `text` at `size` px. */
export function textWidth(text: string, size: number, mono = false): number {
  let ems = 0;
  for (const ch of text) ems += advance(ch, mono);
  return ems * size;
}

/**
 * `pieces` set on lines of at most `width` px, in order; a piece wider than a line is
 * broken between characters. At most `max` lines: the last one ends with "…" when cut.
 */
export function wrap(pieces: readonly string[], size: number, width: number, max: number, mono = false): string[] {
  const lines: string[] = [];
  let line = '';
  const push = () => {
    if (line.trim()) lines.push(line.trim());
    line = '';
  };
  for (const piece of pieces) {
    if (textWidth(line + piece, size, mono) <= width) {
      line += piece;
      continue;
    }
    push();
    for (const ch of piece) {
      if (textWidth(line + ch, size, mono) > width) push();
      line += ch;
    }
  }
  push();
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, max);
  let last = kept[max - 1]!;
  while (last && textWidth(`${last}…`, size, mono) > width) last = [...last].slice(0, -1).join('');
  kept[max - 1] = `${last.trimEnd()}…`;
  return kept;
}

/** What a line may not break inside: a word and the space after it, and in Chinese each character besides. */
export function breakPieces(text: string): string[] {
  return text.match(/[\x21-\x7e]+ ?| |[^\x21-\x7e ]/gu) ?? [];
}

export function escapeXml(text: string): string {
  // Stripped of what XML 1.0 forbids first (src/xml-text.ts): no escape can write a vertical tab.
  return xmlText(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

interface Text {
  x: number;
  y: number;
  size: number;
  text: string;
  family: string;
  bold?: boolean;
  fill: string;
  anchor?: 'end';
}

/** The stroke, in ems, that makes the one weight look bold. */
const BOLD = 0.03;

const textEl = (t: Text) =>
  `<text x="${t.x}" y="${t.y}" font-family="${t.family}" font-size="${t.size}" fill="${t.fill}"${t.bold ? ` stroke="${t.fill}" stroke-width="${(t.size * BOLD).toFixed(2)}" stroke-linejoin="round"` : ''}${t.anchor ? ` text-anchor="${t.anchor}"` : ''}>${escapeXml(t.text)}</text>`;

const TITLE_SIZES = [58, 52, 46];

function titleLayout(pieces: readonly string[]): { size: number; lines: string[] } {
  for (const max of [2, 3]) {
    for (const size of TITLE_SIZES) {
      const lines = wrap(pieces, size, WIDTH, Infinity);
      if (lines.length <= max) return { size, lines };
    }
  }
  const size = TITLE_SIZES.at(-1)!;
  return { size, lines: wrap(pieces, size, WIDTH, 3) };
}

/** The card as an SVG document. */
export function cardSvg(card: CardText): string {
  const out: Text[] = [];
  out.push({ x: PAD, y: 84, size: 26, text: card.series, family: FONTS.sans, fill: COLORS.muted });
  out.push({ x: CARD.width - PAD, y: 84, size: 30, text: card.site, family: FONTS.sans, bold: true, fill: COLORS.accent, anchor: 'end' });

  // The title: as large as fits in two lines, else in three, else cut after three.
  const { size, lines: title } = titleLayout(card.lang === 'en' ? breakPieces(card.title) : card.titlePhrases);
  const lead = Math.round(size * 1.25);
  title.forEach((line, i) => out.push({ x: PAD, y: 160 + i * lead, size, text: line, family: FONTS.sans, bold: true, fill: COLORS.fg }));

  // The headlines: a row each, the value (monospace) on the left, its label beside it.
  const rows = card.headlines.slice(0, 3);
  const top = 160 + (title.length - 1) * lead + 80;
  const rowHeight = Math.min(84, Math.floor((CARD.height - 70 - top) / Math.max(rows.length, 1)));
  const valueWidth = 440;
  const labelX = PAD + valueWidth + 32;
  const labelWidth = CARD.width - PAD - labelX;
  rows.forEach((row, i) => {
    const y = top + i * rowHeight;
    const valueSize = Math.max(18, Math.min(34, Math.floor(valueWidth / Math.max(textWidth(row.value, 1, true), 1))));
    out.push({ x: PAD, y: y + 30, size: valueSize, text: row.value, family: FONTS.mono, bold: true, fill: COLORS.accent });
    wrap(breakPieces(row.label), 20, labelWidth, 2).forEach((line, j) =>
      out.push({ x: labelX, y: y + 16 + j * 28, size: 20, text: line, family: FONTS.sans, fill: COLORS.muted }),
    );
  });

  out.push({ x: PAD, y: CARD.height - 40, size: 20, text: card.footer, family: FONTS.sans, fill: COLORS.muted });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD.width}" height="${CARD.height}" viewBox="0 0 ${CARD.width} ${CARD.height}">`,
    `<rect width="${CARD.width}" height="${CARD.height}" fill="${COLORS.bg}"/>`,
    `<rect width="12" height="${CARD.height}" fill="${COLORS.accent}"/>`,
    `<rect x="${PAD}" y="${CARD.height - 76}" width="${WIDTH}" height="1" fill="${COLORS.rule}"/>`,
    ...out.map(textEl),
    '</svg>',
  ].join('\n');
}

/** The card in words, for og:image:alt: the title, then each headline's value and label, as sentences. */
export function cardAlt(card: CardText): string {
  const zh = card.lang === 'zh';
  const sentence = (text: string) => (/[.!?。！？]$/.test(text) ? text : `${text}${zh ? '。' : '.'}`);
  const rows = card.headlines.map((h) => sentence(h.label ? `${h.value}${zh ? '：' : ': '}${h.label}` : h.value));
  return [sentence(card.title), ...rows].join(zh ? '' : ' ');
}
