// <link rel="alternate" hreflang> for a page: one per language the page really
// exists in (a fallback page is not a translation), plus x-default.
import { DEFAULT_LANG, LANGS, LANG_TAGS, type Lang } from '../site.config.ts';
import { absoluteUrl } from './urls.ts';

export interface Alternate {
  hreflang: string;
  href: string;
}

/**
 * `paths` maps each language the page is written in to its path. x-default is
 * the default language's page, or the first language present when it has none.
 */
export function hreflangAlternates(paths: Partial<Record<Lang, string>>, siteUrl: string): Alternate[] {
  const present = LANGS.filter((lang) => paths[lang] !== undefined);
  if (present.length === 0) throw new Error('hreflangAlternates: expected a path in at least one language, got none');
  const alternates = present.map((lang) => ({ hreflang: LANG_TAGS[lang], href: absoluteUrl(paths[lang]!, siteUrl) }));
  const fallbackLang = paths[DEFAULT_LANG] !== undefined ? DEFAULT_LANG : present[0]!;
  alternates.push({ hreflang: 'x-default', href: absoluteUrl(paths[fallbackLang]!, siteUrl) });
  return alternates;
}
