// An Astro integration that checks every article's evidence and MDX when the
// build (or dev, or check) starts, so a broken binding stops the build with
// every problem listed by file, instead of failing somewhere inside a render.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AstroIntegration } from 'astro';
import { EvidenceError } from '../evidence/errors.ts';
import { formatBrokenClaims } from '../evidence/claims.ts';
import { isDraft } from './draft.ts';
import { snapshotsDir } from './evidence.ts';
import { ARTICLES, evidenceFromDisk, loadArticleDefinitions } from './from-disk.ts';
import { checkArticleSources, type ArticleSource } from './check-article.ts';
import { checkChineseMdx } from './zh-copy.ts';
import { placeholderWarning } from '../site-address.ts';
import { SITE_ADDRESS } from '../site.config.ts';

/** Every problem of every article, one line each; an empty list means the build may go on. */
export async function checkArticles(root: string, env: NodeJS.ProcessEnv = process.env): Promise<{ problems: string[]; drafts: string[]; summary: string }> {
  const problems: string[] = [];
  let factCount = 0;
  let claimCount = 0;
  const drafts: string[] = [];
  const slugs = readdirSync(join(root, ARTICLES), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  for (const slug of slugs) {
    const dir = join(root, ARTICLES, slug);
    const sources: ArticleSource[] = (['zh', 'en'] as const)
      .filter((lang) => existsSync(join(dir, `${lang}.mdx`)))
      .map((lang) => ({ lang, file: `${ARTICLES}/${slug}/${lang}.mdx`, source: readFileSync(join(dir, `${lang}.mdx`), 'utf8') }));
    if (!sources.length) continue;
    // Chinese copywriting: full-width punctuation and spacing, over the prose only.
    for (const s of sources) if (s.lang === 'zh') problems.push(...checkChineseMdx(s.file, s.source));
    try {
      const evidence = evidenceFromDisk(slug, snapshotsDir(dir, slug, env.SHICE_SNAPSHOT_ROOT), await loadArticleDefinitions(root, slug), { draft: isDraft(env) });
      factCount += evidence.facts.size;
      problems.push(...checkArticleSources(sources, {
        factIds: evidence.facts.keys(),
        stepIds: evidence.snapshots.run.steps,
        claimIds: evidence.claims.map((c) => c.id),
      }));
      const broken = formatBrokenClaims(evidence.claims);
      claimCount += evidence.claims.length;
      if (evidence.unmeasured) drafts.push(`content/articles/${slug}: not yet measured; every fact shows as such (capture it: npm run capture -- ${slug})`);
      else if (broken.length && isDraft(env)) drafts.push(...broken);
      else problems.push(...broken);
    } catch (error) {
      if (error instanceof EvidenceError) problems.push(...error.problems);
      else problems.push((error as Error).message);
    }
  }
  const summary = `${slugs.length} article(s), ${factCount} facts derived from their snapshots, ${claimCount} claims checked`;
  return { problems, drafts, summary };
}

export function shiceEvidence(): AstroIntegration {
  return {
    name: 'shice-evidence',
    hooks: {
      'astro:config:setup': async ({ config, logger, command }) => {
        const placeholder = placeholderWarning(SITE_ADDRESS);
        if (command === 'build' && placeholder) logger.warn(placeholder);
        const root = resolve(new URL('.', config.root).pathname);
        const { problems, drafts, summary } = await checkArticles(root);
        if (problems.length) {
          throw new Error(`the articles do not match their snapshots (${problems.length} problem(s)):\n${problems.map((p) => `  ${p}`).join('\n')}`);
        }
        for (const draft of drafts) logger.warn(`draft build (SHICE_DRAFT): ${draft}`);
        logger.info(summary);
      },
    },
  };
}
