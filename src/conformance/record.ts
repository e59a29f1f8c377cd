// A conformance record, beside the articles' runs: content/conformance/kind.<minor>/
// holds ginkgo's JSON report of the run (the specs that ran), the e2e binary's
// output, and run.yaml, what the run itself recorded (versions, images, the
// cluster, the focus, the tests left out and why). The format once: the run
// writes it, the build reads it. Pure but for readConformanceRecords.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { z } from 'zod';
import { outcomeOf, parseGinkgoReport, type ConformanceOutcome } from './report.ts';
import { UPSTREAM_TESTS, type UpstreamTest } from './upstream-tests.ts';

export const CONFORMANCE_DIR = 'content/conformance';
export const RUN_FILE = 'run.yaml';
export const REPORT_FILE = 'report.json';
export const LOG_FILE = 'e2e.log';
export const recordFolder = (minor: string): string => `kind.${minor}`;

const text2 = z.strictObject({ zh: z.string().min(1), en: z.string().min(1) });
export const conformanceRunSchema = z.strictObject({
  schema: z.literal(1),
  environment: z.literal('kind'),
  release: z.string().regex(/^v\d+\.\d+\.\d+$/),
  runId: z.string().min(1),
  startedAt: z.iso.datetime({ offset: true }),
  git: z.strictObject({ commit: z.string().nullable(), dirty: z.boolean() }),
  go: z.string().min(1),
  e2e: z.strictObject({
    module: z.string().min(1),
    suite: z.string().min(1),
    args: z.array(z.string()),
    exitCode: z.number().int().nullable(),
    seconds: z.number().int(),
  }),
  agnhost: z.strictObject({
    name: z.string().min(1),
    builtAs: z.string().min(1),
    sourceVersion: z.string().min(1),
    base: z.string().min(1),
    packages: z.record(z.string(), z.string()),
    leftOut: z.array(z.string()),
  }),
  cluster: z.strictObject({ name: z.string().min(1), nodes: z.array(z.string().min(1)).min(1), nodeImage: z.string().min(1), serverVersion: z.string() }),
  focused: z.array(z.string().min(1)).min(1),
  leftOut: z.array(z.strictObject({ name: z.string().min(1), reason: text2 })),
});
export type ConformanceRunRecord = z.infer<typeof conformanceRunSchema>;

export const HEADER = `# Written by npm run conformance: what this run of upstream's e2e tests recorded of itself.
# The results are ginkgo's own, in ${REPORT_FILE}; the binary's output is ${LOG_FILE}.
`;

/**
 * The run's output without this machine's paths: each folder named, wherever it occurs, becomes
 * the name it is given (the staging folder `.`, the project's root the empty prefix). Pure.
 */
export function withoutMachinePaths(text: string, folders: ReadonlyArray<readonly [string, string]>): string {
  return folders.reduce((t, [folder, as]) => t.replaceAll(`${folder}/`, as === '' ? '' : `${as}/`).replaceAll(folder, as || '.'), text);
}

export const formatRunRecord = (record: ConformanceRunRecord): string => `${HEADER}${dump(record, { lineWidth: -1, noRefs: true })}`;

/** run.yaml checked; a malformed one is one line naming the file, the field and what was expected. */
export function parseRunRecord(yaml: string, shown: string): ConformanceRunRecord {
  const parsed = conformanceRunSchema.safeParse(load(yaml));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`${shown}: field "${issue.path.join('.') || '(top)'}": ${issue.message}`);
}

/**
 * Why a run may not become the record, one line each: a focused test the report does not
 * have, a spec the focus was not meant to match, a release other than the one asked for.
 * Failed tests are results, not problems: the record shows them as failed.
 */
export function runProblems(record: ConformanceRunRecord, outcome: ConformanceOutcome, release: string): string[] {
  const problems: string[] = [];
  if (record.cluster.serverVersion !== release) problems.push(`the API server says ${JSON.stringify(record.cluster.serverVersion)}, expected ${release}`);
  for (const r of outcome.results) if (r.state === 'not run') problems.push(`"${r.name}" is not in ginkgo's report: the focus did not match it`);
  for (const name of outcome.unexpected) problems.push(`"${name}" ran, though no focused name is its`);
  return problems;
}

export interface ConformanceRecord {
  folder: string;
  run: ConformanceRunRecord;
  outcome: ConformanceOutcome;
}

/** Every record under content/conformance, newest release first; a malformed one throws its one line. */
export function readConformanceRecords(root: string, tests: readonly UpstreamTest[] = UPSTREAM_TESTS): ConformanceRecord[] {
  const dir = join(root, CONFORMANCE_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith('kind.'))
    .map((name): ConformanceRecord => {
      const folder = `${CONFORMANCE_DIR}/${name}`;
      const run = parseRunRecord(readFileSync(join(dir, name, RUN_FILE), 'utf8'), `${folder}/${RUN_FILE}`);
      const report = parseGinkgoReport(readFileSync(join(dir, name, REPORT_FILE), 'utf8'), `${folder}/${REPORT_FILE}`);
      const focused = tests.filter((t) => run.focused.includes(t.name));
      return { folder, run, outcome: outcomeOf(report, focused) };
    })
    .sort((a, b) => b.run.release.localeCompare(a.run.release, 'en', { numeric: true }));
}
