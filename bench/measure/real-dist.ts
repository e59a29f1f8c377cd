// The project's own dist/, as `npm run build` makes it: built first when it is
// missing or older than the sources it comes from. Once per bench run.
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LANGS } from '../../src/site.config.ts';
import { articlePath } from '../../src/i18n/urls.ts';
import { astroBuild } from '../site/astro-build.ts';
import type { BenchContext } from './context.ts';

const SOURCES = ['src', 'content', 'public', 'astro.config.mjs', 'package.json'];

/** Real article folders: those with at least one language file. */
export async function realArticles(root: string): Promise<string[]> {
  const dir = join(root, 'content/articles');
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && LANGS.some((lang) => existsSync(join(dir, e.name, `${lang}.mdx`))))
    .map((e) => e.name)
    .sort();
}

export function articlePage(root: string, slug: string, lang: (typeof LANGS)[number]): string {
  return join(root, 'dist', articlePath(lang, slug), 'index.html');
}

async function newestMtime(path: string): Promise<{ ms: number; file: string }> {
  const info = await stat(path);
  if (!info.isDirectory()) return { ms: info.mtimeMs, file: path };
  let newest = { ms: info.mtimeMs, file: path };
  for (const entry of await readdir(path, { recursive: true })) {
    const full = join(path, entry);
    const s = await stat(full).catch(() => null);
    if (s && s.mtimeMs > newest.ms) newest = { ms: s.mtimeMs, file: full };
  }
  return newest;
}

/** Why dist/ must be built first, or null when its article pages are newer than every source. */
export async function distStaleness(root: string): Promise<string | null> {
  const pages = (await realArticles(root)).flatMap((slug) => LANGS.map((lang) => articlePage(root, slug, lang)));
  if (!pages.length) return 'there is no article to build';
  const missing = pages.find((p) => !existsSync(p));
  if (missing) return `${missing} is missing`;
  const oldest = Math.min(...(await Promise.all(pages.map(async (p) => (await stat(p)).mtimeMs))));
  for (const source of SOURCES) {
    if (!existsSync(join(root, source))) continue;
    const newest = await newestMtime(join(root, source));
    if (newest.ms > oldest) return `${newest.file.slice(root.length + 1)} is newer than the build`;
  }
  return null;
}

let ensured: Promise<{ built: boolean; reason: string | null }> | null = null;

/** Builds the real site when needed; every phase that reads dist/ awaits the same build. */
export function ensureRealDist(ctx: BenchContext): Promise<{ built: boolean; reason: string | null }> {
  ensured ??= (async () => {
    const reason = await distStaleness(ctx.root);
    if (!reason) {
      ctx.progress.note('dist/ is up to date: measuring it as it is');
      return { built: false, reason };
    }
    // The project's own build: its caches stay (other work may be using them).
    await ctx.progress.task(`building the project (npm run build): ${reason}`, () =>
      astroBuild(ctx.root, { timeoutMs: ctx.args.buildTimeoutSeconds * 1000, cancelSignal: ctx.cancelSignal, keepCaches: true }),
    );
    return { built: true, reason };
  })();
  return ensured;
}
