// Dates as readers of each language write them. Frontmatter dates are calendar
// days (YYYY-MM-DD, parsed as UTC midnight), so format them in UTC: a reader's
// or builder's time zone must not move an article to the day before.
import { LANG_TAGS, type Lang } from '../site.config.ts';

function assertValid(date: Date, caller: string): void {
  if (Number.isNaN(date.getTime())) throw new Error(`${caller}: expected a valid Date, got Invalid Date`);
}

// Building a formatter costs far more than using one: one per language for the whole build.
const formatters = new Map<Lang, Intl.DateTimeFormat>();

/** 2026年12月2日 / December 2, 2026 */
export function formatDate(date: Date, lang: Lang): string {
  assertValid(date, 'formatDate');
  let formatter = formatters.get(lang);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(LANG_TAGS[lang], { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
    formatters.set(lang, formatter);
  }
  return formatter.format(date);
}

/** The machine-readable day for <time datetime>: 2026-12-02. */
export function isoDay(date: Date): string {
  assertValid(date, 'isoDay');
  return date.toISOString().slice(0, 10);
}
