// A search result as the dialog shows it, from what Pagefind returns. Pure: the
// dialog writes each part as text (a <mark> around a match), never as HTML, so
// nothing an index holds reaches the page as markup.

export interface ExcerptPart {
  text: string;
  /** A word the query matched. */
  mark: boolean;
}

/** A section of a page (Pagefind's sub-result): the text from one heading with an id to the next. */
export interface SubResult {
  title: string;
  excerpt: string;
  /** The heading the section starts at; none for the text above a page's first heading. */
  anchor?: { element: string; id?: string };
  locations: number[];
  weighted_locations?: { balanced_score: number }[];
}

/** The part of a result's data (Pagefind's `data()`) the dialog reads. */
export interface ResultData {
  raw_url: string;
  excerpt: string;
  meta: { title?: string };
  sub_results?: SubResult[];
}

/** Where a result takes the reader, and what it shows. */
export interface Landing {
  href: string;
  title: string;
  /** The heading of the section the link opens at, if not the page's top. */
  section?: string;
  excerpt: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", nbsp: '\u00a0' };

function decode(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_m, name: string) => ENTITIES[name]!);
}

/** Pagefind's excerpt (escaped text with <mark> around the matches) as parts; any other tag is dropped. */
export function excerptParts(excerpt: string): ExcerptPart[] {
  const parts: ExcerptPart[] = [];
  excerpt.split(/(<mark>[\s\S]*?<\/mark>)/).forEach((piece) => {
    const mark = piece.startsWith('<mark>');
    const text = decode(mark ? piece.slice(6, -7) : piece);
    if (text) parts.push({ text, mark });
  });
  return parts;
}

/**
 * Where a result leads: the page's path as Pagefind indexed it in dist/
 * ('/en/074-external-traffic-policy/'), under the site's base path ('/shice/').
 */
export function resultHref(rawUrl: string, base: string): string {
  return `${base.replace(/\/$/, '')}/${rawUrl.replace(/^\//, '')}`;
}

/** How strongly a section matched: Pagefind's own scores of its matches (heading words weigh more), else their count. */
const strength = (sub: SubResult) => sub.weighted_locations?.reduce((sum, l) => sum + l.balanced_score, 0) ?? sub.locations.length;

/**
 * A result lands on the section that matched most (the first of equals, in the page's order), at its
 * heading; the page's top when that is where the matches are, or when Pagefind found no sections.
 */
export function landingOf(data: ResultData, base: string): Landing {
  const page = resultHref(data.raw_url, base);
  const title = data.meta.title ?? data.raw_url;
  const best = (data.sub_results ?? []).reduce<SubResult | undefined>(
    (top, sub) => (top === undefined || strength(sub) > strength(top) ? sub : top),
    undefined,
  );
  const id = best?.anchor?.id;
  if (!best || !id || !/^h[2-6]$/i.test(best.anchor!.element)) return { href: page, title, excerpt: best?.excerpt ?? data.excerpt };
  return { href: `${page.split('#')[0]}#${encodeURIComponent(id)}`, title, section: decode(best.title), excerpt: best.excerpt };
}
