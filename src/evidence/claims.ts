// Claims: named assertions over facts that a passage of prose depends on. They
// are evaluated after every capture and at every build, so a sentence that stops
// being true after a re-run is caught, with the values and files that broke it.
import type { Fact } from './facts.ts';
import type { Lang } from './template.ts';

export interface ClaimDef {
  id: string;
  /** What the prose asserts, in each language. */
  statement: Record<Lang, string>;
  /** The facts the claim reads; `holds` may read no other. */
  facts: string[];
  holds: (value: (factId: string) => string) => boolean;
  /** For an experiment with variants: the variants whose runs the claim is about; every variant when absent. */
  variants?: string[];
}

export interface ClaimValue {
  id: string;
  /** Undefined when the run has no such fact. */
  value: string | undefined;
  step: string | undefined;
  file: string | undefined;
}

export interface ClaimResult {
  id: string;
  statement: Record<Lang, string>;
  status: 'holds' | 'broken';
  values: ClaimValue[];
  /** Why it could not be evaluated (a missing fact), if so. */
  problem?: string;
}

export const CLAIM_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Structural mistakes of the declarations themselves (ids, duplicates, facts that do not exist). */
export function checkClaimDefs(defs: readonly ClaimDef[], factIds: Iterable<string>, file: string): string[] {
  const known = new Set(factIds);
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const def of defs) {
    if (!CLAIM_ID.test(def.id)) problems.push(`${file}: claim id ${JSON.stringify(def.id)}: expected lowercase words joined by dashes`);
    if (seen.has(def.id)) problems.push(`${file}: claim "${def.id}" is declared twice`);
    seen.add(def.id);
    if (!def.statement.zh?.trim() || !def.statement.en?.trim()) problems.push(`${file}: claim "${def.id}": expected a statement in zh and en`);
    if (!def.facts.length) problems.push(`${file}: claim "${def.id}": expected at least one fact it reads`);
    for (const id of def.facts) if (!known.has(id)) problems.push(`${file}: claim "${def.id}" reads fact "${id}", which this article does not declare`);
  }
  return problems;
}

export function evaluateClaims(defs: readonly ClaimDef[], facts: ReadonlyMap<string, Fact>, fileOfStep: (step: string) => string): ClaimResult[] {
  return defs.map((def) => {
    const values: ClaimValue[] = def.facts.map((id) => {
      const fact = facts.get(id);
      return { id, value: fact?.value, step: fact?.step, file: fact ? fileOfStep(fact.step) : undefined };
    });
    const missing = values.filter((v) => v.value === undefined).map((v) => v.id);
    const base = { id: def.id, statement: def.statement, values };
    if (missing.length) return { ...base, status: 'broken' as const, problem: `this run has no fact ${missing.join(', ')}` };
    const read = (id: string): string => {
      if (!def.facts.includes(id)) throw new Error(`claim "${def.id}" reads fact "${id}" without declaring it in its facts`);
      return facts.get(id)!.value;
    };
    return { ...base, status: def.holds(read) ? ('holds' as const) : ('broken' as const) };
  });
}

/** One block per broken claim: its name, statement, the facts' values now and where they came from. */
export function formatBrokenClaims(results: readonly ClaimResult[], lang: Lang = 'en'): string[] {
  return results
    .filter((r) => r.status === 'broken')
    .map((r) =>
      [
        `claim "${r.id}" no longer holds: ${r.statement[lang]}${r.problem ? ` (${r.problem})` : ''}`,
        ...r.values.map((v) => `    ${v.id} = ${v.value === undefined ? '(missing)' : JSON.stringify(v.value)}${v.file ? `  from ${v.file}` : ''}`),
      ].join('\n'),
    );
}
