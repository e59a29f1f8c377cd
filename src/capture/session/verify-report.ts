// A verify run's verdict, claim by claim: held, broken, or not checked and why,
// judged as a capture judges its run (the same facts and claims, derived from
// the run's own snapshots). Pure.
import type { ClaimDef, ClaimValue } from '../../evidence/claims.ts';
import type { ArticleEvidence } from '../../evidence/runs/types.ts';
import { unhealthyBecause } from './judge-run.ts';

export interface ClaimVerdict {
  id: string;
  statement: { zh: string; en: string };
  verdict: 'held' | 'broken' | 'not checked';
  /** Why not checked, or what broke it. */
  why?: string;
  values?: ClaimValue[];
}

/**
 * Every claim and comparison of the article, judged on one run of `variant` (null: an article without variants).
 * `nodesRefused`: why no step ran (the cluster refused the node agents); a claim that reads a step is then not checked.
 */
export function claimVerdicts(
  claims: readonly ClaimDef[],
  comparisons: readonly ClaimDef[],
  evidence: ArticleEvidence,
  variant: string | null,
  nodesRefused: string | null = null,
): ClaimVerdict[] {
  const unhealthy = unhealthyBecause(evidence);
  const unfound = new Map((evidence.unfound ?? []).map((u) => [u.id, u.message]));
  const verdicts = claims.map((def): ClaimVerdict => {
    const base = { id: def.id, statement: def.statement };
    if (variant !== null && def.variants !== undefined && !def.variants.includes(variant))
      return { ...base, verdict: 'not checked', why: `it is about kube-proxy's ${def.variants.join(', ')} mode; this cluster runs ${variant}` };
    const result = evidence.claims.find((c) => c.id === def.id);
    if (result === undefined) return { ...base, verdict: 'not checked', why: 'the run did not judge it' };
    const missing = result.values.filter((v) => v.value === undefined);
    // A fact missing from a run that went wrong is no measurement; from a healthy run, it is what broke.
    if (missing.length && unhealthy !== undefined) return { ...base, verdict: 'not checked', why: `the run went wrong: ${unhealthy}` };
    if (missing.length && nodesRefused !== null)
      return { ...base, verdict: 'not checked', why: `${nodesRefused}; every step runs on a node, or after kube-proxy's rules are awaited on each` };
    if (result.status === 'holds') return { ...base, verdict: 'held', values: result.values };
    const why = missing.length
      ? missing.map((v) => `${v.id} is not in this run (${unfound.get(v.id) ?? 'not found'})`).join('; ')
      : (result.problem ?? 'its values are not what it states');
    return { ...base, verdict: 'broken', why, values: result.values };
  });
  const across = comparisons.map((def): ClaimVerdict => ({
    id: def.id,
    statement: def.statement,
    verdict: 'not checked',
    why: 'it compares the runs of several kube-proxy modes; a cluster runs one',
  }));
  return [...verdicts, ...across];
}

/** The report as printed and kept: a line per claim, the values of each broken one under it; a reason shared by the claims before is said once. */
export function formatVerdicts(verdicts: readonly ClaimVerdict[]): string[] {
  const width = Math.max(...verdicts.map((v) => v.id.length));
  const indent = ' '.repeat(15);
  return verdicts.flatMap((v, i) => {
    const head = `  ${v.verdict.padEnd(11)}  ${v.id.padEnd(width)}  ${v.statement.en}`;
    if (v.verdict === 'held') return [head];
    if (v.verdict === 'not checked') {
      const before = verdicts[i - 1];
      return before?.verdict === 'not checked' && before.why === v.why ? [head] : [head, `${indent}because ${v.why}`];
    }
    return [
      head,
      `${indent}${v.why}`,
      ...(v.values ?? []).map((value) => `${indent}${value.id} = ${value.value === undefined ? '(missing)' : JSON.stringify(value.value)}`),
    ];
  });
}

export function tally(verdicts: readonly ClaimVerdict[]): string {
  const count = (verdict: ClaimVerdict['verdict']) => verdicts.filter((v) => v.verdict === verdict).length;
  return `${count('held')} held, ${count('broken')} broken, ${count('not checked')} not checked`;
}
