// What an article folder may be named: its slug. One rule for every reader: the loader
// (articleFolders, src/authoring/load.ts) refuses a folder whose name breaks it, and the
// scaffold (npm run new) refuses to make one. A name that breaks it is shown quoted,
// JSON-escaped and cut, never as typed: a line feed or ESC in it would print a line of its own.
import { clip } from '../capture/machine/clip.ts';
import { quoted } from '../evidence/terminal-text.ts';

export const SLUG_PATTERN = /^(\d{3})-[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The longest slug: its folder's snapshots get names beside them as long as
 * `.snapshots.previous-<run id>`, and a capture's --out folder `<slug>.<variant>`,
 * all within Linux's 255 bytes per name.
 */
export const SLUG_MAX_LENGTH = 100;

/** `slug` quoted for a message: JSON-escaped, cut at 60 characters. */
export const shownSlug = (slug: string): string => quoted(clip(slug, 60));

/**
 * What is wrong with `slug` as an article's name, in words that follow `slug "<name>": `, or null. The
 * series number (the front matter's series.number, which the build requires to be positive) is 001 or more.
 */
export function slugRuleProblem(slug: string): string | null {
  if (slug.length > SLUG_MAX_LENGTH) return `${slug.length} characters; expected at most ${SLUG_MAX_LENGTH}`;
  const match = SLUG_PATTERN.exec(slug);
  if (!match) return 'expected the three-digit series number, then lowercase words joined by dashes (e.g. 078-topology-aware-routing)';
  if (Number(match[1]) === 0) return "series number 000; expected 001 or more (the front matter's series.number is positive)";
  return null;
}

/** The series number a slug starts with (the scaffold writes it into the front matter). */
export function seriesNumberOf(slug: string): number {
  return Number(SLUG_PATTERN.exec(slug)?.[1] ?? Number.NaN);
}

/** The problem with the folder content/articles/<name> as an article's, in one line naming it escaped, or null. */
export function folderNameProblem(name: string): string | null {
  const problem = slugRuleProblem(name);
  return problem === null ? null : `content/articles/${shownSlug(name)}: the folder's name is no slug: ${problem}; rename the folder`;
}
