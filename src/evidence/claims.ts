// Claims: named assertions over facts that a passage of prose depends on. They
// are evaluated after every capture and at every build, so a sentence that stops
// being true after a re-run is caught, with the values and files that broke it.
import type { Fact } from './facts.ts';
import type { Lang } from './template.ts';

export interface ClaimDef {
  id: string;
  /** What the prose asserts, in each language. */
  statement: Record<Lang, string>;
  /** Reads facts by id; the ones it read are the claim's values, in the order it read them. */
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

/** Structural mistakes of the declarations themselves (ids, duplicates, statements). */
export function checkClaimDefs(defs: readonly ClaimDef[], file: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const def of defs) {
    if (!CLAIM_ID.test(def.id)) problems.push(`${file}: claim id ${JSON.stringify(def.id)}: expected lowercase words joined by dashes`);
    if (seen.has(def.id)) problems.push(`${file}: claim "${def.id}" is declared twice`);
    seen.add(def.id);
    if (!def.statement.zh?.trim() || !def.statement.en?.trim()) problems.push(`${file}: claim "${def.id}": expected a statement in zh and en`);
  }
  return problems;
}

class MissingFact extends Error {}

/** Each claim judged on `facts`: its values are the facts `holds` read; one the run lacks breaks it, saying which. */
export function evaluateClaims(
  defs: readonly ClaimDef[],
  facts: ReadonlyMap<string, Fact>,
  fileOfStep: (step: string) => string,
  /** Why a fact the run should have is missing (its extractor's words), when known. */
  whyMissing: (id: string) => string | undefined = () => undefined,
): ClaimResult[] {
  return defs.map((def) => {
    const read: string[] = [];
    const value = (id: string): string => {
      if (!read.includes(id)) read.push(id);
      const fact = facts.get(id);
      if (!fact) throw new MissingFact(id);
      return fact.value;
    };
    let status: ClaimResult['status'];
    let problem: string | undefined;
    try {
      status = def.holds(value) ? 'holds' : 'broken';
    } catch (error) {
      if (!(error instanceof MissingFact)) throw error;
      status = 'broken';
      const why = whyMissing(error.message);
      problem = `this run has no fact ${error.message}${why === undefined ? '' : `: ${why}`}`;
    }
    const values: ClaimValue[] = read.map((id) => {
      const fact = facts.get(id);
      return { id, value: fact?.value, step: fact?.step, file: fact ? fileOfStep(fact.step) : undefined };
    });
    return { id: def.id, statement: def.statement, status, values, ...(problem === undefined ? {} : { problem }) };
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
