// From article files to pages: every article gets a page in every language; a
// language without its own file shows the other language's text (a fallback,
// never a 404). Also the series order: listings and neighbours.
import { LANGS, type Lang } from '../site.config.ts';
import type { ArticleFrontmatter } from './frontmatter.ts';
import { isLang, slugProblem } from './urls.ts';

/** What the site needs of a collection entry (Astro's CollectionEntry<'articles'> has this shape). */
export interface ArticleFile {
  /** `<slug>/<lang>`, from the glob loader's generateId. */
  id: string;
  filePath?: string | undefined;
  data: ArticleFrontmatter;
}

export interface Edition<E extends ArticleFile = ArticleFile> {
  slug: string;
  /** The language of the page (its URL, <html lang>, interface strings). */
  lang: Lang;
  /** The file whose text the page shows. */
  entry: E;
  /** The language that text is written in: differs from `lang` on a fallback page. */
  contentLang: Lang;
  isFallback: boolean;
  /** Languages the article is written in, in LANGS order. */
  translations: Lang[];
}

function where(file: ArticleFile): string {
  return file.filePath ?? `articles entry "${file.id}"`;
}

/** `074-external-traffic-policy/zh` -> slug and language, or an error naming the file. */
export function parseEntryId(file: ArticleFile): { slug: string; lang: Lang } {
  const parts = file.id.split('/');
  const [slug = '', lang = ''] = parts;
  if (parts.length !== 2 || !isLang(lang)) {
    throw new Error(`${where(file)}: expected content/articles/<slug>/<lang>.mdx with <lang> one of ${LANGS.join(', ')}, got id "${file.id}"`);
  }
  const problem = slugProblem(slug);
  if (problem) throw new Error(`${where(file)}: folder name ${problem}`);
  if (file.data.lang !== lang) {
    throw new Error(`${where(file)}: frontmatter field "lang" is "${file.data.lang}", expected "${lang}" as the file name says`);
  }
  return { slug, lang };
}

function seriesKey(data: ArticleFrontmatter): string {
  return `${data.series.name} · ${data.series.number}`;
}

/** Every (slug, language) page of the site, fallbacks included, in slug then LANGS order. */
export function buildEditions<E extends ArticleFile>(files: readonly E[]): Edition<E>[] {
  const bySlug = new Map<string, Map<Lang, E>>();
  for (const file of files) {
    const { slug, lang } = parseEntryId(file);
    const langs = bySlug.get(slug) ?? new Map<Lang, E>();
    langs.set(lang, file);
    bySlug.set(slug, langs);
  }

  const editions: Edition<E>[] = [];
  const seriesOwners = new Map<string, string>();
  for (const slug of [...bySlug.keys()].sort()) {
    const written = bySlug.get(slug)!;
    const translations = LANGS.filter((lang) => written.has(lang));
    const first = written.get(translations[0]!)!;

    for (const lang of translations) {
      const file = written.get(lang)!;
      if (seriesKey(file.data) !== seriesKey(first.data)) {
        throw new Error(`${where(file)}: frontmatter field "series" is ${seriesKey(file.data)}, expected ${seriesKey(first.data)} as in ${where(first)}`);
      }
    }
    const owner = seriesOwners.get(seriesKey(first.data));
    if (owner !== undefined) {
      throw new Error(
        `${where(first)}: frontmatter field "series" is ${seriesKey(first.data)}, already taken by the article "${owner}"; expected a number of its own`,
      );
    }
    seriesOwners.set(seriesKey(first.data), slug);

    for (const lang of LANGS) {
      const own = written.get(lang);
      const contentLang = own ? lang : translations[0]!;
      editions.push({
        slug,
        lang,
        entry: own ?? first,
        contentLang,
        isFallback: own === undefined,
        translations,
      });
    }
  }
  return editions;
}

/** The pages of one language, newest first (then the higher series number first). */
export function listingFor<E extends ArticleFile>(editions: readonly Edition<E>[], lang: Lang): Edition<E>[] {
  return editions
    .filter((edition) => edition.lang === lang)
    .sort((a, b) => b.entry.data.date.getTime() - a.entry.data.date.getTime() || b.entry.data.series.number - a.entry.data.series.number);
}

export interface Neighbours<E extends ArticleFile> {
  previous: Edition<E> | null;
  next: Edition<E> | null;
}

/** The articles just before and after `edition` in its series, as pages of the same language. */
export function seriesNeighbours<E extends ArticleFile>(editions: readonly Edition<E>[], edition: Edition<E>): Neighbours<E> {
  const { name, number } = edition.entry.data.series;
  const sameSeries = editions.filter((other) => other.lang === edition.lang && other.entry.data.series.name === name);
  let previous: Edition<E> | null = null;
  let next: Edition<E> | null = null;
  for (const other of sameSeries) {
    const n = other.entry.data.series.number;
    if (n < number && (previous === null || n > previous.entry.data.series.number)) previous = other;
    if (n > number && (next === null || n < next.entry.data.series.number)) next = other;
  }
  return { previous, next };
}
