// What the site should contain, read straight from content/articles/*/{zh,en}.mdx
// (not from the site's own code, so the checks do not restate the code under test).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';

export type Lang = 'zh' | 'en';
export const LANGS: readonly Lang[] = ['zh', 'en'];
export const HTML_LANG: Record<Lang, string> = { zh: 'zh-CN', en: 'en' };

export interface WrittenArticle {
  slug: string;
  lang: Lang;
  title: string;
  summary: string;
  date: Date;
  seriesName: string;
  seriesNumber: number;
}

const ARTICLES_DIR = fileURLToPath(new URL('../../../content/articles/', import.meta.url));

function frontmatter(file: string): Record<string, unknown> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(file, 'utf8'));
  if (!match) throw new Error(`${file}: expected a frontmatter block between --- lines`);
  const data = load(match[1]!);
  if (typeof data !== 'object' || data === null) throw new Error(`${file}: frontmatter is not a mapping`);
  return data as Record<string, unknown>;
}

/** Every article file, one entry per (slug, language) actually written. */
export function writtenArticles(): WrittenArticle[] {
  const slugs = readdirSync(ARTICLES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  return slugs.flatMap((slug) =>
    LANGS.flatMap((lang) => {
      const file = `${ARTICLES_DIR}${slug}/${lang}.mdx`;
      if (!existsSync(file)) return [];
      const data = frontmatter(file);
      const series = data['series'] as { name: string; number: number };
      return [
        {
          slug,
          lang,
          title: String(data['title']),
          summary: String(data['summary']),
          date: new Date(data['date'] as string | Date),
          seriesName: series.name,
          seriesNumber: series.number,
        },
      ];
    }),
  );
}

/** Slugs that have at least one language written. */
export function articleSlugs(): string[] {
  return [...new Set(writtenArticles().map((article) => article.slug))];
}

export function isWritten(slug: string, lang: Lang): boolean {
  return writtenArticles().some((article) => article.slug === slug && article.lang === lang);
}

export function otherLang(lang: Lang): Lang {
  return lang === 'zh' ? 'en' : 'zh';
}

/** Expected local paths, spelled out here rather than imported from src/i18n. */
export function homePathOf(lang: Lang): string {
  return lang === 'zh' ? '/' : '/en/';
}

export function articlePathOf(lang: Lang, slug: string): string {
  return lang === 'zh' ? `/${slug}/` : `/en/${slug}/`;
}

/**
 * The record pages an article's runs should have, in one language: one for the
 * run in snapshots/, one for each other run's folder beside it, named by what
 * differs: snapshots.nftables -> run/nftables/, snapshots.lab.nftables -> run/lab/nftables/.
 */
export function runRecordPathsOf(lang: Lang, slug: string): string[] {
  const others = readdirSync(`${ARTICLES_DIR}${slug}`, { withFileTypes: true })
    .filter(
      (d) =>
        d.isDirectory() &&
        /^snapshots(\.v\d+\.\d+)?(\.[a-z0-9-]+)*$/.test(d.name) &&
        d.name !== 'snapshots' &&
        existsSync(`${ARTICLES_DIR}${slug}/${d.name}/run.yaml`),
    )
    // A version's segment holds a dot of its own: snapshots.v1.34.lab is v1.34, then lab.
    .map((d) => d.name.slice('snapshots.'.length).match(/v\d+\.\d+|[a-z0-9-]+/g)!)
    .sort();
  const record = `${articlePathOf(lang, slug)}run/`;
  return [record, ...others.map((parts) => `${record}${parts.map((p) => `${p}/`).join('')}`)];
}

/**
 * The evidence page of an article in one language, when the article writes one
 * (evidence.<lang>.mdx in the language the page shows: its own, or the other one's
 * on a fallback page), else nothing.
 */
export function evidencePathsOf(lang: Lang, slug: string): string[] {
  const shown = isWritten(slug, lang) ? lang : otherLang(lang);
  return existsSync(`${ARTICLES_DIR}${slug}/evidence.${shown}.mdx`) ? [`${articlePathOf(lang, slug)}evidence/`] : [];
}

/** The UTC day (YYYY-MM-DD) a committed run started, read from its run.yaml: `folder` is snapshots or snapshots.<…>. */
export function runDayOf(slug: string, folder = 'snapshots'): string {
  const run = load(readFileSync(`${ARTICLES_DIR}${slug}/${folder}/run.yaml`, 'utf8')) as { startedAt: string };
  return new Date(run.startedAt).toISOString().slice(0, 10);
}

/** The days of every committed run of the article (its own and every other folder's). */
export function runDaysOf(slug: string): string[] {
  return readdirSync(`${ARTICLES_DIR}${slug}`, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^snapshots(\.[a-z0-9-]+)*$/.test(d.name) && existsSync(`${ARTICLES_DIR}${slug}/${d.name}/run.yaml`))
    .map((d) => runDayOf(slug, d.name));
}

/** When the article last changed: the latest of its publication day and its runs' days. */
export function lastChangeOf(article: WrittenArticle): string {
  return [article.date.toISOString().slice(0, 10), ...runDaysOf(article.slug)].sort().at(-1)!;
}
