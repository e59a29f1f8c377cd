import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { dayOf, isoDay, lastUpdated } from '../../src/i18n/dates.ts';
import { runDate } from '../../src/evidence/extract/run.ts';
import type { RunSnapshot } from '../../src/evidence/schema.ts';

// What YAML `date: 2026-12-02` becomes: midnight UTC.
const DAY = new Date('2026-12-02T00:00:00Z');

test('the day does not move with the time zone of the build', () => {
  // Late in the UTC day is already the next day in Beijing; the calendar day of the frontmatter wins.
  const late = new Date('2026-12-02T23:30:00Z');
  assert.equal(isoDay(late), '2026-12-02');
});

test('isoDay is the datetime of <time>', () => {
  assert.equal(isoDay(DAY), '2026-12-02');
});

test('an invalid date is refused, not printed as "Invalid Date"', () => {
  assert.throws(() => isoDay(new Date(Number.NaN)), /isoDay: expected a valid Date/);
});

test("a run's day reads as that UTC day; anything else is refused", () => {
  assert.equal(dayOf('2026-12-04').toISOString(), '2026-12-04T00:00:00.000Z');
  for (const bad of ['2026-12-4', '2026-13-01', '', '2026-12-04T10:00:00Z']) assert.throws(() => dayOf(bad), /dayOf: expected a day as YYYY-MM-DD/, bad);
});

test('an article was last updated on the latest of its publication and its runs, as the committed snapshots date them', () => {
  const root = 'content/articles';
  for (const slug of readdirSync(root)) {
    const published = new Date((load(/^---\n([\s\S]*?)\n---/.exec(readFileSync(`${root}/${slug}/zh.mdx`, 'utf8'))![1]!) as { date: string | Date }).date);
    const days = readdirSync(`${root}/${slug}`)
      .filter((d) => d.startsWith('snapshots'))
      .map((d) => runDate(load(readFileSync(`${root}/${slug}/${d}/run.yaml`, 'utf8')) as RunSnapshot));
    assert.ok(days.length > 0, `${slug} has runs`);
    const updated = lastUpdated(published, days);
    const latest = [isoDay(published), ...days].sort().at(-1)!;
    assert.equal(isoDay(updated), latest, slug);
  }
  // Measured before it was published: the publication is the last change.
  assert.equal(isoDay(lastUpdated(DAY, ['2026-11-30', '2026-12-01'])), '2026-12-02');
  assert.equal(isoDay(lastUpdated(DAY, [])), '2026-12-02');
});
