// The capture's closing report: how the claims stand in the new run, and what
// differs from the run it is compared with: the committed snapshots it replaced,
// or, for a run written elsewhere (--out), the committed snapshots of the same
// article, environment and variant (or another run's folder, --compare).
// The report itself is pure (two runs in, lines out); reading the folders is at the edge.
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { evidenceFromDisk, type ArticleDefinitions } from '../../evidence/runs/from-disk.ts';
import type { ArticleEvidence } from '../../evidence/runs/types.ts';
import { byRole, diffRuns, isGeneratedPodName, roleTokens, withinNoise, type FactChange, type RunSide } from '../../evidence/diff.ts';
import { formatBrokenClaims } from '../../evidence/claims.ts';

/** One run as the report reads it: its id, steps, facts and claims, and the pod names the API generated in it. */
export interface ReportSide extends RunSide {
  /** Pods of the run named from a ReplicaSet's generateName (a Deployment's): chosen afresh on every run. */
  generatedPods: readonly string[];
}

export function runSide(evidence: ArticleEvidence): ReportSide {
  const { run } = evidence.snapshots;
  return {
    runId: run.runId,
    steps: run.steps,
    facts: evidence.facts,
    claims: evidence.claims,
    generatedPods: run.pods.map((p) => p.name).filter(isGeneratedPodName),
    deletes: [...evidence.snapshots.steps.values()].filter((s) => s.kind === 'delete-pod' || s.kind === 'recreate-pod').map((s) => s.id),
    commands: new Map([...evidence.snapshots.steps.values()].map((s) => [s.id, s.command])),
  };
}

/** The evidence of a snapshots folder, or why it cannot be read (a folder that is not there is not an error). */
export function tryEvidence(
  slug: string,
  dir: string,
  defs: ArticleDefinitions,
  variant: string | null = null,
  /** A run kept aside: facts it does not show are left out (and break their claims) instead of failing the read. */
  collectUnfound = false,
): { evidence?: ArticleEvidence; problem?: string } {
  if (!existsSync(join(dir, 'run.yaml'))) return { problem: `${dir} holds no run` };
  try {
    // One folder, one run: that variant's facts and claims (the default's when none is named).
    return { evidence: evidenceFromDisk(slug, dir, defs, { variants: false, variant, collectUnfound }) };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

export function claimsReport(evidence: ArticleEvidence): string {
  const broken = formatBrokenClaims(evidence.claims);
  const holds = evidence.claims.length - broken.length;
  if (!broken.length) return `claims: all ${evidence.claims.length} hold`;
  return [
    `claims: ${holds} hold, ${broken.length} no longer hold (the build will fail until the prose or the experiment changes; SHICE_DRAFT=1 builds anyway):`,
    ...broken,
  ].join('\n');
}

/**
 * The committed snapshots folder a capture's target is compared with. A target in the
 * article's folder is itself committed (the run replaces it). A target elsewhere (--out DIR)
 * is `<slug>` followed by the environment's and variant's suffix (`<slug>.lab.nftables`),
 * and its counterpart is `snapshots` with the same suffix (`snapshots.lab.nftables`).
 * Null for a folder named otherwise. Pure.
 */
export function committedCounterpart(target: string, slug: string, articleDir: string): string | null {
  if (resolve(dirname(target)) === resolve(articleDir)) return resolve(target);
  const name = basename(target);
  if (name !== slug && !name.startsWith(`${slug}.`)) return null;
  return join(resolve(articleDir), `snapshots${name.slice(slug.length)}`);
}

/** What a run is compared with, as the report names it. */
export interface Baseline {
  /** The folder compared with, as the report shows it. */
  folder: string;
  /** `replaced`: the committed snapshots the run replaced; `committed`: the committed snapshots of a run written elsewhere (--out, --compare). */
  kind: 'replaced' | 'committed';
  side?: ReportSide;
  /** Why there is nothing to compare with: the folder is not there. */
  nothing?: string;
  /** The folder is there but holds no run that reads. */
  problem?: string;
}

/**
 * Reads the committed counterpart of a capture's target (committedCounterpart): the edge the
 * report's baseline comes from. `show` says how a path is shown.
 */
export function readBaseline(
  input: { slug: string; target: string; articleDir: string; defs: ArticleDefinitions; variant: string | null },
  show: (path: string) => string,
): Baseline {
  const folder = committedCounterpart(input.target, input.slug, input.articleDir);
  const kind = folder !== null && folder === resolve(input.target) ? 'replaced' : 'committed';
  if (folder === null)
    return {
      folder: show(input.target),
      kind,
      nothing: `${show(input.target)} is named neither ${input.slug} nor ${input.slug}.<suffix>, so no committed folder matches it`,
    };
  return baselineOf(tryEvidence(input.slug, folder, input.defs, input.variant), existsSync(folder), show(folder), kind);
}

/** A baseline from a folder's evidence (tryEvidence) and whether the folder exists. */
export function baselineOf(read: { evidence?: ArticleEvidence; problem?: string }, exists: boolean, folder: string, kind: Baseline['kind']): Baseline {
  if (!exists) return { folder, kind, nothing: `no committed snapshots at ${folder}` };
  if (!read.evidence) return { folder, kind, problem: read.problem ?? 'it holds no run' };
  return { folder, kind, side: runSide(read.evidence) };
}

/** Reasons of diff.ts whose values are not names or numbers picked by the run, so never masked inside other values. */
const NOT_A_TOKEN = new Set(['duration within its noise', 'timing inside a message', 'only its random-by-design parts changed']);
const TIME_OF_RUN = /(^run\.(finishedAt|durationMs)$)|\.finishedAt$/;
const GENERATED = "generated pod name (a Deployment's ReplicaSet names its Pods afresh on every run)";
const COMPOSITE = 'only its volatile parts changed';
/** diff.ts's reason for a value that plays the same role in both runs' topologies: never masked inside other values. */
const SAME_ROLE = 'the same role in both runs';

export interface ReportedChange extends FactChange {
  /** Why this change is expected on any re-run (diff.ts's reasons, and the ones below); absent on a change in behaviour. */
  volatile?: string;
}

/** Why a fact's change is volatile beyond what diff.ts says, or undefined: a change in behaviour. */
function moreVolatility(change: FactChange, old: ReportSide, next: ReportSide): string | undefined {
  const a = change.old;
  const b = change.new;
  // A run fact of a Pod named afresh (pod.<name>.ip, .node, .image) is keyed by a name the other run does not have.
  const pod = /^pod\.(.+)\.(?:ip|node|image)$/.exec(change.id)?.[1];
  if (pod !== undefined && (a === undefined ? next : old).generatedPods.includes(pod)) return GENERATED;
  if (a === undefined || b === undefined) return undefined;
  const declared = next.facts.get(change.id)?.volatile ?? old.facts.get(change.id)?.volatile;
  if (declared) return `declared volatile: ${declared.reason}`;
  if (change.volatile) return change.volatile;
  // A time is judged by diff.ts: timing, or a change in what a step's client saw.
  if (change.timing !== undefined || change.outcomes !== undefined) return undefined;
  if (TIME_OF_RUN.test(change.id)) return 'time of the run';
  if (old.generatedPods.includes(a) && next.generatedPods.includes(b)) return GENERATED;
  return undefined;
}

/** A run's values that are its own by design (run id, generated pod names, values whose change is volatile), longest first. */
function tokens(side: ReportSide, volatileIds: ReadonlySet<string>): string[] {
  const found = new Set<string>([side.runId, ...side.generatedPods]);
  for (const id of volatileIds) {
    const value = side.facts.get(id)?.value;
    if (value !== undefined && value.length >= 2) found.add(value);
  }
  for (const fact of side.facts.values()) if (fact.volatile && fact.value.length >= 2) found.add(fact.value);
  return [...found].sort((x, y) => y.length - x.length);
}

function mask(value: string, masks: readonly string[]): string {
  let masked = value;
  for (const token of masks) masked = masked.split(token).join('\u2039v\u203a');
  return masked;
}

/** Every fact change between two runs, each volatile one with its reason. Pure. */
export function reportedChanges(old: ReportSide, next: ReportSide): { diff: ReturnType<typeof diffRuns>; facts: ReportedChange[] } {
  const diff = diffRuns(old, next);
  const first = diff.facts.map((change): ReportedChange => {
    const reason = moreVolatility(change, old, next);
    if (reason === undefined) return change;
    // A Pod named afresh takes its image fact with it: the name is volatile, not the environment.
    const { environment: _environment, ...rest } = change;
    return { ...rest, volatile: reason };
  });
  // A composite value (an argv, a rule) that differs only in the run's own names and numbers, its addresses and ports by role.
  const maskable = new Set(first.filter((c) => c.volatile !== undefined && !NOT_A_TOKEN.has(c.volatile) && !c.volatile.startsWith(SAME_ROLE)).map((c) => c.id));
  const [oldTokens, newTokens] = [tokens(old, maskable), tokens(next, maskable)];
  const [oldRoles, newRoles] = [roleTokens(old), roleTokens(next)];
  const facts = first.map((c): ReportedChange => {
    if (c.volatile !== undefined || c.old === undefined || c.new === undefined) return c;
    const [a, b] = [mask(byRole(c.old, oldRoles), oldTokens), mask(byRole(c.new, newRoles), newTokens)];
    // Also what a stand-in read for a Pod named afresh ("pods.default/web-…-kl4h9.readinessProbe"): no environment change.
    const { environment: _environment, ...change } = c;
    if (a === b) return { ...change, volatile: COMPOSITE };
    if (durationsWithinNoise(a, b)) return { ...change, volatile: TIMING_IN_TEXT };
    return c;
  });
  return { diff, facts };
}

/** A duration written in a text: `exited after 16 ms`, `took 1.5 s`. */
const DURATION_IN_TEXT = /(\d+(?:\.\d+)?) ?(ms|s)\b/g;
const TIMING_IN_TEXT = 'durations inside a text, within their noise';

/** Two texts the same but for the durations written in them, each within its noise ("grace 30 s" -> "grace 60 s" is not). */
function durationsWithinNoise(a: string, b: string): boolean {
  const template = (text: string) => text.replace(DURATION_IN_TEXT, '\u2039d\u203a$2');
  if (template(a) !== template(b) || template(a) === a) return false;
  const seconds = (text: string) => [...text.matchAll(DURATION_IN_TEXT)].map((m) => Number(m[1]) / (m[2] === 'ms' ? 1000 : 1));
  const [x, y] = [seconds(a), seconds(b)];
  return x.every((value, i) => withinNoise(value, y[i]!));
}

const show = (value: string | undefined) => (value === undefined ? '(none)' : JSON.stringify(value));
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const BASELINE_WORDS: Record<Baseline['kind'], string> = {
  replaced: 'the committed snapshots it replaced',
  committed: 'the committed snapshots',
};

/**
 * The "what changed" report of a run against its baseline, as lines: a headline that says
 * plainly whether the behaviour changed, the environment changed, or neither; the folder
 * compared with; every change in behaviour (claims, steps, facts); the environment's changes;
 * then the volatile values apart. Pure.
 */
export function whatChangedLines(baseline: Baseline, next: ReportSide): string[] {
  return whatChanged(baseline, next).lines;
}

/** What a report says of a run, in a word: the headline's verdict. */
export type Verdict = 'behaviour changed' | 'environment changed' | 'no change in behaviour' | 'not compared';

/** The report and its verdict. Pure. */
export function whatChanged(baseline: Baseline, next: ReportSide): { verdict: Verdict; lines: string[] } {
  if (baseline.nothing !== undefined) return { verdict: 'not compared', lines: [`what changed: nothing to compare with (${baseline.nothing})`] };
  if (!baseline.side)
    return {
      verdict: 'not compared',
      lines: [`what changed: not compared: ${BASELINE_WORDS[baseline.kind]} ${baseline.folder} cannot be read: ${baseline.problem}`],
    };
  const old = baseline.side;
  const { diff, facts } = reportedChanges(old, next);
  const environment = facts.filter((f) => f.environment);
  const timing = facts.filter((f) => f.volatile === undefined && f.timing !== undefined);
  const real = facts.filter((f) => f.volatile === undefined && f.timing === undefined && !f.environment && !f.newlyRecorded);
  const recorded = facts.filter((f) => f.newlyRecorded);
  const volatile = facts.filter((f) => f.volatile !== undefined);
  const parts = [
    diff.claims.length ? count(diff.claims.length, 'claim') : '',
    diff.addedSteps.length ? count(diff.addedSteps.length, 'new step') : '',
    diff.missingSteps.length ? count(diff.missingSteps.length, 'missing step') : '',
    real.length ? count(real.length, 'fact') : '',
  ].filter(Boolean);
  // One of three, in this order: a change in what the software did, else in where it ran, else none.
  const headline = parts.length
    ? `what changed: the behaviour changed (${parts.join(', ')})`
    : environment.length
      ? `what changed: the environment changed (${count(environment.length, 'fact')}: versions, packages, images or the host)`
      : `what changed: no change in behaviour (${
          [
            volatile.length ? `only volatile values differ: ${count(volatile.length, 'fact')}` : '',
            timing.length ? `timing apart: ${count(timing.length, 'time')}` : '',
            recorded.length ? `${count(recorded.length, 'fact')} recorded by this run only` : '',
          ]
            .filter(Boolean)
            .join('; ') || 'no value differs'
        })`;
  const verdict: Verdict = parts.length ? 'behaviour changed' : environment.length ? 'environment changed' : 'no change in behaviour';
  const lines = [headline, `  compared run ${next.runId} with run ${old.runId}, ${BASELINE_WORDS[baseline.kind]} ${baseline.folder}`];
  for (const c of diff.claims) lines.push(`  claim ${c.id}: ${c.old ?? '(none)'} -> ${c.new ?? '(none)'}`);
  for (const s of diff.addedSteps) lines.push(`  new step: ${s}`);
  for (const s of diff.missingSteps) lines.push(`  missing step: ${s}`);
  // A value whose role changed says which: "10.244.2.1" (worker's gateway) -> "10.244.2.1" (worker2's).
  const withRole = (value: string | undefined, role: string | undefined) => `${show(value)}${role !== undefined && role !== value ? ` (${role})` : ''}`;
  const outcome = (f: ReportedChange, side: 'old' | 'new') => (f.outcomes ? ` (${f.outcomes[side]})` : '');
  for (const f of real) lines.push(`  ${f.id}: ${withRole(f.old, f.roles?.old)}${outcome(f, 'old')} -> ${withRole(f.new, f.roles?.new)}${outcome(f, 'new')}`);
  if (environment.length) {
    lines.push(`  the environment, where the run ran rather than what it did (${count(environment.length, 'fact')}):`);
    for (const f of environment) lines.push(`    ${f.id}: ${show(f.old)} -> ${show(f.new)}`);
  }
  if (recorded.length) {
    lines.push(`  recorded by this run only, the older run's capture did not record them, not a change in behaviour (${count(recorded.length, 'fact')}):`);
    for (const f of recorded) lines.push(`    + ${f.id}: ${show(f.new)}`);
  }
  if (timing.length) {
    lines.push(`  timing drifted, not a change in behaviour: every client saw what it saw before (${count(timing.length, 'time')}):`);
    const unit = (id: string) => (/Ms$/.test(id) ? ' ms' : /\.settlePolls$/.test(id) ? ' polls' : ' s');
    for (const f of timing) lines.push(`    ~ ${f.id}: ${f.old} -> ${f.new}${unit(f.id)} (${f.timing})`);
  }
  if (volatile.length) {
    lines.push(`  volatile, expected to differ on every run, not a change in behaviour (${count(volatile.length, 'fact')}):`);
    const byReason = new Map<string, ReportedChange[]>();
    for (const f of volatile) byReason.set(f.volatile!, [...(byReason.get(f.volatile!) ?? []), f]);
    for (const [reason, changes] of byReason) lines.push(`    ~ ${reason}: ${changes.map((c) => c.id).join(', ')}`);
  }
  return { verdict, lines };
}

/** Many runs' verdicts as one, the weightiest first: a change in behaviour, then in the environment, then none. */
export function overallVerdict(verdicts: readonly Verdict[]): Verdict {
  for (const v of ['behaviour changed', 'environment changed', 'no change in behaviour'] as const) if (verdicts.includes(v)) return v;
  return 'not compared';
}
