// What an article may declare besides its facts, claims and lines: charts,
// packet paths and the step-by-step walkthrough. Plain data, typed by the
// article's fact ids (`Id`), so a part that names an undeclared fact fails the
// type check; the renderers (src/article/render) draw them.
import type { Lang } from '../evidence/template.ts';

export type Text = Record<Lang, string>;

export interface ChartBar<Id extends string = string> {
  /** What the bar stands for, without numbers ("the pod alone on its node"). */
  label: Text;
  /** A fact naming the bar's subject (a pod's name), shown under the label. */
  name: Id;
  /** A fact whose raw value is a fraction between 0 and 1: the bar's length. */
  share: Id;
  /** The count behind the share. */
  count: Id;
  /** The expected share and its tolerance, drawn as a tick and a band. */
  expected: Id;
  tolerance: Id;
}

export interface ChartGroup<Id extends string = string> {
  label: Text;
  bars: ChartBar<Id>[];
}

export interface ChartDef<Id extends string = string> {
  id: string;
  title: Text;
  /** What the tick and the band mean, in words. */
  legend: Text;
  /** Column headings of the table: subject, name, count, share, expected, tolerance. */
  columns: Record<Lang, [string, string, string, string, string, string]>;
  groups: ChartGroup<Id>[];
}

/** Something a packet meets on its way: the client, a node, a pod. */
export interface PathStation<Id extends string = string> {
  /** Its id within the article's paths (`client`, `worker2`, `pod`). */
  id: string;
  kind: 'client' | 'node' | 'pod';
  /** What it is, in words and without values: "客户端（控制面节点）" / "Client (the control-plane node)". */
  label: Text;
  /** Fact ids: its name as the run recorded it, and its address. */
  name?: Id;
  address?: Id;
}

/** An address and, when the run recorded it, a port: fact ids. */
export interface PathEndpoint<Id extends string = string> {
  address: Id;
  port?: Id;
}

/** The packet from one station to the next, as the run recorded its addresses. */
export interface PathHop<Id extends string = string> {
  from: string;
  to: string;
  src?: PathEndpoint<Id>;
  dst?: PathEndpoint<Id>;
  /** What carries it, in words; {fact.id} placeholders only. */
  note?: Text;
}

/** What a station does with the packet: rewrites an address, keeps it, drops the packet, answers. */
export type PathEventKind = 'rewrite' | 'keep' | 'drop' | 'answer';

export interface PathEvent {
  /** The station it happens at. */
  at: string;
  kind: PathEventKind;
  /** In words with {fact.id} placeholders: "DNAT: dst → {pod.backend.ip}". */
  text: Text;
}

/** One run of stations, top to bottom; each hop joins two neighbours. A path has one, or several one below the other. */
export interface PathLeg<Id extends string = string> {
  /** A heading, when a path has several legs ("Probe of worker"). */
  label?: Text;
  stations: string[];
  hops: PathHop<Id>[];
  events?: PathEvent[];
}

export interface PacketPathDef<Id extends string = string> {
  /** The id MDX names: `<PacketPath id="cluster-via-worker2" />`. */
  id: string;
  title: Text;
  stations: PathStation<Id>[];
  legs: PathLeg<Id>[];
  /** How it ended, shown under the drawing: {fact.id} placeholders only. */
  outcome?: Text;
}

/**
 * One stop of the step-by-step view: the object it is about, and the steps whose command and
 * output it shows. Its title and what to notice are prose, written in each language's MDX:
 * `<Stop id="…" title="…">…</Stop>` inside `<Walkthrough>`, in this order.
 */
export interface WalkthroughStop {
  /** Anchor id, lowercase with dashes. */
  id: string;
  object: {
    /** A manifest file of the experiment, relative to the article folder. */
    manifest: string;
    /** `Kind/name` of the YAML document to show, e.g. `Service/s-local`. */
    document: string;
    /** Keys whose lines are highlighted, e.g. ['externalTrafficPolicy', 'type']. */
    highlight: string[];
  };
  /** Experiment step ids whose command and output this stop shows (may be empty). */
  steps: string[];
}

/** An address, or an address and a port: fact ids. */
type Endpoint<Id extends string> = Id | readonly [address: Id, port: Id];
const endpoint = <Id extends string>(e: Endpoint<Id>): PathEndpoint<Id> => (typeof e === 'string' ? { address: e } : { address: e[0], port: e[1] });

/** The packet from one station to the next, its source and destination as fact ids (address, or [address, port]). */
export function hop<Id extends string>(from: string, to: string, src: Endpoint<Id>, dst: Endpoint<Id>, note?: Text): PathHop<Id> {
  return { from, to, src: endpoint(src), dst: endpoint(dst), ...(note ? { note } : {}) };
}

/** What a station does with the packet, in words with {fact.id} placeholders. */
export function event(at: string, kind: PathEventKind, zh: string, en: string): PathEvent {
  return { at, kind, text: { zh, en } };
}

/** A path of one leg: the stations it passes in order (`route`), its hops, and what happens on the way. */
export function path<Id extends string>(
  def: Omit<PacketPathDef<Id>, 'legs'> & Omit<PathLeg<Id>, 'stations' | 'label'> & { route: string[] },
): PacketPathDef<Id> {
  const { route, hops, events, ...rest } = def;
  return { ...rest, legs: [{ stations: route, hops, ...(events ? { events } : {}) }] };
}

/** A space before an arrow, except after full-width punctuation (which carries its own). */
type ArrowAfter<T extends string> = T extends `${string}${'）' | '，' | '：'}` ? '→' : ' →';

/**
 * The measured line of a kube-proxy health check read by healthCheckFacts: what was
 * asked (`zh`, `en`, with its own placeholders), then the status, its reason phrase and
 * localEndpoints, the same values in both languages.
 * The line's type keeps every placeholder, so the type check still sees what it reads.
 */
export function healthCheckLine<const S extends string, const Zh extends string, const En extends string>(
  step: S,
  zh: Zh,
  en: En,
): {
  zh: `${Zh}${ArrowAfter<Zh>} HTTP {${S}.status} {${S}.reason}，localEndpoints={${S}.localEndpoints}`;
  en: `${En}: HTTP {${S}.status} {${S}.reason}, localEndpoints={${S}.localEndpoints}`;
} {
  const arrow = /[）：，]$/.test(zh) ? '→' : ' →';
  return {
    zh: `${zh}${arrow} HTTP {${step}.status} {${step}.reason}，localEndpoints={${step}.localEndpoints}` as `${Zh}${ArrowAfter<Zh>} HTTP {${S}.status} {${S}.reason}，localEndpoints={${S}.localEndpoints}`,
    en: `${en}: HTTP {${step}.status} {${step}.reason}, localEndpoints={${step}.localEndpoints}`,
  };
}

/** A chart's bars for the groups of a choiceFacts step: each group's share and count against the model's expected share and tolerance. */
export function choiceBars<const S extends string, const G extends string, const Name extends string>(
  step: S,
  groups: readonly G[],
  of: (group: G) => { label: Text; name: Name },
): ChartBar<`${S}.${'share' | 'count' | 'expectedShare' | 'boundShare'}.${G}` | Name>[] {
  return groups.map((g) => ({
    ...of(g),
    share: `${step}.share.${g}`,
    count: `${step}.count.${g}`,
    expected: `${step}.expectedShare.${g}`,
    tolerance: `${step}.boundShare.${g}`,
  }));
}
