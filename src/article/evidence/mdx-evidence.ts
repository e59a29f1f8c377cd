// The evidence an article's MDX is compiled with: its <Fact>s are bound as it
// compiles (../render/mdx-facts.ts). A build takes what the build's check
// derived from these very files before anything compiled (evidence-memo.ts);
// when a file has changed since (`npm run dev`, after an edit or a capture), the
// evidence is derived again as the check derives it, and remembered for the
// article's other MDX files.
import { createHash } from 'node:crypto';
import type { ArticleEvidence } from '../../evidence/runs/types.ts';
import { evidenceFromDisk } from '../../evidence/runs/from-disk.ts';
import { loadArticle } from '../../authoring/load.ts';
import { articleTarget, evidenceMemo, memoKey } from './evidence-memo.ts';

/** Derivations under way, by article and files: the MDX files of one article compile at once. */
const deriving = new Map<string, Promise<ArticleEvidence>>();

/** The evidence of content/articles/<slug> in the project at `root`, as the build's check derives it. */
export function mdxEvidence(root: string, slug: string): Promise<ArticleEvidence> {
  const target = articleTarget(root, slug);
  const memo = evidenceMemo();
  const remembered = memo.recall(target);
  if (remembered) return Promise.resolve(remembered);
  // Stamped before deriving, as the check does: a file that changes meanwhile misses later.
  const stamps = memo.stamps(target);
  const key = `${memoKey(target)}\n${stamps}`;
  let derived = deriving.get(key);
  if (!derived) {
    derived = (async () => {
      // A changed article.ts is imported afresh: one import per state of the article's files.
      const article = await loadArticle(root, slug, createHash('sha256').update(stamps).digest('hex').slice(0, 16));
      const evidence = evidenceFromDisk(slug, target.snapshotsDir, article, { variants: true, draft: target.draft });
      memo.remember(target, stamps, evidence);
      return evidence;
    })().finally(() => deriving.delete(key));
    deriving.set(key, derived);
  }
  return derived;
}
