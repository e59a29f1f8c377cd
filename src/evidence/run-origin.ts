// Whether a run is what its run.yaml says it is. The driver named there is one
// field anybody can edit; what each driver really leaves in a run is how every
// command entered its node (kind: `docker exec <node container>`, the lab:
// `ip netns exec shice-lab-<run id>.node.<node>`) and the versions only it
// records. A run whose commands or versions contradict its driver would put one
// environment's measurements on another's page. Pure.
import { DRIVERS } from '../experiment/drivers.ts';
import type { RunSnapshot, StepSnapshot } from './schema.ts';

const startsWith = (argv: readonly string[], prefix: readonly string[]) => prefix.every((word, i) => argv[i] === word);

/** One line per contradiction between the driver run.yaml names and what the run holds; none when it is consistent. */
export function originProblems(
  run: RunSnapshot,
  steps: ReadonlyMap<string, StepSnapshot>,
  files: { run: string; steps: ReadonlyMap<string, string> },
): string[] {
  const origin = DRIVERS[run.driver];
  const problems: string[] = [];
  const named = `run.yaml names driver ${JSON.stringify(run.driver)}`;
  for (const key of origin.versions) {
    if (!(key in run.versions)) problems.push(`${files.run}: field "versions.${key}": missing; ${named}, which records it in every run`);
  }
  for (const [other, { versions }] of Object.entries(DRIVERS)) {
    if (other === run.driver) continue;
    for (const key of versions.filter((k) => !(origin.versions as readonly string[]).includes(k) && k in run.versions))
      problems.push(`${files.run}: field "versions.${key}": recorded only by the ${other} driver; ${named}`);
  }
  for (const [id, step] of steps) {
    const { prefix, said } = origin.enters(run, step.node);
    if (!startsWith(step.argv, prefix))
      problems.push(
        `${files.steps.get(id) ?? id}: field "argv": expected a command entered by ${said} (${named}, node ${JSON.stringify(step.node)}), got ${JSON.stringify(step.argv.slice(0, prefix.length).join(' '))}`,
      );
  }
  return problems;
}
