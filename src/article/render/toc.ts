// Which headings make a table of contents: the article's sections (h2), and only
// when there are more than a few of them. Pure.

export interface Heading {
  depth: number;
  slug: string;
  text: string;
}

/** Sections below this count read fine without a table of contents. */
export const TOC_MIN_SECTIONS = 4;

export function tocEntries(headings: readonly Heading[], min = TOC_MIN_SECTIONS): Heading[] {
  const sections = headings.filter((h) => h.depth === 2);
  return sections.length >= min ? sections : [];
}
