// Days as every page shows them, in both languages: YYYY-MM-DD, the way a run's
// day is bound, so that a publication and a measurement compare at a glance.
// Frontmatter dates are calendar days (parsed as UTC midnight), so they are read
// in UTC: a reader's or builder's time zone must not move an article to the day before.

function assertValid(date: Date, caller: string): void {
  if (Number.isNaN(date.getTime())) throw new Error(`${caller}: expected a valid Date, got Invalid Date`);
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
