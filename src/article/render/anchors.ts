// Ids of the places a page links to: one home per step's raw output on a page
// and per step's row in its run's record, so every other mention is a link, not a copy.

/**
 * Where a step's command and raw output are rendered (once per page); a step of
 * another variant's run than the article's own has its own place.
 */
export function stepOutputId(step: string, variant?: string): string {
  return variant ? `output-${variant}-${step}` : `output-${step}`;
}

/** The step's row in its run's record (a page per run, so no variant in the id). */
export function runStepId(step: string): string {
  return `run-step-${step}`;
}

/** The note in an article that names a run and links to its record (the article's own run: `provenance`; others by their run key). */
export function provenanceId(run?: string): string {
  return run ? `provenance-${run}` : 'provenance';
}

/** The description of a run's environment (the article's own run: `run-environment`, which its badge links to; others by their run key). */
export function runEnvironmentId(run?: string): string {
  return run ? `run-environment-${run}` : 'run-environment';
}

/** A claim's entry in a run's record: the values it read there, each linked to the step output it came from. */
export function claimEntryId(claim: string): string {
  return `claim-${claim}`;
}
