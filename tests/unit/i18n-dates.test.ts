import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDate, isoDay } from '../../src/i18n/dates.ts';

// What YAML `date: 2026-12-02` becomes: midnight UTC.
const DAY = new Date('2026-12-02T00:00:00Z');

test('dates read as each language writes them', () => {
  assert.equal(formatDate(DAY, 'zh'), '2026年12月2日');
  assert.equal(formatDate(DAY, 'en'), 'December 2, 2026');
});

test('the day does not move with the time zone of the build', () => {
  // Late in the UTC day is already the next day in Beijing; the calendar day of the frontmatter wins.
  const late = new Date('2026-12-02T23:30:00Z');
  assert.equal(formatDate(late, 'zh'), '2026年12月2日');
  assert.equal(isoDay(late), '2026-12-02');
});

test('isoDay is the datetime of <time>', () => {
  assert.equal(isoDay(DAY), '2026-12-02');
});

test('an invalid date is refused, not printed as "Invalid Date"', () => {
  assert.throws(() => formatDate(new Date('not a date'), 'en'), /formatDate: expected a valid Date/);
  assert.throws(() => isoDay(new Date(Number.NaN)), /isoDay: expected a valid Date/);
});
