// An article's Open Graph card, 1200×630: the series, the title, and the
// article's headline values with their labels, as SVG for the rasterizer
// (render.ts). Pure: text is measured by an estimate of the fonts' advances
// (CJK full width, Latin by letter class), wrapped, shrunk or cut to fit, and
// every piece of text is escaped. Which face sets each character is the
// caller's (fonts.ts, from the fonts' unicode-ranges): cardSvg takes it as a
// function, and without one names the families as CSS would.
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
 * The families of each kind of text, in order (fonts.ts loads them from npm): Latin in Noto Sans in
 * both languages, Chinese (and its full-width punctuation) in Noto Sans SC, values in Noto Sans Mono.
 * Each at 400 and 700.
 */
export const FONTS = {
  zh: { sans: ['Noto Sans', 'Noto Sans SC'], mono: ['Noto Sans Mono', 'Noto Sans SC'] },
  en: { sans: ['Noto Sans', 'Noto Sans SC'], mono: ['Noto Sans Mono', 'Noto Sans SC'] },
} as const satisfies Record<CardText['lang'], Record<'sans' | 'mono', readonly string[]>>;

const COLORS = { bg: '#fcfcfb', fg: '#1b1d21', muted: '#50565f', accent: '#0a57a8', rule: '#d5d9df' } as const;
const PAD = 72;
const WIDTH = CARD.width - 2 * PAD;

const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/** The advance of one character in ems. */
function advance(ch: string, mono: boolean): number {
  if (WIDE.test(ch)) return 1;
  // Noto Sans Mono sets everything at 0.6 em (CJK, from Noto Sans SC, is full width, above).
  if (mono) return 0.6;
  // Noto Sans Bold's averages of each class (regular is about 5% narrower, Noto Sans SC's Latin as wide):
  // the title is bold, and a label measured a little wide wraps a little early, never past the edge.
  if (/[il.,:;'|!`’]/.test(ch)) return 0.32;
  if (/[ ]/.test(ch)) return 0.26;
  if (/[A-Z]|[mw@%]/.test(ch)) return 0.7;
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

/**
 * What a line may not break inside: a word and the space after it, and in Chinese each character
 * besides; a closing mark (，。：) stays with what it follows, so that no line starts with one.
 */
export function breakPieces(text: string): string[] {
  return text.match(/[\x21-\x7e]+[，。、：；！？）》」』]* ?| |[^\x21-\x7e ][，。、：；！？）》」』]*/gu) ?? [];
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
  families: readonly string[];
  bold?: boolean;
  fill: string;
  anchor?: 'end';
}

/** A run of a text and the families it is set in (one, the face fonts.ts picked and named). */
export interface TextRun {
  text: string;
  families: readonly string[];
}

/** How `text` is set: its characters in runs, each in one family. */
export type SetText = (text: string, families: readonly string[], weight: 400 | 700) => TextRun[];

/** The text as one run in the whole list of families. */
export const familyList: SetText = (text, families) => [{ text, families }];

/** font-family's value: each family quoted, as CSS names them. */
const familyAttr = (families: readonly string[]) => escapeXml(families.map((f) => `'${f}'`).join(', '));

/**
 * resvg 2.6.2 draws nothing of a text of several runs when one of them shapes a ligature (the "ffi" of
 * "externalTrafficPolicy" beside Chinese): a zero-width non-joiner between the letters keeps them apart.
 */
const NO_LIGATURE = /f(?=[fil])/g;

function textEl(t: Text, set: SetText): string {
  const setRuns = set(t.text, t.families, t.bold ? 700 : 400);
  const runs = setRuns.length > 1 ? setRuns.map((r) => ({ ...r, text: r.text.replace(NO_LIGATURE, 'f\u200c') })) : setRuns;
  const attrs = `x="${t.x}" y="${t.y}" font-size="${t.size}" font-weight="${t.bold ? 700 : 400}" fill="${t.fill}"${t.anchor ? ` text-anchor="${t.anchor}"` : ''}`;
  if (runs.length === 1) return `<text ${attrs} font-family="${familyAttr(runs[0]!.families)}">${escapeXml(runs[0]!.text)}</text>`;
  // One text, so that it lays out as one line (and anchors as one); each run names its face.
  const spans = runs.map((r) => `<tspan font-family="${familyAttr(r.families)}">${escapeXml(r.text)}</tspan>`).join('');
  return `<text ${attrs} xml:space="preserve">${spans}</text>`;
}

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

/**
 * A label: two lines at 20 px; a longer one three lines at 18 px where its row has room for them
 * (with a title of two lines), so that a label's words reach their end ('… after 3.1 s'); cut after
 * that.
 */
function labelLayout(label: string, width: number, rowHeight: number): { size: number; lead: number; lines: string[] } {
  const pieces = breakPieces(label);
  const lines = wrap(pieces, 20, width, Infinity);
  if (lines.length <= 2 || rowHeight < 3 * 24) return { size: 20, lead: 28, lines: wrap(pieces, 20, width, 2) };
  return { size: 18, lead: 24, lines: wrap(pieces, 18, width, 3) };
}

/** The card as an SVG document; `set` picks the face of each character (fonts.ts), by default none. */
export function cardSvg(card: CardText, set: SetText = familyList): string {
  const fonts = FONTS[card.lang];
  const out: Text[] = [];
  out.push({ x: PAD, y: 84, size: 26, text: card.series, families: fonts.sans, fill: COLORS.muted });
  out.push({ x: CARD.width - PAD, y: 84, size: 30, text: card.site, families: fonts.sans, bold: true, fill: COLORS.accent, anchor: 'end' });

  // The title: as large as fits in two lines, else in three, else cut after three.
  const { size, lines: title } = titleLayout(card.lang === 'en' ? breakPieces(card.title) : card.titlePhrases);
  const lead = Math.round(size * 1.25);
  title.forEach((line, i) => out.push({ x: PAD, y: 160 + i * lead, size, text: line, families: fonts.sans, bold: true, fill: COLORS.fg }));

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
    out.push({ x: PAD, y: y + 30, size: valueSize, text: row.value, families: fonts.mono, bold: true, fill: COLORS.accent });
    const label = labelLayout(row.label, labelWidth, rowHeight);
    label.lines.forEach((line, j) =>
      out.push({ x: labelX, y: y + 16 + j * label.lead, size: label.size, text: line, families: fonts.sans, fill: COLORS.muted }),
    );
  });

  out.push({ x: PAD, y: CARD.height - 40, size: 20, text: card.footer, families: fonts.sans, fill: COLORS.muted });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD.width}" height="${CARD.height}" viewBox="0 0 ${CARD.width} ${CARD.height}">`,
    `<rect width="${CARD.width}" height="${CARD.height}" fill="${COLORS.bg}"/>`,
    `<rect width="12" height="${CARD.height}" fill="${COLORS.accent}"/>`,
    `<rect x="${PAD}" y="${CARD.height - 76}" width="${WIDTH}" height="1" fill="${COLORS.rule}"/>`,
    ...out.map((t) => textEl(t, set)),
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
