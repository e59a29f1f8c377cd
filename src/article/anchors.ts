// Ids of the places a page links to: one home per step's raw output and per
// step's row in the run record, so every other mention is a link, not a copy.

/** Where a step's command and raw output are rendered (once per page). */
export function stepOutputId(step: string): string {
  return `output-${step}`;
}

/** The step's row in the run record. */
export function runStepId(step: string): string {
  return `run-step-${step}`;
}
