// The committed runs of the reference articles laid out as SHICE_SNAPSHOT_ROOT reads
// them: content/articles/<slug>/snapshots<suffix> -> <dest>/<slug><suffix>, for
// every variant's and environment's folder (snapshots.nftables, snapshots.lab,
// snapshots.lab.nftables ...), so that a test may change a copy and build from it.
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REFERENCE_ARTICLES } from './reference-articles.ts';

const SNAPSHOT_FOLDER = /^snapshots(\.|$)/;

/** Copies the committed snapshot folders of `slugs` (the reference articles) under `dest`; returns `dest`. */
export function copyCommittedRuns(projectRoot: string, dest: string, slugs: readonly string[] = REFERENCE_ARTICLES): string {
  const articles = join(projectRoot, 'content/articles');
  for (const slug of slugs) {
    for (const name of readdirSync(join(articles, slug)).filter((n) => SNAPSHOT_FOLDER.test(n)))
      cpSync(join(articles, slug, name), join(dest, name.replace(/^snapshots/, slug)), { recursive: true });
  }
  return dest;
}
