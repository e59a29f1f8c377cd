// The facts every step has, whatever the article declares: how it ran. The
// reader's provenance view binds these, so its numbers are facts like any other.
import { shellCommand } from './shell-quote.ts';
import { runFact, stepFact } from './fact-kit.ts';
import type { FactDef } from './facts.ts';
import type { RunSnapshot } from './schema.ts';
import { durationSeconds } from './extract/duration.ts';
import { runDate, version } from './extract/run.ts';
import { LANGS } from './template.ts';

export function provenanceFacts(run: RunSnapshot): FactDef[] {
  return [
    ...run.steps.flatMap((step) => [
      stepFact(`${step}.rc`, step, (s) => String(s.exitCode)),
      stepFact(`${step}.seconds`, step, (s) => durationSeconds(s.durationMs)),
      stepFact(`${step}.node`, step, (s) => s.node),
      stepFact(`${step}.argv`, step, (s) => shellCommand(s.argv)),
      stepFact(`${step}.command`, step, (s) => shellCommand(s.command)),
      stepFact(`${step}.startedAt`, step, (s) => s.startedAt),
    ]),
    runFact('run.id', (run) => run.runId),
    runFact('run.driver', (run) => run.driver),
    runFact('run.startedAt', (run) => run.startedAt),
    runFact('run.finishedAt', (run) => run.finishedAt),
    // What every article's run badge binds: the day of the run, and Kubernetes' version (else the kernel's).
    runFact('run.date', (run) => runDate(run)),
    runFact('version.kernel', (run) => run.host.kernel),
    ...(run.versions.kubernetes === undefined ? [] : [runFact('version.kubernetes', (r) => version(r, 'kubernetes'))]),
    // The driver's words about the run, in each language: a page binds its reader's.
    ...LANGS.flatMap((lang) => [
      runFact(`run.environment.summary.${lang}`, (r) => r.environment.summary[lang]),
      runFact(`run.environment.standsFor.${lang}`, (r) => r.environment.standsFor[lang]),
      ...run.environment.limits.map((_, i) => runFact(`run.environment.limit.${i + 1}.${lang}`, (r) => r.environment.limits[i]?.[lang] ?? '')),
    ]),
    // What a stand-in decided or read, one row each (absent when nothing stood in).
    ...(run.environment.standIn ?? []).flatMap((decision, i) => {
      const row = (r: RunSnapshot) => r.environment.standIn?.[i];
      return [
        runFact(`run.standIn.${i + 1}.field`, (r) => row(r)?.field ?? ''),
        runFact(`run.standIn.${i + 1}.value`, (r) => row(r)?.value ?? ''),
        runFact(`run.standIn.${i + 1}.source`, (r) => row(r)?.source ?? ''),
        // A value the stand-in chose has no source to name.
        ...(decision.from === undefined ? [] : [runFact(`run.standIn.${i + 1}.from`, (r) => row(r)?.from ?? '')]),
        runFact(`run.standIn.${i + 1}.nodes`, (r) => row(r)?.nodes.join(', ') ?? ''),
        ...LANGS.map((lang) => runFact(`run.standIn.${i + 1}.${lang}`, (r) => row(r)?.[lang] ?? '')),
      ];
    }),
    runFact('run.host', (run) => `${run.host.os} ${run.host.arch}, kernel ${run.host.kernel}`),
    ...Object.keys(run.versions).map((tool) => runFact(`run.version.${tool}`, (r) => r.versions[tool] ?? '')),
  ];
}

/** An article's own facts and, for every id it does not declare itself, the run's: what the build derives. */
export function withRunFacts(defs: FactDef[], run: RunSnapshot): FactDef[] {
  const declared = new Set(defs.map((d) => d.id));
  return [...defs, ...provenanceFacts(run).filter((d) => !declared.has(d.id))];
}
