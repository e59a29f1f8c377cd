// A search result as the dialog shows it, from what Pagefind returns. Pure: the
// dialog writes each part as text (a <mark> around a match), never as HTML, so
// nothing an index holds reaches the page as markup.

export interface ExcerptPart {
  text: string;
  /** A word the query matched. */
  mark: boolean;
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
