// Facts: the values a page binds, each derived by a pure function from one
// snapshot (a step, or run.yaml). A page never formats a snapshot itself; it
// shows a fact, and the fact says which step it came from.
import type { RunSnapshot, StepSnapshot } from './schema.ts';
import type { Snapshots } from './load.ts';
import { join } from 'node:path';
import { EvidenceError, ExtractError, displayPath } from './errors.ts';
import { readableStep } from './raw-stream.ts';

export interface FactInput {
  run: RunSnapshot;
  /** The step named by the def; undefined for run facts. */
  step: StepSnapshot | undefined;
}

export interface FactValue {
  value: string;
  /** The exact value when `value` is rounded (a duration's milliseconds). */
  raw?: string;
}

export interface FactDef {
  id: string;
  /** A step id, or 'run' for run metadata. */
  step: string;
  derive: (input: FactInput) => FactValue;
  /**
   * Set when the value exists only in some runs (e.g. a version only one driver
   * records): a run without it skips the fact instead of failing. Say why.
   */
  optional?: { reason: string };
  /** Set on values the experiment declares (a manifest's replica count), which bind as declared, not measured. */
  declared?: { file: string };
  /**
   * Set when the value differs on every run by design, without the behaviour
   * changing (a name or number the run picks afresh): the capture's "what changed"
   * report lists a change of it apart, as volatile, with this reason. Say why.
   */
  volatile?: { reason: string };
}

export interface Fact {
  id: string;
  step: string;
  value: string;
  raw?: string;
  /** The experiment file that declares the value; absent on measured values. */
  declared?: { file: string };
  /** Its definition's `volatile`: the value differs on every run by design. */
  volatile?: { reason: string };
  /** A placeholder in a draft of an article that has not been captured yet. */
  unmeasured?: true;
}

export interface SkippedFact {
  id: string;
  step: string;
  reason: string;
  /** What the extractor said. */
  cause: string;
}

/** A fact whose extractor did not find its value in this run: what it looked for, and in which file. */
export interface UnfoundFact {
  id: string;
  step: string;
  file: string;
  message: string;
}

/** Dotted segments of letters, digits and dashes: `local-via-worker2.rc`, `service.s-lb.healthCheckNodePort`. */
export const FACT_ID = /^[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9][A-Za-z0-9-]*)*$/;

export const RUN_STEP = 'run';
/** The step of a declared fact: it comes from the experiment's files, not from a snapshot. */
export const DECLARED_STEP = 'declared';

function checkDefs(defs: readonly FactDef[]): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const def of defs) {
    if (!FACT_ID.test(def.id)) problems.push(`fact id ${JSON.stringify(def.id)}: expected dotted segments of letters, digits and dashes`);
    if (seen.has(def.id)) problems.push(`fact id ${JSON.stringify(def.id)} is declared twice`);
    if (def.volatile !== undefined && !(typeof def.volatile.reason === 'string' && def.volatile.reason.trim()))
      problems.push(`fact id ${JSON.stringify(def.id)}: volatile needs a reason (why the value differs on every run)`);
    seen.add(def.id);
  }
  if (problems.length) throw new EvidenceError(problems);
}

/**
 * Derives every fact; optional ones that cannot be derived from this run are reported in `skipped`.
 * A fact not found fails the derivation, naming file, fact and what was looked for; with `collect`
 * (a capture judging its run) it is listed in `unfound` instead, and the claims that read it break.
 */
export function deriveFactsWithSkips(
  defs: readonly FactDef[],
  snapshots: Snapshots,
  options: { collect?: boolean } = {},
): { facts: Map<string, Fact>; skipped: SkippedFact[]; unfound: UnfoundFact[] } {
  checkDefs(defs);
  const facts = new Map<string, Fact>();
  const skipped: SkippedFact[] = [];
  const unfound: UnfoundFact[] = [];
  const problems: string[] = [];
  for (const def of defs) {
    const isRun = def.step === RUN_STEP || def.step === DECLARED_STEP;
    const file =
      def.declared?.file ?? (isRun ? snapshots.files.run : (snapshots.files.steps.get(def.step) ?? displayPath(join(snapshots.dir, `${def.step}.yaml`))));
    const step = isRun ? undefined : snapshots.steps.get(def.step);
    try {
      if (!isRun && !step) {
        throw new ExtractError(`no such step snapshot (run.yaml lists: ${snapshots.run.steps.join(', ')})`);
      }
      const derived = def.derive({ run: snapshots.run, step: step && readableStep(step) });
      if (typeof derived.value !== 'string' || derived.value === '') {
        throw new ExtractError(`the derived value is empty`);
      }
      facts.set(def.id, {
        id: def.id,
        step: def.step,
        value: derived.value,
        ...(derived.raw === undefined ? {} : { raw: derived.raw }),
        ...(def.declared === undefined ? {} : { declared: def.declared }),
        ...(def.volatile === undefined ? {} : { volatile: def.volatile }),
      });
    } catch (error) {
      if (!(error instanceof ExtractError)) throw error;
      if (def.optional) {
        skipped.push({ id: def.id, step: def.step, reason: def.optional.reason, cause: error.message });
      } else if (options.collect) {
        unfound.push({ id: def.id, step: def.step, file, message: error.message });
      } else {
        problems.push(`${file}: fact "${def.id}": ${error.message}`);
      }
    }
  }
  if (problems.length) throw new EvidenceError(problems);
  return { facts, skipped, unfound };
}

/** Every fact by id; throws one EvidenceError naming each step file and what was looked for. */
export function deriveFacts(defs: readonly FactDef[], snapshots: Snapshots): Map<string, Fact> {
  return deriveFactsWithSkips(defs, snapshots).facts;
}
