// A step written once: what runs, the facts read from what it printed, and the
// line its measured block shows, together under the step's id. An article lists
// its parts in the order they run; `measured(...)` hands the experiment its
// steps and the definition its facts, variant facts and lines. Pure.
import { answered, answerFacts, curlFacts, factsFrom, type FactSpecs } from '../evidence/fact-kit.ts';
import { exec } from '../experiment/steps.ts';
import type { ExecStep, StepDef } from '../experiment/types.ts';

/** A measured line in each language, with {fact.id} placeholders (the definition type-checks them). */
export interface LineText<Zh extends string = string, En extends string = string> {
  zh: Zh;
  en: En;
}

/** One step with what it gives: facts of every run, facts of one variant's runs, its line. */
export interface StepPart<
  S extends string = string,
  F extends FactSpecs = FactSpecs,
  V extends Partial<Record<string, FactSpecs>> = {},
  L extends LineText | undefined = LineText | undefined,
> {
  step: StepDef & { id: S };
  facts: F;
  variantFacts: V;
  line: L;
}

/** A step, the facts read from it and its line; `variantFacts` when some facts exist in one variant's runs only. */
export function part<
  const S extends string,
  const F extends FactSpecs = {},
  const L extends LineText | undefined = undefined,
  const V extends Partial<Record<string, FactSpecs>> = {},
>(step: StepDef & { id: S }, facts: F, line?: L, variantFacts?: V): StepPart<S, F, V, L> {
  return { step, facts, variantFacts: (variantFacts ?? {}) as V, line: line as L };
}

type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type Merged<U> = { [K in keyof Intersection<U>]: Intersection<U>[K] };
/** Every part's variant facts, merged by variant. */
type MergedVariants<P extends StepPart> = {
  [Variant in P extends StepPart<string, FactSpecs, infer V> ? keyof V & string : never]: Merged<
    P extends StepPart<string, FactSpecs, infer V> ? (Variant extends keyof V ? NonNullable<V[Variant]> : {}) : never
  >;
};
/** The lines of the parts that have one, by step id. */
type Lines<P extends StepPart> = { [Part in P as Part['line'] extends LineText ? Part['step']['id'] : never]: Part['line'] };

/** The steps of the parts in order, and their facts, variant facts and lines, each by the ids they were given. */
export function measured<const P extends readonly StepPart[]>(
  ...parts: P
): { steps: StepDef[]; facts: Merged<P[number]['facts']>; variantFacts: MergedVariants<P[number]>; lines: Lines<P[number]> } {
  const facts: Record<string, unknown> = {};
  const variantFacts: Record<string, Record<string, unknown>> = {};
  const lines: Record<string, LineText> = {};
  const givenBy = new Map<string, string>();
  // Two parts giving one id would leave one of them unread: refused, naming both steps.
  const add = (into: Record<string, unknown>, specs: object | undefined, step: string, where: string) => {
    for (const [id, spec] of Object.entries(specs ?? {})) {
      const key = `${where}${id}`;
      if (givenBy.has(key)) throw new Error(`measured(): ${where}fact "${id}" is given by step "${givenBy.get(key)}" and by step "${step}"`);
      givenBy.set(key, step);
      into[id] = spec;
    }
  };
  for (const { step, facts: own, variantFacts: byVariant, line } of parts) {
    add(facts, own, step.id, '');
    for (const [variant, specs] of Object.entries(byVariant as Partial<Record<string, FactSpecs>>))
      add((variantFacts[variant] ??= {}), specs, step.id, `variantFacts.${variant}: `);
    if (line !== undefined) lines[step.id] = line;
  }
  return {
    steps: parts.map((p) => p.step),
    facts: facts as Merged<P[number]['facts']>,
    variantFacts: variantFacts as MergedVariants<P[number]>,
    lines: lines as Lines<P[number]>,
  };
}

/**
 * A curl step (one request) with `<id>.timeout` and, as its client ended, `.client` (answered: the
 * address the backend saw) or `.error` (failed: curl's message), beside `more` facts read from it.
 */
export function curlPart<const S extends string, const L extends LineText, const M extends FactSpecs = {}>(
  step: ExecStep & { id: S },
  expect: 'answered',
  line: L,
  more?: M,
): StepPart<S, FactSpecs<`${S}.timeout` | `${S}.client`> & M, {}, L>;
export function curlPart<const S extends string, const L extends LineText, const M extends FactSpecs = {}>(
  step: ExecStep & { id: S },
  expect: 'failed',
  line: L,
  more?: M,
): StepPart<S, FactSpecs<`${S}.timeout` | `${S}.error`> & M, {}, L>;
export function curlPart(step: ExecStep, expect: 'answered' | 'failed', line: LineText, more: FactSpecs = {}): StepPart {
  return part(step, { ...(expect === 'answered' ? curlFacts(step.id, 'answered') : curlFacts(step.id, 'failed')), ...more }, line);
}

/** kube-proxy's two modes, as the series' variants name them. */
export type ProxyMode = 'iptables' | 'nftables';

/**
 * A node's whole ruleset at one moment, in the runs of `mode` only (the other mode's kube-proxy writes
 * none of it), with the facts read from it there: they are that variant's facts. `what` ends the title
 * (", the backend deleted"); `counters` has iptables-save print each rule's packets (`-c`).
 */
export function rulesPart<const S extends string, const M extends ProxyMode, const L extends LineText, const F extends FactSpecs>(
  id: S,
  node: string,
  mode: M,
  line: L,
  facts: F,
  options: { what?: string; counters?: boolean } = {},
): StepPart<S, {}, { [K in M]: F }, L> {
  const what = options.what ?? '';
  const step =
    mode === 'iptables'
      ? exec(
          id,
          node,
          `${node}'s iptables rules, every table${options.counters ? ', with counters' : ''}${what}`,
          () => (options.counters ? ['iptables-save', '-c'] : ['iptables-save']),
          {
            variants: [mode],
          },
        )
      : exec(id, node, `${node}'s nftables ruleset${what}`, () => ['nft', 'list', 'ruleset'], { variants: [mode] });
  return part(step, {}, line, { [mode]: facts } as { [K in M]: F });
}

/**
 * A step sending many requests (requestsArgv), with `<id>.timeout`, `.requests`, `.answered` (HTTP
 * 200), `.who` (the pods that answered, sorted) and `.distinct` (how many): one backend for every
 * request is `.distinct` = 1.
 */
export function answersPart<const S extends string, const L extends LineText, const M extends FactSpecs = {}>(
  step: ExecStep & { id: S },
  line: L,
  more?: M,
): StepPart<S, FactSpecs<`${S}.${'timeout' | 'requests' | 'answered' | 'who' | 'distinct'}`> & M, {}, L> {
  // The counts answerFacts reads (no node's share: `[]`), and who answered.
  const answers = {
    ...answerFacts<S, never>(step.id, []),
    ...factsFrom<`${S}.${'who' | 'distinct'}`>([
      [`${step.id}.who`, { ...answered.who(step.id), volatile: { reason: "which backends answer is the rules' random choice" } }],
      [`${step.id}.distinct`, answered.distinct(step.id)],
    ]),
  };
  return part(step, { ...answers, ...(more ?? ({} as M)) }, line);
}
