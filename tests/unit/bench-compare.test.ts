import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareResults, describeChange, formatComparison } from '../../bench/compare.ts';
import { measured, notMeasured } from '../../bench/figures.ts';
import { parseResults, resultFileName } from '../../bench/results.ts';

const ratio = { id: 'binding.ratio', group: 'binding' as const, label: 'binding overhead', unit: 'x' as const, target: { op: '<=' as const, value: 1.15 } };
const page = { id: 'weight.074.zh.total', group: 'weight' as const, label: 'zh page', unit: 'bytes' as const, target: { op: '<=' as const, value: 40960 } };
const e2e = { id: 'e2e.seconds', group: 'e2e' as const, label: 'browser check', unit: 's' as const };

test('changes are shown in the unit and relative to the old value', () => {
  assert.equal(describeChange(1.1, 1.21, 'x'), '+0.11x (+10.0%)');
  assert.equal(describeChange(22528, 21504, 'bytes'), '-1.0 KB (-4.5%)');
  assert.equal(describeChange(0, 2, 's'), '+2.0 s');
  assert.equal(describeChange(5, 5, 's'), 'same');
  assert.equal(describeChange(true, false, 'yes/no'), 'changed');
  assert.equal(describeChange(null, 5, 's'), '');
});

test('figures are matched by id; those in one run only are listed too', () => {
  const before = [measured(ratio, 1.1), measured(e2e, 246)];
  const after = [measured(ratio, 1.2), measured(page, 22221)];
  const rows = compareResults(before, after);
  assert.deepEqual(
    rows.map((r) => [r.id, Boolean(r.before), Boolean(r.after)]),
    [
      ['binding.ratio', true, true],
      ['weight.074.zh.total', false, true],
      ['e2e.seconds', true, false],
    ],
  );
  const lines = formatComparison(rows);
  assert.match(lines[0]!, /binding overhead\s+1\.10x\s+->\s+1\.20x\s+\+0\.10x \(\+9\.1%\)\s+no longer meets its target/);
  assert.match(lines[1]!, /zh page\s+absent\s+->\s+21\.7 KB/);
  assert.match(lines[2]!, /browser check\s+246\.0 s\s+->\s+absent/);
});

test('a figure that could not be measured compares as such', () => {
  const lines = formatComparison(compareResults([notMeasured(ratio, 'build failed')], [measured(ratio, 1.05)]));
  assert.match(lines[0]!, /not measured\s+->\s+1\.05x$/);
});

test('result file names sort by time and carry no colon', () => {
  assert.equal(resultFileName(new Date('2026-12-02T11:53:33.724Z')), '2026-12-02T11-53-33Z.json');
});

test('a result file is read back with its schema checked', () => {
  const good = JSON.stringify({ schema: 1, startedAt: 'a', finishedAt: 'b', figures: [measured(ratio, 1.1)], host: { cpus: 2 } });
  assert.equal(parseResults(good, 'latest.json').figures[0]!.value, 1.1);
  assert.throws(() => parseResults('{', 'old.json'), /^Error: old\.json: not JSON/);
  assert.throws(
    () => parseResults(JSON.stringify({ schema: 2, startedAt: 'a', finishedAt: 'b', figures: [] }), 'old.json'),
    /old\.json: field "schema": .*expected a result file of npm run bench \(schema 1\)/,
  );
  const badFigure = JSON.stringify({ schema: 1, startedAt: 'a', finishedAt: 'b', figures: [{ ...measured(ratio, 1.1), unit: 'parsecs' }] });
  assert.throws(() => parseResults(badFigure, 'new.json'), /new\.json: field "figures\.0\.unit"/);
});
