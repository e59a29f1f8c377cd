// The conformance records, read once per build from content/conformance, and
// what the evidence page of an article shows of them: the record of its
// headline run's release, with the upstream tests that cover the article.
import { readConformanceRecords, type ConformanceRecord } from '../../conformance/record.ts';
import type { TestResult } from '../../conformance/report.ts';
import { leftOutCovering, testsCovering, type LeftOutTest } from '../../conformance/upstream-tests.ts';

let records: ConformanceRecord[] | null = null;

export interface UpstreamTestsShown {
  record: ConformanceRecord;
  results: TestResult[];
  leftOut: readonly LeftOutTest[];
}

/** The record of `release` and the article's tests in it; null when no upstream test covers the article. */
export function upstreamTestsOf(slug: string, release: string, file: string): UpstreamTestsShown | null {
  const covering = testsCovering(slug);
  if (covering.length === 0) return null;
  records ??= readConformanceRecords(process.cwd());
  const record = records.find((r) => r.run.release === release);
  if (!record)
    throw new Error(
      `${file}: <UpstreamTests />: content/conformance has no record of Kubernetes ${release}, the release of the article's headline run; expected one (npm run conformance)`,
    );
  const names = new Set(covering.map((t) => t.name));
  return { record, results: record.outcome.results.filter((r) => names.has(r.name)), leftOut: leftOutCovering(slug) };
}
