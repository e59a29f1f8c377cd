// An article's upstream.yaml read from its folder (the one I/O of the citations;
// src/evidence/upstream.ts judges what is read), and the releases its runs used.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ArticleEvidence } from './runs/types.ts';
import { parseUpstream, UPSTREAM_FILE, type UpstreamRecord } from './upstream.ts';

/** The record, or null when the folder has none; a malformed one gives its problems. */
export function readUpstreamRecord(articleDir: string, shown: string): { record: UpstreamRecord | null; problems: string[] } {
  const path = join(articleDir, UPSTREAM_FILE);
  if (!existsSync(path)) return { record: null, problems: [] };
  return parseUpstream(readFileSync(path, 'utf8'), shown);
}

/** Every run of the article's evidence: each version's, each environment's, each variant's. */
export function everyRun(evidence: ArticleEvidence): ArticleEvidence[] {
  const inEnvironment = (e: ArticleEvidence) => [e, ...(e.variantRuns?.runs.values() ?? [])];
  const inVersion = (v: ArticleEvidence) => [...inEnvironment(v), ...[...(v.environmentRuns?.runs.values() ?? [])].flatMap(inEnvironment)];
  const versions = evidence.versionRuns ? [...evidence.versionRuns.runs.values()] : [evidence];
  return versions.flatMap(inVersion);
}

/** The Kubernetes releases the article's runs used ("v1.37.2"), newest first. */
export function runReleases(evidence: ArticleEvidence): string[] {
  const releases = new Set(everyRun(evidence).flatMap((run) => (run.unmeasured ? [] : [run.snapshots.run.versions.kubernetes ?? ''])));
  releases.delete('');
  return [...releases].sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
}
