// A packet's path, drawn at build time as inline SVG: the stations it meets
// (the client, the nodes, the pod) one below the other, each hop an arrow
// between two of them labelled with the packet's source and destination, and
// what a station does to it (a rewrite, a drop, an answer) written in its box.
// Every address, port and status is a fact's bound element (data-fact); the
// words around them are the definition's, in both languages, and may hold
// {fact.id} placeholders but never a typed-in value. A list beside the SVG
// says the same, bound the same way, for screen readers (the SVG is hidden
// from them). As wide as a phone's text column: it stacks down, never out.
// Colours come from the page's CSS variables (src/styles/packet-path.css).
// Pure: the caller passes the facts of the run it binds.
import type { Fact } from '../../evidence/facts.ts';
import { EvidenceError } from '../../evidence/errors.ts';
import { KIND_LABELS, findNumericTokens } from '../../evidence/numbers.ts';
import { LANGS, parseTemplate, type Lang, type TemplateSegment } from '../../evidence/template.ts';
import { escapeHtml, factHtml, runAttributes, type RunBinding } from './fact-html.ts';

import type { PacketPathDef, PathEndpoint, PathEvent, PathEventKind, PathHop, PathLeg, PathStation, Text } from '../../authoring/parts.ts';

export type { PacketPathDef, PathEvent, PathHop, PathStation };

export interface PacketPathOptions {
  /** The file that declares the definition, for messages. */
  file?: string;
  /** The run the values come from, when it is not the article's own (data-environment, data-variant, data-run). */
  binding?: RunBinding;
}

/** The renderer's own words, in both languages (no digits). */
export const PACKET_PATH_WORDS: Record<Lang, { src: string; dst: string; idle: string; onTo: string; colon: string; comma: string; stop: string }> = {
  zh: { src: 'src', dst: 'dst', idle: '不在这条路径上', onTo: '发往', colon: '：', comma: '，', stop: '。' },
  en: { src: 'src', dst: 'dst', idle: 'not on this path', onTo: 'On to', colon: ': ', comma: ', ', stop: '.' },
};

// ---------------------------------------------------------------------------
// Checking a definition: every problem, one line each, naming the file, the path and what is wrong.

/** Every fact id a definition binds, with where it binds it (for messages). */
function boundIds(def: PacketPathDef): Array<{ id: string; where: string }> {
  const ids: Array<{ id: string; where: string }> = [];
  const template = (text: Text | undefined, where: string) => {
    for (const lang of LANGS) {
      let segments: TemplateSegment[] = [];
      try {
        segments = parseTemplate(text?.[lang] ?? '');
      } catch {
        continue; // a syntax error is its own problem (textProblems)
      }
      for (const s of segments) if (s.kind === 'fact' && !ids.some((i) => i.id === s.id && i.where === where)) ids.push({ id: s.id, where });
    }
  };
  const endpoint = (e: PathEndpoint | undefined, where: string) => {
    if (!e) return;
    ids.push({ id: e.address, where: `${where} address` });
    if (e.port !== undefined) ids.push({ id: e.port, where: `${where} port` });
  };
  for (const s of def.stations) {
    if (s.name !== undefined) ids.push({ id: s.name, where: `station "${s.id}" name` });
    if (s.address !== undefined) ids.push({ id: s.address, where: `station "${s.id}" address` });
  }
  def.legs.forEach((leg, l) => {
    leg.hops.forEach((hop, h) => {
      const where = `leg ${l + 1} hop ${h + 1} (${hop.from} -> ${hop.to})`;
      endpoint(hop.src, `${where} src`);
      endpoint(hop.dst, `${where} dst`);
      template(hop.note, `${where} note`);
    });
    (leg.events ?? []).forEach((event, e) => template(event.text, `leg ${l + 1} event ${e + 1} (at ${event.at})`));
  });
  template(def.outcome, 'outcome');
  template(def.title, 'title');
  return ids;
}

/**
 * A text's problems: both languages present, its placeholders well formed (or none, for
 * `words` only: a label), no value typed in.
 */
function textProblems(text: Text | undefined, where: string, required: boolean, words = false): string[] {
  if (text === undefined) return required ? [`${where}: missing (expected zh and en)`] : [];
  const problems: string[] = [];
  for (const lang of LANGS) {
    const value = text[lang];
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`${where} (${lang}): missing text`);
      continue;
    }
    let segments: TemplateSegment[];
    try {
      segments = parseTemplate(value);
    } catch (error) {
      problems.push(`${where} (${lang}): ${(error as Error).message}`);
      continue;
    }
    for (const s of segments) {
      if (s.kind === 'fact') {
        if (words)
          problems.push(`${where} (${lang}): a label is words only, without {${s.id}} (bind values in the station's name and address, or in an event)`);
        continue;
      }
      for (const token of findNumericTokens(s.text)) {
        problems.push(`${where} (${lang}): the text has a ${KIND_LABELS[token.kind]} "${token.text}" typed in; use a {fact.id} placeholder`);
      }
    }
  }
  return problems;
}

/**
 * Every problem of a definition against the facts of the run it binds (`has`):
 * a fact it names that the run does not have, a station or hop that does not
 * fit, a text missing a language, a value typed into a text. One line each:
 * `<file>: path "<id>": …`; `scope` says where the facts were looked for.
 */
export function packetPathProblems(def: PacketPathDef, has: (factId: string) => boolean, file = 'article.ts', scope = 'the run it binds'): string[] {
  const at = `${file}: path "${def.id}"`;
  const problems: string[] = [];
  const stations = new Map<string, PathStation>();
  for (const s of def.stations) {
    if (stations.has(s.id)) problems.push(`${at}: station "${s.id}" is declared twice`);
    stations.set(s.id, s);
    problems.push(...textProblems(s.label, `${at}: station "${s.id}" label`, true, true));
  }
  problems.push(...textProblems(def.title, `${at}: title`, true));
  problems.push(...textProblems(def.outcome, `${at}: outcome`, false));
  if (!def.legs.length) problems.push(`${at}: no legs (expected at least one run of stations with its hops)`);
  def.legs.forEach((leg, l) => {
    const where = `${at}: leg ${l + 1}`;
    problems.push(...textProblems(leg.label, `${where} label`, def.legs.length > 1, true));
    for (const id of leg.stations) if (!stations.has(id)) problems.push(`${where}: no station "${id}" (the path declares: ${[...stations.keys()].join(', ')})`);
    if (new Set(leg.stations).size !== leg.stations.length) problems.push(`${where}: a station appears twice`);
    leg.hops.forEach((hop, h) => {
      const i = leg.stations.indexOf(hop.from);
      const j = leg.stations.indexOf(hop.to);
      const name = `${where} hop ${h + 1} (${hop.from} -> ${hop.to})`;
      if (i < 0 || j < 0) problems.push(`${name}: both ends must be stations of the leg (${leg.stations.join(', ')})`);
      else if (Math.abs(i - j) !== 1) problems.push(`${name}: a hop joins two neighbouring stations of the leg`);
      else if (leg.hops.some((other, k) => k < h && new Set([other.from, other.to, hop.from, hop.to]).size === 2))
        problems.push(`${name}: the leg has a hop between these stations already`);
      problems.push(...textProblems(hop.note, `${name} note`, false));
    });
    (leg.events ?? []).forEach((event, e) => {
      const name = `${where} event ${e + 1}`;
      if (!leg.stations.includes(event.at)) problems.push(`${name}: at "${event.at}", which is no station of the leg (${leg.stations.join(', ')})`);
      problems.push(...textProblems(event.text, `${name} text`, true));
    });
  });
  const reported = new Set<string>();
  for (const { id, where } of boundIds(def)) {
    if (has(id) || reported.has(id)) continue;
    reported.add(id);
    problems.push(`${at}: no fact "${id}" (${where}) in ${scope} (article.ts, or one every run has)`);
  }
  return problems;
}

// ---------------------------------------------------------------------------
// Laying text out in lines: SVG does not wrap, so the renderer does, by an
// estimate of each character's width that errs on the wide side.

type Piece = { kind: 'text'; text: string; cls?: string } | { kind: 'fact'; fact: Fact; cls?: string };

const FONT = 13;
const LINE = 18;
const W = 340;
const PAD = 10;
const ARROW_X = 20;
const HOP_TEXT_X = 36;
const EVENT_INDENT = 9;

const HAN = /[\p{Script=Han}\u3000-\u303f\uff00-\uffef\u2018-\u201f]/u;
const CLOSING = /[，。、；：！？）」』”’》]/u;
const OPENING = /[（「『“‘《]/u;

/** A character's width in em, a little wide for the usual sans and mono faces (DejaVu, Liberation, SF, Segoe). */
function charEm(c: string, mono: boolean): number {
  if (HAN.test(c)) return 1;
  if (mono) return 0.61;
  if (c === ' ') return 0.33;
  if (/[il.,:;'|!()[\]/]/.test(c)) return 0.4;
  if (/[mwMW]/.test(c)) return 0.98;
  if (/[A-Z]/.test(c)) return 0.76;
  if (/[0-9]/.test(c)) return 0.65;
  return 0.63;
}

function textWidth(text: string, mono: boolean, bold: boolean): number {
  let em = 0;
  for (const c of text) em += charEm(c, mono);
  return em * FONT * (bold ? 1.08 : 1);
}

interface Unit {
  piece: number;
  char?: string;
  width: number;
  space: boolean;
  breakBefore: boolean;
}

/** The pieces in lines of at most `max` user units, broken at spaces and between Chinese characters; a value never breaks. */
function flow(pieces: readonly Piece[], max: number, bold = false): Piece[][] {
  const units: Unit[] = [];
  const prev = () => units.at(-1);
  const breakable = (before: Unit | undefined, char: string | undefined): boolean => {
    if (!before) return false;
    if (char === ' ') return false;
    if (before.space) return true;
    const a = before.char;
    const cjk = (a !== undefined && HAN.test(a)) || (char !== undefined && HAN.test(char));
    return cjk && !(char !== undefined && CLOSING.test(char)) && !(a !== undefined && OPENING.test(a));
  };
  pieces.forEach((p, index) => {
    if (p.kind === 'fact') {
      units.push({ piece: index, width: textWidth(p.fact.value, true, bold), space: false, breakBefore: breakable(prev(), undefined) });
      return;
    }
    for (const c of p.text) {
      units.push({ piece: index, char: c, width: textWidth(c, false, bold), space: c === ' ', breakBefore: breakable(prev(), c) });
    }
  });
  const lines: Unit[][] = [];
  let line: Unit[] = [];
  let width = 0;
  let i = 0;
  while (i < units.length) {
    let j = i + 1;
    while (j < units.length && !units[j]!.breakBefore) j++;
    const word = units.slice(i, j);
    const content = word.filter((u) => !u.space).reduce((s, u) => s + u.width, 0);
    if (line.length && width + content > max) {
      lines.push(line);
      line = [];
      width = 0;
    }
    const kept = line.length ? word : word.filter((u, k) => !(u.space && word.slice(0, k + 1).every((v) => v.space)));
    line.push(...kept);
    width += kept.reduce((s, u) => s + u.width, 0);
    i = j;
  }
  if (line.length) lines.push(line);
  return lines.map((l) => {
    while (l.length && l.at(-1)!.space) l.pop();
    const out: Piece[] = [];
    l.forEach((u, k) => {
      const source = pieces[u.piece]!;
      const last = out.at(-1);
      if (source.kind === 'fact') out.push(source);
      else if (last?.kind === 'text' && k > 0 && l[k - 1]!.piece === u.piece) last.text += u.char!;
      else out.push({ kind: 'text', text: u.char!, ...(source.cls ? { cls: source.cls } : {}) });
    });
    return out;
  });
}

// ---------------------------------------------------------------------------
// Markup.

/** `<tspan data-fact data-step [data-raw]>`: the binding contract's markup inside SVG. */
function svgFact(fact: Fact, binding: RunBinding | undefined, cls?: string): string {
  const raw = fact.raw === undefined ? '' : ` data-raw="${escapeHtml(fact.raw)}"`;
  const declared = fact.declared === undefined ? '' : ` data-declared="${escapeHtml(fact.declared.file)}"`;
  const unmeasured = fact.unmeasured ? ' data-unmeasured' : '';
  return `<tspan class="pp-value${cls ? ` ${cls}` : ''}" data-fact="${escapeHtml(fact.id)}" data-step="${escapeHtml(fact.step)}"${raw}${declared}${unmeasured}${runAttributes(binding)}>${escapeHtml(fact.value)}</tspan>`;
}

function svgLine(pieces: readonly Piece[], x: number, y: number, cls: string, binding: RunBinding | undefined): string {
  const inner = pieces
    .map((p) => (p.kind === 'fact' ? svgFact(p.fact, binding, p.cls) : p.cls ? `<tspan class="${p.cls}">${escapeHtml(p.text)}</tspan>` : escapeHtml(p.text)))
    .join('');
  return `<text class="${cls}" x="${x}" y="${y}">${inner}</text>`;
}

/** A value in the list for screen readers: read out, never laid out, so its text stays plain (no code tokens). */
const listFact = (fact: Fact, binding: RunBinding | undefined): string => factHtml(fact, binding, undefined, (escaped) => escaped);

/** Words and bound values as HTML: laid out on the page (the caption, the outcome), or `listed` for screen readers only. */
function htmlPieces(pieces: readonly Piece[], binding: RunBinding | undefined, listed = false): string {
  return pieces.map((p) => (p.kind === 'fact' ? (listed ? listFact(p.fact, binding) : factHtml(p.fact, binding)) : escapeHtml(p.text))).join('');
}

export function packetPathHtml(def: PacketPathDef, facts: ReadonlyMap<string, Fact>, lang: Lang, options: PacketPathOptions = {}): string {
  const file = options.file ?? 'article.ts';
  const { binding } = options;
  const run = [binding?.version, binding?.environment, binding?.variant].filter(Boolean).join(', ');
  const problems = packetPathProblems(def, (id) => facts.has(id), file, run ? `the run it binds (${run})` : "the article's own run");
  if (problems.length) throw new EvidenceError(problems);
  const words = PACKET_PATH_WORDS[lang];
  const fact = (id: string): Fact => facts.get(id)!;
  const stations = new Map(def.stations.map((s) => [s.id, s]));
  const template = (text: Text): Piece[] =>
    parseTemplate(text[lang]).map((s): Piece => (s.kind === 'text' ? { kind: 'text', text: s.text } : { kind: 'fact', fact: fact(s.id) }));
  const endpoint = (e: PathEndpoint): Piece[] => [
    { kind: 'fact', fact: fact(e.address) },
    ...(e.port === undefined ? [] : [{ kind: 'text', text: ':' } as Piece, { kind: 'fact', fact: fact(e.port) } as Piece]),
  ];
  const identity = (s: PathStation): Piece[] => {
    const out: Piece[] = [];
    if (s.name !== undefined) out.push({ kind: 'fact', fact: fact(s.name), cls: 'pp-name' });
    if (s.address !== undefined) {
      if (out.length) out.push({ kind: 'text', text: ' ' });
      out.push({ kind: 'fact', fact: fact(s.address) });
    }
    return out;
  };
  const packet = (hop: PathHop): Array<{ key: string; pieces: Piece[] }> => [
    ...(hop.src ? [{ key: words.src, pieces: endpoint(hop.src) }] : []),
    ...(hop.dst ? [{ key: words.dst, pieces: endpoint(hop.dst) }] : []),
  ];

  // The drawing, top to bottom.
  const svg: string[] = [];
  let y = 0;
  def.legs.forEach((leg, l) => {
    if (l > 0) y += 14;
    if (leg.label) {
      for (const line of flow([{ kind: 'text', text: leg.label[lang] }], W, true)) {
        svg.push(svgLine(line, 0, y + 14, 'pp-leg', binding));
        y += LINE;
      }
      y += 6;
    }
    const touched = new Set(leg.hops.flatMap((h) => [h.from, h.to]));
    leg.stations.forEach((id, k) => {
      const station = stations.get(id)!;
      const idle = !touched.has(id);
      const lines: Array<{ pieces: Piece[]; x: number; cls: string }> = [];
      for (const line of flow([{ kind: 'text', text: station.label[lang] }], W - 2 * PAD, true)) lines.push({ pieces: line, x: PAD, cls: 'pp-label' });
      const who = identity(station);
      if (who.length) for (const line of flow(who, W - 2 * PAD)) lines.push({ pieces: line, x: PAD, cls: 'pp-id' });
      if (idle) for (const line of flow([{ kind: 'text', text: words.idle }], W - 2 * PAD)) lines.push({ pieces: line, x: PAD, cls: 'pp-idle-note' });
      const marks: Array<{ kind: PathEventKind; first: number; count: number }> = [];
      for (const event of (leg.events ?? []).filter((e) => e.at === id)) {
        const first = lines.length;
        for (const line of flow(template(event.text), W - 2 * PAD - EVENT_INDENT, event.kind === 'drop'))
          lines.push({ pieces: line, x: PAD + EVENT_INDENT, cls: `pp-event pp-event-${event.kind}` });
        marks.push({ kind: event.kind, first, count: lines.length - first });
      }
      const height = 6 + lines.length * LINE + 8;
      const baseline = (n: number) => y + 6 + 13 + n * LINE;
      svg.push(
        `<g class="pp-station pp-${station.kind}${idle ? ' pp-idle' : ''}" data-station="${escapeHtml(id)}">` +
          `<rect class="pp-box" x="0.5" y="${y + 0.5}" width="${W - 1}" height="${height - 1}" rx="4" />` +
          marks
            .map((m) => `<rect class="pp-mark pp-mark-${m.kind}" x="${PAD}" y="${baseline(m.first) - 11}" width="3" height="${m.count * LINE - 3}" />`)
            .join('') +
          lines.map((line, n) => svgLine(line.pieces, line.x, baseline(n), line.cls, binding)).join('') +
          `</g>`,
      );
      y += height;
      if (k === leg.stations.length - 1) return;
      // The gap to the next station: an arrow when a hop joins them, with the packet's addresses beside it.
      const next = leg.stations[k + 1]!;
      const hop = leg.hops.find((h) => (h.from === id && h.to === next) || (h.from === next && h.to === id));
      if (!hop) {
        y += 14;
        return;
      }
      const labels: Array<{ pieces: Piece[]; cls: string }> = [];
      for (const { key, pieces } of packet(hop)) {
        for (const line of flow([{ kind: 'text', text: `${key} `, cls: 'pp-key' }, ...pieces], W - HOP_TEXT_X)) labels.push({ pieces: line, cls: 'pp-packet' });
      }
      if (hop.note) for (const line of flow(template(hop.note), W - HOP_TEXT_X)) labels.push({ pieces: line, cls: 'pp-note' });
      const gap = Math.max(30, labels.length * LINE + 10);
      const down = hop.from === id;
      const [tail, head] = down ? [y, y + gap] : [y + gap, y];
      const tip = down ? head - 7 : head + 7;
      svg.push(
        `<g class="pp-hop" data-hop="${escapeHtml(`${hop.from}->${hop.to}`)}">` +
          `<line class="pp-arrow" x1="${ARROW_X}" y1="${tail}" x2="${ARROW_X}" y2="${tip}" />` +
          `<polygon class="pp-arrowhead" points="${ARROW_X - 5},${tip} ${ARROW_X + 5},${tip} ${ARROW_X},${head}" />` +
          labels.map((line, n) => svgLine(line.pieces, HOP_TEXT_X, y + 5 + 13 + n * LINE, line.cls, binding)).join('') +
          `</g>`,
      );
      y += gap;
    });
  });

  // The same, in words: one item per station (what it does nested under it) and per hop.
  const stationItem = (station: PathStation, leg: PathLeg, idle: boolean): string => {
    const who = [station.name, station.address].filter((f): f is string => f !== undefined).map((f) => listFact(fact(f), binding));
    const head = `${escapeHtml(station.label[lang])}${who.length ? escapeHtml(words.colon) + who.join(escapeHtml(words.comma)) : ''}${idle ? escapeHtml(words.comma + words.idle) : ''}${escapeHtml(words.stop)}`;
    const events = (leg.events ?? []).filter((e) => e.at === station.id);
    const nested = events.length
      ? `<ul>${events.map((e) => `<li data-event="${e.kind}">${htmlPieces(template(e.text), binding, true)}</li>`).join('')}</ul>`
      : '';
    return `<li data-station="${escapeHtml(station.id)}">${head}${nested}</li>`;
  };
  // Chinese takes a space before a Latin word only ("发往 worker", "发往后端 Pod"); English always.
  const spaced = (before: string, after: string) => (lang === 'en' || /^[A-Za-z0-9]/.test(after) ? `${before} ${after}` : `${before}${after}`);
  const sentence = (html: string, source: string) => (/[。！？.!?]$/.test(source) ? html : html + escapeHtml(words.stop));
  const hopItem = (hop: PathHop): string => {
    const packetText = packet(hop)
      .map(({ key, pieces }) => `${escapeHtml(key)} ${htmlPieces(pieces, binding, true)}`)
      .join(escapeHtml(words.comma));
    const label = stations.get(hop.to)!.label[lang];
    // Mid-sentence in English, a capitalised word ("Backend pod") is lowered; a name in capitals ("DNS") is not.
    const named = lang === 'en' && /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
    const head = escapeHtml(spaced(words.onTo, named));
    const parts = [sentence(packetText ? head + escapeHtml(words.colon) + packetText : head, '')];
    if (hop.note) parts.push(sentence(htmlPieces(template(hop.note), binding, true), hop.note[lang]));
    return `<li data-hop="${escapeHtml(`${hop.from}->${hop.to}`)}">${parts.join(lang === 'en' ? ' ' : '')}</li>`;
  };
  const legItems = (leg: PathLeg): string => {
    const touched = new Set(leg.hops.flatMap((h) => [h.from, h.to]));
    const items: string[] = [];
    leg.stations.forEach((id, k) => {
      items.push(stationItem(stations.get(id)!, leg, !touched.has(id)));
      const next = leg.stations[k + 1];
      const hop = next === undefined ? undefined : leg.hops.find((h) => (h.from === id && h.to === next) || (h.from === next && h.to === id));
      if (hop) items.push(hopItem(hop));
    });
    return items.join('');
  };
  const steps =
    def.legs.length === 1 && !def.legs[0]!.label
      ? `<ol class="visually-hidden packet-path-steps">${legItems(def.legs[0]!)}</ol>`
      : `<ol class="visually-hidden packet-path-steps">${def.legs.map((leg) => `<li>${escapeHtml(leg.label?.[lang] ?? '')}<ol>${legItems(leg)}</ol></li>`).join('')}</ol>`;

  const key = [binding?.version, binding?.environment, binding?.variant].filter(Boolean).join('-');
  const titleId = `packet-path-${def.id}${key ? `-${key}` : ''}`;
  return (
    `<figure class="packet-path" data-packet-path="${escapeHtml(def.id)}" aria-labelledby="${escapeHtml(titleId)}">` +
    `<figcaption id="${escapeHtml(titleId)}" class="packet-path-title">${htmlPieces(template(def.title), binding)}</figcaption>` +
    `<svg class="packet-path-svg" viewBox="0 0 ${W} ${y}" width="100%" aria-hidden="true" focusable="false" preserveAspectRatio="xMinYMin meet">${svg.join('')}</svg>` +
    steps +
    (def.outcome ? `<p class="packet-path-outcome">${htmlPieces(template(def.outcome), binding)}</p>` : '') +
    `</figure>`
  );
}
