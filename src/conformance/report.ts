// What a conformance run's raw output says, read by the build and by the run
// itself: ginkgo's own JSON report (--ginkgo.json-report) of upstream's e2e
// binary, reduced to each focused test's state as ginkgo gave it. Pure: the
// states, times and messages are ginkgo's; nothing here decides a result.
import { z } from 'zod';
import type { UpstreamTest } from './upstream-tests.ts';

const location = z.object({ FileName: z.string(), LineNumber: z.number().int() });
const specReport = z.object({
  ContainerHierarchyTexts: z.array(z.string()).nullable(),
  LeafNodeType: z.string(),
  LeafNodeText: z.string(),
  LeafNodeLocation: location,
  State: z.string(),
  RunTime: z.number(),
  Failure: z.object({ Message: z.string(), Location: location }).partial().optional(),
});
const suiteReport = z.object({
  SuiteDescription: z.string(),
  SuiteSucceeded: z.boolean(),
  PreRunStats: z.object({ TotalSpecs: z.number().int(), SpecsThatWillRun: z.number().int() }),
  RunTime: z.number(),
  SpecReports: z.array(specReport).nullable(),
});
export const ginkgoReportSchema = z.array(suiteReport).min(1);
export type GinkgoReport = z.infer<typeof ginkgoReportSchema>;
type SpecReport = z.infer<typeof specReport>;

/** A focused test's outcome: ginkgo's state (passed, failed, skipped, …) or `not run` when the report has no such spec. */
export interface TestResult {
  name: string;
  state: string;
  /** Where upstream defines it, as the binary reported it (the module path trimmed). */
  at: string | null;
  seconds: number | null;
  /** ginkgo's failure or skip message, when it gave one. */
  message: string | null;
}

export interface ConformanceOutcome {
  suite: { succeeded: boolean; totalSpecs: number; willRun: number; seconds: number };
  results: TestResult[];
  /** Specs that ran although no focused name is theirs: the focus matched more than meant. */
  unexpected: string[];
}

const fullName = (s: SpecReport): string => [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(' ');
const NS_PER_S = 1e9;
/** The file as the report gives it, from the module's root (a -trimpath build names it k8s.io/kubernetes@…/test/…). */
const shownAt = (l: z.infer<typeof location>): string => `${l.FileName.replace(/^.*?k8s\.io\/kubernetes(@[^/]+)?\//, '')}:${l.LineNumber}`;
/** A spec the focus left out: skipped before it ran, with no message of its own. */
const filteredOut = (s: SpecReport): boolean => s.State === 'skipped' && s.RunTime === 0 && !s.Failure?.Message;

/** The report's text as ginkgo wrote it, checked; a malformed one is one line naming the file and what was expected. */
export function parseGinkgoReport(text: string, shown: string): GinkgoReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${shown}: expected ginkgo's JSON report, got text that is not JSON (${(error as Error).message})`);
  }
  const parsed = ginkgoReportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${shown}: field "${issue.path.join('.') || '(top)'}": expected ginkgo's JSON report, ${issue.message}`);
  }
  return parsed.data;
}

/** Each focused test's outcome in the report, in the list's order. Pure. */
export function outcomeOf(report: GinkgoReport, focused: readonly UpstreamTest[]): ConformanceOutcome {
  const suite = report[0]!;
  const specs = (suite.SpecReports ?? []).filter((s) => s.LeafNodeType === 'It' && !filteredOut(s));
  const byName = new Map(specs.map((s) => [fullName(s), s]));
  const results = focused.map((t): TestResult => {
    const s = byName.get(t.name);
    if (!s) return { name: t.name, state: 'not run', at: null, seconds: null, message: null };
    return {
      name: t.name,
      state: s.State,
      at: shownAt(s.LeafNodeLocation),
      seconds: Math.round((s.RunTime / NS_PER_S) * 10) / 10,
      message: s.Failure?.Message?.trim() || null,
    };
  });
  const meant = new Set(focused.map((t) => t.name));
  return {
    suite: {
      succeeded: suite.SuiteSucceeded,
      totalSpecs: suite.PreRunStats.TotalSpecs,
      willRun: suite.PreRunStats.SpecsThatWillRun,
      seconds: Math.round(suite.RunTime / NS_PER_S),
    },
    results,
    unexpected: specs.map(fullName).filter((n) => !meant.has(n)),
  };
}

/** The report with only the specs that ran (the focus left thousands out): what the record keeps of ginkgo's output. */
export function ranSpecsOnly(report: GinkgoReport, raw: unknown[]): unknown[] {
  return raw.map((suite, i) => {
    const s = suite as Record<string, unknown>;
    const kept = (report[i]!.SpecReports ?? []).map((spec, j) => [spec, (s.SpecReports as unknown[])[j]] as const);
    return { ...s, SpecReports: kept.filter(([spec]) => !filteredOut(spec)).map(([, rawSpec]) => rawSpec) };
  });
}
