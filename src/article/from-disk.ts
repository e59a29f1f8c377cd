// An article's evidence read outside Vite (the build-time checks, the capture's
// "what changed" report): its facts.ts, lines.ts and claims.ts imported by path.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FactDef } from '../evidence/facts.ts';
import type { LineTemplates } from '../evidence/template.ts';
import type { ClaimDef } from '../evidence/claims.ts';
import { buildArticleEvidence, type ArticleEvidence } from './evidence.ts';

export const ARTICLES = 'content/articles';

/** `fresh` (a token) imports the file anew, past Node's module cache: dev re-checks after an edit. */
async function moduleExport<T>(file: string, name: string, fresh?: string): Promise<T> {
  if (!existsSync(file)) throw new Error(`${file}: missing (expected an export named "${name}")`);
  const url = pathToFileURL(resolve(file));
  if (fresh !== undefined) url.search = `?shice-dev=${encodeURIComponent(fresh)}`;
  const module = (await import(url.href)) as Record<string, unknown>;
  if (!(name in module)) throw new Error(`${file}: expected an export named "${name}"`);
  return module[name] as T;
}

export interface ArticleDefinitions {
  factDefs: FactDef[];
  lines: LineTemplates;
  claimDefs: ClaimDef[];
}

export async function loadArticleDefinitions(root: string, slug: string, fresh?: string): Promise<ArticleDefinitions> {
  const dir = join(root, ARTICLES, slug);
  return {
    factDefs: await moduleExport<FactDef[]>(join(dir, 'facts.ts'), 'facts', fresh),
    lines: await moduleExport<LineTemplates>(join(dir, 'lines.ts'), 'lines', fresh),
    claimDefs: existsSync(join(dir, 'claims.ts')) ? await moduleExport<ClaimDef[]>(join(dir, 'claims.ts'), 'claims', fresh) : [],
  };
}

export function evidenceFromDisk(slug: string, snapshotsDir: string, defs: ArticleDefinitions, options: { draft?: boolean } = {}): ArticleEvidence {
  return buildArticleEvidence({
    slug,
    snapshotsDir,
    factDefs: defs.factDefs,
    lines: defs.lines,
    linesFile: `${ARTICLES}/${slug}/lines.ts`,
    claimDefs: defs.claimDefs,
    claimsFile: `${ARTICLES}/${slug}/claims.ts`,
    draft: options.draft ?? false,
  });
}
