// What `npm test` costs, read from its own summary, and what 20 more articles
// add to it. Pure: parsing the summary, the figures.
import { measured, notMeasured, type Figure } from './figures.ts';

/** Articles the bench adds to a copy of the repository to see what they cost `npm test`. */
export const MORE_ARTICLES = 20;
/** What the issue allows 20 more articles to add to a warm `npm test`. */
export const MORE_ARTICLES_TARGET_S = 60;
/** A warm `npm test` on 2 cores. */
export const WARM_TARGET_S = 12 * 60;

export interface NpmTestRun {
  /** Process start to exit. */
  wallSeconds: number;
  cpuSeconds: number | null;
  exitCode: number | null;
  /** Its summary: each suite's name and seconds, in the order printed. */
  suites: { name: string; ok: boolean; seconds: number }[];
}

/** Each suite's line of `npm test`'s summary (`ok   <name> (<s> s)…` or `FAIL …`); other lines are not read. */
export function summarySuites(output: string): NpmTestRun['suites'] {
  const at = output.lastIndexOf('\n=== summary');
  const summary = at >= 0 ? output.slice(at) : output.startsWith('=== summary') ? output : '';
  return [...summary.matchAll(/^(ok  |FAIL) (.+?) \((\d+(?:\.\d+)?) s\)(?::|$)/gm)].map((m) => ({ name: m[2]!, ok: m[1] === 'ok  ', seconds: Number(m[3]) }));
}

const failed = (run: NpmTestRun) =>
  run.exitCode !== 0
    ? `exit ${run.exitCode ?? 'by a signal'}${
        run.suites.some((s) => !s.ok)
          ? `, failed: ${run.suites
              .filter((s) => !s.ok)
              .map((s) => s.name)
              .join(', ')}`
          : ''
      }`
    : null;

const cpu = (run: NpmTestRun) => (run.cpuSeconds === null ? 'CPU not read' : `${run.cpuSeconds.toFixed(0)} s CPU`);

/** The warm run of the repository as it is, against its target; and what 20 more articles add to it, per suite. */
export function npmTestFigures(asIs: NpmTestRun | { failure: string }, more: NpmTestRun | { failure: string }): Figure[] {
  const warm = {
    id: 'tests.warm',
    group: 'tests' as const,
    unit: 's' as const,
    label: 'npm test, warm: the repository as it is',
    target: { op: '<=' as const, value: WARM_TARGET_S },
  };
  const added = {
    id: 'tests.moreArticles',
    group: 'tests' as const,
    unit: 's' as const,
    label: `npm test, ${MORE_ARTICLES} more articles: warm, added to the repository as it is`,
    target: { op: '<=' as const, value: MORE_ARTICLES_TARGET_S },
  };
  const figures: Figure[] = [];
  const asIsProblem = 'failure' in asIs ? asIs.failure : failed(asIs);
  figures.push(
    asIsProblem === null && !('failure' in asIs)
      ? measured(warm, asIs.wallSeconds, { note: `${cpu(asIs)}; ${asIs.suites.map((s) => `${s.name.split(' ')[0]} ${s.seconds.toFixed(0)}`).join(', ')} s` })
      : notMeasured(warm, asIsProblem!),
  );
  const moreProblem = 'failure' in more ? more.failure : failed(more);
  if (asIsProblem !== null || moreProblem !== null || 'failure' in asIs || 'failure' in more) {
    figures.push(notMeasured(added, asIsProblem !== null ? `the repository as it is: ${asIsProblem}` : `with ${MORE_ARTICLES} more articles: ${moreProblem}`));
    return figures;
  }
  const perSuite = more.suites
    .map((s) => ({ word: s.name.split(' ')[0]!, delta: s.seconds - (asIs.suites.find((a) => a.name === s.name)?.seconds ?? 0) }))
    .sort((a, b) => b.delta - a.delta);
  figures.push(
    measured(added, more.wallSeconds - asIs.wallSeconds, {
      note: `${asIs.wallSeconds.toFixed(0)} s -> ${more.wallSeconds.toFixed(0)} s wall, ${cpu(asIs)} -> ${cpu(more)}; per suite: ${perSuite.map((s) => `${s.word} ${s.delta >= 0 ? '+' : ''}${s.delta.toFixed(0)}`).join(', ')} s`,
      details: { asIs, more },
    }),
  );
  return figures;
}
