// Environments: the systems an experiment is measured in (a real kind cluster,
// the namespace lab), a dimension beside variants. Each environment is a
// complete set of runs (every variant) with its own provenance; the first
// declared is the headline, the one the article's unqualified bindings read.
// Which environments an experiment has, which one a driver measures, and where
// each environment's snapshots live. Pure: no I/O.
import { ENVIRONMENTS, type EnvironmentName, type Experiment } from './types.ts';
import type { DriverName } from './drivers.ts';

/** The driver that measures each environment: a run in an environment's folder names it in run.yaml's `driver`. */
export const DRIVER_OF: Readonly<Record<EnvironmentName, DriverName>> = { kind: 'kind', lab: 'lab' };

/** The drivers a capture takes: those that measure an environment, in the environments' order. */
export const CAPTURE_DRIVER_NAMES = ENVIRONMENTS.map((e) => DRIVER_OF[e]) as [DriverName, ...DriverName[]];

/** The environment a driver measures; null for one that measures none (verify's). */
export function environmentMeasuredBy(driver: string): EnvironmentName | null {
  return ENVIRONMENTS.find((e) => DRIVER_OF[e] === driver) ?? null;
}

/** The problems of an experiment's environment declaration, one line each, naming the file and field. */
export function environmentProblems(experiment: Experiment, file: string): string[] {
  const declared = experiment.environments;
  if (declared === undefined) return [];
  const problems: string[] = [];
  if (!declared.length) problems.push(`${file}: field "experiment.environments": expected at least one of ${ENVIRONMENTS.join(', ')}`);
  for (const name of declared) {
    if (!(ENVIRONMENTS as readonly string[]).includes(name))
      problems.push(`${file}: field "experiment.environments": expected ${ENVIRONMENTS.join(', ')}, got ${JSON.stringify(name)}`);
  }
  if (new Set(declared).size !== declared.length) problems.push(`${file}: field "experiment.environments": an environment is listed twice`);
  return problems;
}

/** Every environment the experiment is measured in, the headline first; kind alone when it declares none. */
export function environmentsOf(experiment: Experiment | null): EnvironmentName[] {
  return experiment?.environments?.length ? [...experiment.environments] : ['kind'];
}

export function headlineEnvironment(experiment: Experiment | null): EnvironmentName {
  return environmentsOf(experiment)[0]!;
}

/**
 * The environment a capture with `driver` measures. A driver the experiment
 * does not declare is refused: its run would have no place on the page.
 */
export function environmentOfDriver(experiment: Experiment, driver: DriverName): EnvironmentName {
  const declared = environmentsOf(experiment);
  const environment = environmentMeasuredBy(driver);
  if (environment === null) throw new Error(`--driver ${driver}: it measures no environment of an article (npm run verify runs it)`);
  if (!declared.includes(environment))
    throw new Error(`--driver ${driver}: ${experiment.slug} is measured in ${declared.join(', ')} (article.ts, field "experiment.environments")`);
  return environment;
}

/**
 * Where an environment's runs live, given the headline's folder (`<article>/snapshots`,
 * or `--out DIR/<slug>`): the headline there, every other beside it as
 * `<folder>.<environment>`; its variants then beside that (`snapshots.lab.nftables`).
 */
export function environmentFolder(headlineFolder: string, environment: EnvironmentName, headline: EnvironmentName): string {
  return environment === headline ? headlineFolder : `${headlineFolder}.${environment}`;
}
