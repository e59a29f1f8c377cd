// The conformance records, read once per build from content/conformance, and
// what the evidence page of an article shows of them: the record of its
// headline run's release with the upstream tests that cover the article, and
// those tests in the records of the article's other releases.
import { readConformanceRecords, type ConformanceRecord } from '../../conformance/record.ts';
import type { TestResult } from '../../conformance/report.ts';
import { leftOutCovering, testsCovering, type LeftOutTest } from '../../conformance/upstream-tests.ts';
import { KUBE_RELEASES } from '../../experiment/kubernetes.ts';

let records: ConformanceRecord[] | null = null;

export interface UpstreamTestsShown {
  record: ConformanceRecord;
  results: TestResult[];
  leftOut: readonly LeftOutTest[];
  /** The records of the article's other releases, newest first: the minor its runs are named by, and the same tests' results. */
  others: Array<{ minor: string; record: ConformanceRecord; results: TestResult[] }>;
}

/**
 * The record of `release` and the article's tests in it, and the records of `otherReleases`
 * that exist; null when no upstream test covers the article.
 */
export function upstreamTestsOf(slug: string, release: string, otherReleases: readonly string[], file: string): UpstreamTestsShown | null {
  const covering = testsCovering(slug);
  if (covering.length === 0) return null;
  records ??= readConformanceRecords(process.cwd());
  const names = new Set(covering.map((t) => t.name));
  const ofRecord = (r: ConformanceRecord) => r.outcome.results.filter((x) => names.has(x.name));
  const record = records.find((r) => r.run.release === release);
  if (!record)
    throw new Error(
      `${file}: <UpstreamTests />: content/conformance has no record of Kubernetes ${release}, the release of the article's headline run; expected one (npm run conformance)`,
    );
  const others = records
    .filter((r) => r !== record && otherReleases.includes(r.run.release))
    .map((r) => ({ minor: KUBE_RELEASES.find((k) => k.release === r.run.release)!.minor, record: r, results: ofRecord(r) }));
  return { record, results: ofRecord(record), leftOut: leftOutCovering(slug), others };
}
