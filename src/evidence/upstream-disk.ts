// An article's upstream.yaml read from its folder (the one I/O of the citations;
// src/evidence/upstream.ts judges what is read), and the releases its runs used.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ArticleEvidence } from './runs/types.ts';
import { everyRun } from './runs/variants.ts';
import { parseUpstream, UPSTREAM_FILE, type UpstreamRecord } from './upstream.ts';

/** The record, or null when the folder has none; a malformed one gives its problems. */
export function readUpstreamRecord(articleDir: string, shown: string): { record: UpstreamRecord | null; problems: string[] } {
  const path = join(articleDir, UPSTREAM_FILE);
  if (!existsSync(path)) return { record: null, problems: [] };
  return parseUpstream(readFileSync(path, 'utf8'), shown);
}

/** The Kubernetes releases the article's runs used ("v1.37.2"), newest first. */
export function runReleases(evidence: ArticleEvidence): string[] {
  const releases = new Set(everyRun(evidence).flatMap((run) => (run.unmeasured ? [] : [run.snapshots.run.versions.kubernetes ?? ''])));
  releases.delete('');
  return [...releases].sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
}
