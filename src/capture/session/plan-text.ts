// What --dry-run prints for one run: the plan's commands in order, each a line a
// POSIX shell accepts as that exact argv, under `#` comments a shell ignores. Pure.
import type { StepDef } from '../../experiment/types.ts';
import { shellCommand } from '../../evidence/shell-quote.ts';

export interface PlanOfRun {
  setup: readonly string[][];
  steps: ReadonlyArray<{ step: Pick<StepDef, 'id' | 'title'>; node: string; argvs: readonly string[][] }>;
  teardown: readonly string[][];
}

/** A comment stays one line, whatever a title holds. */
const comment = (text: string) => `# ${text.replace(/\s*[\r\n]+\s*/g, ' ')}`;

export function planLines(plan: PlanOfRun, run: { slug: string; variant: string | null; driver: string; otherRelease?: string | null }): string[] {
  const release = run.otherRelease ? ` on Kubernetes ${run.otherRelease}` : '';
  return [
    comment(`${run.slug}${run.variant === null ? '' : ` variant ${run.variant}`}${release} with --driver ${run.driver}: setup`),
    ...plan.setup.map(shellCommand),
    ...plan.steps.flatMap(({ step, node, argvs }) => [comment(`step ${step.id} (${node}): ${step.title}, then the health check`), ...argvs.map(shellCommand)]),
    comment('teardown'),
    ...plan.teardown.map(shellCommand),
  ];
}
