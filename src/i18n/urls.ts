// Where a page lives in each language. Chinese sits at the root, English under /en/;
// every page path ends with a slash (trailingSlash: 'always').
import { DEFAULT_LANG, LANGS, SITE_ADDRESS, type Lang } from '../site.config.ts';

/** The base path without its trailing slash: '' at the root, '/shice' under a path. */
const BASE = SITE_ADDRESS.base.replace(/\/$/, '');

/** A file at the site's root (favicon, sitemap), under the base path. */
export function rootFilePath(file: string): string {
  return `${BASE}/${file}`;
}

/** Folder names that are article slugs: lowercase words joined by single dashes. */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A Kubernetes minor as a run record's path names it (src/experiment/kubernetes.ts). */
const VERSION = /^v\d+\.\d+$/;

export function isLang(value: string): value is Lang {
  return (LANGS as readonly string[]).includes(value);
}

/** The language a reader switches to from `lang` (the site has exactly two). */
export function otherLang(lang: Lang): Lang {
  const other = LANGS.find((candidate) => candidate !== lang);
  if (other === undefined) throw new Error(`site.config.ts: LANGS has no language besides "${lang}"`);
  return other;
}

/** Why a string cannot be a slug, or null when it can. A slug named like a language would shadow /en/. */
export function slugProblem(slug: string): string | null {
  if (!SLUG.test(slug)) return `"${slug}" is not lowercase letters and digits joined by single dashes`;
  if (isLang(slug)) return `"${slug}" is a language code and would collide with the /${slug}/ section`;
  return null;
}

function prefix(lang: Lang): string {
  return `${BASE}${lang === DEFAULT_LANG ? '' : `/${lang}`}`;
}

export function homePath(lang: Lang): string {
  return `${prefix(lang)}/`;
}

export function articlePath(lang: Lang, slug: string): string {
  const problem = slugProblem(slug);
  if (problem) throw new Error(`articlePath: slug ${problem}`);
  return `${prefix(lang)}/${slug}/`;
}

/** The evidence page of an article: every claim in every run, the runs' environments and records. */
export function evidencePath(lang: Lang, slug: string): string {
  return `${articlePath(lang, slug)}evidence/`;
}

/**
 * The record of one run of an article's experiment: `/<slug>/run/` for the run
 * the article is built from, `/<slug>/run/<variant>/` for another variant's run,
 * `/<slug>/run/<environment>/[<variant>/]` for a run in another environment.
 */
export function runRecordPath(lang: Lang, slug: string, run: { version?: string; environment?: string; variant?: string } = {}): string {
  if (run.version !== undefined && !VERSION.test(run.version)) throw new Error(`runRecordPath: "${run.version}" is not a Kubernetes minor (v1.34)`);
  const parts = [run.version, run.environment, run.variant].filter((p) => p !== undefined);
  for (const part of parts.slice(run.version === undefined ? 0 : 1)) {
    if (!SLUG.test(part)) throw new Error(`runRecordPath: "${part}" is not lowercase letters and digits joined by single dashes`);
  }
  return `${articlePath(lang, slug)}run/${parts.map((p) => `${p}/`).join('')}`;
}

export function rssPath(lang: Lang): string {
  return `${prefix(lang)}/rss.xml`;
}

export function notFoundPath(lang: Lang): string {
  return `${prefix(lang)}/404.html`;
}

/** Splits a site path into its language and the path inside that language ('/en/a/' -> en, '/a/'). */
export function splitLangPath(path: string): { lang: Lang; rest: string } {
  if (!path.startsWith('/')) throw new Error(`splitLangPath: expected a path starting with "/", got "${path}"`);
  if (BASE && (path === BASE || path.startsWith(`${BASE}/`))) path = path.slice(BASE.length) || '/';
  const [first = ''] = path.slice(1).split('/');
  if (isLang(first) && first !== DEFAULT_LANG) {
    const rest = path.slice(first.length + 1);
    return { lang: first, rest: rest === '' ? '/' : rest };
  }
  return { lang: DEFAULT_LANG, rest: path };
}

/** The same page in another language: '/074-x/' -> '/en/074-x/', '/en/' -> '/'. */
export function localizePath(path: string, target: Lang): string {
  return `${prefix(target)}${splitLangPath(path).rest}`;
}

/** The article a path points at, or null for any other page (home, feed, 404, assets). */
export function articleOfPath(path: string): { lang: Lang; slug: string } | null {
  const { lang, rest } = splitLangPath(path);
  const match = /^\/([^/]+)\/$/.exec(rest);
  if (!match || match[1] === undefined || slugProblem(match[1]) !== null) return null;
  return { lang, slug: match[1] };
}

/** An absolute URL on the public origin (canonical, hreflang, Open Graph, feeds). */
export function absoluteUrl(path: string, siteUrl: string): string {
  if (!path.startsWith('/')) throw new Error(`absoluteUrl: expected a path starting with "/", got "${path}"`);
  return new URL(path, siteUrl).href;
}

/** A page URL as the site writes it, ending with a slash; a file's URL (rss.xml) is left alone. */
export function withTrailingSlash(url: string): string {
  const parsed = new URL(url);
  // A file's name ends in an extension of letters (og.png, rss.xml); a page's may hold a dotted version (run/v1.34).
  if (!parsed.pathname.endsWith('/') && !/\.[a-z][a-z0-9]*$/i.test(parsed.pathname)) parsed.pathname += '/';
  return parsed.href;
}
