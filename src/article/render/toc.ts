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

/**
 * The section a reader is in: the last heading whose top has reached `line`
 * (a distance from the viewport's top), or -1 above the first. Pure: the
 * caller measures the headings' tops.
 */
export function currentSection(tops: readonly number[], line: number): number {
  let current = -1;
  tops.forEach((top, i) => {
    if (top <= line) current = i;
  });
  return current;
}
