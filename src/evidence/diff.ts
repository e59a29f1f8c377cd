// What changed between two runs of an experiment: facts (old -> new), steps that
// appeared or disappeared, claims whose status changed. Values that differ on
// every run by design (random ports, pod IPs, timestamps, durations within their
// noise) are marked volatile, so what really changed stands out. Pure.
import type { Fact } from './facts.ts';
import type { ClaimResult } from './claims.ts';

export interface RunSide {
  runId: string;
  steps: readonly string[];
  facts: ReadonlyMap<string, Fact>;
  claims: readonly ClaimResult[];
}

export interface FactChange {
  id: string;
  old: string | undefined;
  new: string | undefined;
  /** Why this change is expected on any re-run; undefined for a real change. */
  volatile?: string;
}

export interface ClaimChange {
  id: string;
  old: ClaimResult['status'] | undefined;
  new: ClaimResult['status'] | undefined;
}

export interface RunDiff {
  oldRun: string;
  newRun: string;
  facts: FactChange[];
  addedSteps: string[];
  missingSteps: string[];
  claims: ClaimChange[];
}

/** Facts whose value is chosen afresh on every run. */
const RANDOM_BY_DESIGN: [RegExp, string][] = [
  [/\.(nodePort|healthCheckNodePort|dropPort)$/, 'port allocated at random'],
  [/^service\..*\.clusterIP$/, 'ClusterIP allocated at random'],
  [/^conntrack-.*\.(sport|dport)$/, 'ephemeral or SNAT port'],
  [/^pod\..*\.ip$/, 'pod IP assigned at run time'],
  [/(^run\.(id|date|startedAt|seconds)$)|\.startedAt$/, 'time of the run'],
  [/^(run\.version|version)\./, 'tool version of the capturing machine'],
];

/** A duration changed by less than this is noise: 0.5 s, or a fifth of the old value. */
export function withinNoise(oldSeconds: number, newSeconds: number): boolean {
  return Math.abs(newSeconds - oldSeconds) <= Math.max(0.5, oldSeconds * 0.2);
}

function simpleVolatility(id: string, oldValue: string, newValue: string): string | undefined {
  for (const [pattern, reason] of RANDOM_BY_DESIGN) if (pattern.test(id)) return reason;
  if (/\.seconds$/.test(id) && withinNoise(Number(oldValue), Number(newValue))) return 'duration within its noise';
  // "Connection timed out after 3001 milliseconds" vs "... 3004 ...": the same message, another timing.
  if (/\.error$/.test(id) && oldValue.replace(/\d+/g, '#') === newValue.replace(/\d+/g, '#')) return 'timing inside a message';
  return undefined;
}

/** The values of a run's random-by-design facts, longest first, to mask them inside composite values. */
function volatileTokens(side: RunSide): string[] {
  const tokens = new Set<string>([side.runId]);
  for (const fact of side.facts.values()) {
    if (RANDOM_BY_DESIGN.some(([pattern]) => pattern.test(fact.id)) && fact.value.length >= 2) tokens.add(fact.value);
  }
  return [...tokens].sort((a, b) => b.length - a.length);
}

function mask(value: string, tokens: readonly string[]): string {
  let masked = value;
  for (const token of tokens) masked = masked.split(token).join('\u2039v\u203a');
  return masked;
}

export function diffRuns(old: RunSide, next: RunSide): RunDiff {
  const oldTokens = volatileTokens(old);
  const newTokens = volatileTokens(next);
  const facts: FactChange[] = [];
  const ids = [...new Set([...old.facts.keys(), ...next.facts.keys()])].sort();
  for (const id of ids) {
    const a = old.facts.get(id)?.value;
    const b = next.facts.get(id)?.value;
    if (a === b) continue;
    let volatile: string | undefined;
    if (a !== undefined && b !== undefined) {
      volatile = simpleVolatility(id, a, b);
      // A composite value (a rule, an argv, a conntrack line) that differs only in random-by-design parts.
      if (!volatile && mask(a, oldTokens) === mask(b, newTokens)) volatile = 'only its random-by-design parts changed';
    }
    facts.push({ id, old: a, new: b, ...(volatile ? { volatile } : {}) });
  }
  const claimIds = [...new Set([...old.claims.map((c) => c.id), ...next.claims.map((c) => c.id)])];
  const claims = claimIds
    .map((id) => ({ id, old: old.claims.find((c) => c.id === id)?.status, new: next.claims.find((c) => c.id === id)?.status }))
    .filter((c) => c.old !== c.new);
  return {
    oldRun: old.runId,
    newRun: next.runId,
    facts,
    addedSteps: next.steps.filter((s) => !old.steps.includes(s)),
    missingSteps: old.steps.filter((s) => !next.steps.includes(s)),
    claims,
  };
}

const show = (value: string | undefined) => (value === undefined ? '(none)' : JSON.stringify(value));

export function formatRunDiff(diff: RunDiff): string {
  const real = diff.facts.filter((f) => !f.volatile);
  const volatile = diff.facts.filter((f) => f.volatile);
  const lines = [`what changed from run ${diff.oldRun} to run ${diff.newRun}:`];
  for (const c of diff.claims) lines.push(`  claim ${c.id}: ${c.old ?? '(none)'} -> ${c.new ?? '(none)'}`);
  for (const s of diff.addedSteps) lines.push(`  new step: ${s}`);
  for (const s of diff.missingSteps) lines.push(`  missing step: ${s}`);
  for (const f of real) lines.push(`  ${f.id}: ${show(f.old)} -> ${show(f.new)}`);
  if (!diff.claims.length && !diff.addedSteps.length && !diff.missingSteps.length && !real.length) {
    lines.push('  nothing but volatile values: every claim and every other fact is as before');
  }
  if (volatile.length) {
    lines.push(`  volatile, expected to differ on every run (${volatile.length} fact(s)):`);
    const byReason = new Map<string, FactChange[]>();
    for (const f of volatile) byReason.set(f.volatile!, [...(byReason.get(f.volatile!) ?? []), f]);
    for (const [reason, changes] of byReason) lines.push(`    ~ ${reason}: ${changes.map((c) => c.id).join(', ')}`);
  }
  return lines.join('\n');
}
