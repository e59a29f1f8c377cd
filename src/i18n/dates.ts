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

/** A run's day as run.date gives it (YYYY-MM-DD, UTC) to a Date at that day's UTC midnight, as frontmatter dates are. */
export function dayOf(isoDate: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(isoDate) ? new Date(`${isoDate}T00:00:00Z`) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw new Error(`dayOf: expected a day as YYYY-MM-DD, got ${JSON.stringify(isoDate)}`);
  return date;
}

/**
 * When an article last changed: the latest of its publication and the days its
 * runs were measured (a re-run after publication changes every number on the page).
 */
export function lastUpdated(published: Date, measuredDays: readonly string[]): Date {
  assertValid(published, 'lastUpdated');
  return measuredDays.map(dayOf).reduce((latest, day) => (day > latest ? day : latest), published);
}
