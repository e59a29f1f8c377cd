// One derivation of an article's evidence per build. The build-time check
// (../check/integration.ts) derives every article's evidence before any page renders;
// the pages (registry.ts, which Vite bundles as a separate copy of this code)
// take it from here instead of reading, validating and deriving it all again.
//
// The memo lives on globalThis under a registered symbol, so both copies of the
// code see the same one. An entry belongs to one article (its slug, snapshots
// folder and draft setting: never shared between articles, even identical ones)
// and is served only while every file it was derived from is unchanged: the
// same paths, sizes and modification times. A changed, added or removed file
// misses, and the caller derives afresh. `npm run dev`'s pages never read it;
// they keep their own (PageEvidence, below), derived again when the article's
// files or its definition change. An MDX file's compile reads it in dev as in
// a build (mdx-evidence.ts), the files checked as above each time.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, basename, isAbsolute, resolve } from 'node:path';
import type { ArticleEvidence } from '../../evidence/runs/types.ts';
import { snapshotsDir } from '../../evidence/runs/build.ts';
import { ARTICLES } from '../../authoring/load.ts';
import { isDraft } from './draft.ts';

/** What an entry is for: one article, read from one snapshots folder, in a draft build or not. */
export interface MemoTarget {
  slug: string;
  /** content/articles/<slug>, absolute. */
  articleDir: string;
  /** The default run's snapshots folder, absolute (the article's own, or under SHICE_SNAPSHOT_ROOT). */
  snapshotsDir: string;
  draft: boolean;
}

/** The article's entry in a project: content/articles/<slug>, its snapshots (SHICE_SNAPSHOT_ROOT's when set), the build's draft setting. */
export function articleTarget(root: string, slug: string, env: NodeJS.ProcessEnv = process.env): MemoTarget {
  const articleDir = resolve(root, ARTICLES, slug);
  return { slug, articleDir, snapshotsDir: resolve(snapshotsDir(articleDir, slug, env.SHICE_SNAPSHOT_ROOT)), draft: isDraft(env) };
}

/** A file as the memo compares it. */
export interface FileStamp {
  path: string;
  size: bigint | number;
  mtimeNs: bigint | number;
}

interface Entry {
  stamps: string;
  evidence: ArticleEvidence;
}

/** The entry's key: the article, its snapshots folder and the draft setting. Pure. */
export function memoKey(target: MemoTarget): string {
  return JSON.stringify([target.slug, target.articleDir, target.snapshotsDir, target.draft]);
}

/** The files' stamps as one string, whatever order they were listed in. Pure. */
export function stampsSignature(stamps: readonly FileStamp[]): string {
  return stamps
    .map((s) => `${s.path}\0${s.size}\0${s.mtimeNs}`)
    .sort()
    .join('\n');
}

/** Every file under `dir` (dot-folders included: anything there could be read), with its stamp; none when it does not exist. */
function stampTree(dir: string, out: FileStamp[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (!e.isFile() && !e.isSymbolicLink()) continue;
    const path = join(e.parentPath, e.name);
    try {
      const s = statSync(path, { bigint: true });
      out.push({ path, size: s.size, mtimeNs: s.mtimeNs });
    } catch {
      out.push({ path, size: -1, mtimeNs: -1 });
    }
  }
}

/**
 * The files an article's evidence is derived from: everything in its folder
 * (facts, lines, claims, experiment, manifests, snapshots and the variants'
 * snapshots folders beside them) and, when the snapshots are read from
 * elsewhere, that folder and its variants' folders (`<folder>.<variant>`).
 */
export function articleFileStamps(target: MemoTarget): FileStamp[] {
  const stamps: FileStamp[] = [];
  stampTree(target.articleDir, stamps);
  const rel = relative(target.articleDir, target.snapshotsDir);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    const parent = dirname(target.snapshotsDir);
    const name = basename(target.snapshotsDir);
    let siblings: string[] = [];
    try {
      siblings = readdirSync(parent).filter((n) => n === name || n.startsWith(`${name}.`));
    } catch {
      // no such folder: nothing to stamp (the derivation reports it)
    }
    for (const sibling of siblings) stampTree(join(parent, sibling), stamps);
    // The folder's absence is part of what was read.
    stamps.push({ path: `${target.snapshotsDir}\0listing`, size: siblings.length, mtimeNs: 0 });
  }
  return stamps;
}

/**
 * The memo's rule, apart from the file system: an entry is served only for the
 * same target and the same stamps. Pure apart from the map it is given.
 */
export class EvidenceMemo {
  readonly #entries = new Map<string, Entry>();
  readonly #stamp: (target: MemoTarget) => FileStamp[];

  constructor(stamp: (target: MemoTarget) => FileStamp[] = articleFileStamps) {
    this.#stamp = stamp;
  }

  /** The stamps to remember an evidence with: take them before deriving, so a file changed meanwhile misses later. */
  stamps(target: MemoTarget): string {
    return stampsSignature(this.#stamp(target));
  }

  remember(target: MemoTarget, stamps: string, evidence: ArticleEvidence): void {
    this.#entries.set(memoKey(target), { stamps, evidence });
  }

  /** The remembered evidence, if its files are still exactly as they were. */
  recall(target: MemoTarget): ArticleEvidence | undefined {
    const entry = this.#entries.get(memoKey(target));
    if (!entry) return undefined;
    if (entry.stamps !== this.stamps(target)) {
      this.#entries.delete(memoKey(target));
      return undefined;
    }
    return entry.evidence;
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * `npm run dev`'s pages' copy of each article's evidence: derived on the first page that asks and
 * served to the next ones while the article's files have the same stamps and its definition is
 * the same module object Vite imported, derived afresh when either changes (a snapshot written,
 * article.ts edited). It lives in the module that makes it (registry.ts), which Vite evaluates
 * again, empty, when any code it imports changes. Stamped before deriving, as the memo is.
 */
export class PageEvidence {
  readonly #entries = new Map<string, { stamps: string; definition: unknown; evidence: ArticleEvidence }>();
  readonly #stamp: (target: MemoTarget) => FileStamp[];

  constructor(stamp: (target: MemoTarget) => FileStamp[] = articleFileStamps) {
    this.#stamp = stamp;
  }

  evidence(target: MemoTarget, definition: unknown, derive: () => ArticleEvidence): ArticleEvidence {
    const key = memoKey(target);
    const stamps = stampsSignature(this.#stamp(target));
    const kept = this.#entries.get(key);
    if (kept && kept.stamps === stamps && kept.definition === definition) return kept.evidence;
    this.#entries.delete(key);
    const evidence = derive();
    this.#entries.set(key, { stamps, definition, evidence });
    return evidence;
  }
}

const MEMO = Symbol.for('shice.evidence-memo.v1');

/** The process's memo, shared by every bundled copy of this module. */
export function evidenceMemo(): EvidenceMemo {
  const holder = globalThis as { [MEMO]?: EvidenceMemo };
  holder[MEMO] ??= new EvidenceMemo();
  return holder[MEMO];
}
