// Ids of the places a page links to: one home per step's raw output and per
// step's row in the run record, so every other mention is a link, not a copy.

/**
 * Where a step's command and raw output are rendered (once per page); a step of
 * another variant's run than the article's own has its own place.
 */
export function stepOutputId(step: string, variant?: string): string {
  return variant ? `output-${variant}-${step}` : `output-${step}`;
}

/** The step's row in the run record. */
export function runStepId(step: string, variant?: string): string {
  return variant ? `run-step-${variant}-${step}` : `run-step-${step}`;
}

/** The run record of a variant's run (the article's own: `provenance`). */
export function provenanceId(variant?: string): string {
  return variant ? `provenance-${variant}` : 'provenance';
}
