import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exitCodeFor, formatFigureLine, formatFigures, formatTarget, formatValue, judge, measured, notMeasured, summarize } from '../../bench/figures.ts';

const ratioBase = { id: 'binding.ratio', group: 'binding' as const, label: 'binding overhead', unit: 'x' as const, target: { op: '<=' as const, value: 1.15 } };

test('a measured figure is judged against its target', () => {
  assert.equal(measured(ratioBase, 1.08).meets, true);
  assert.equal(measured(ratioBase, 1.15).meets, true);
  assert.equal(measured(ratioBase, 1.16).meets, false);
  const info = measured({ id: 'growth.1', group: 'growth', label: 'build of 1 article', unit: 's' }, 9.2);
  assert.equal(info.meets, null);
  assert.equal(info.target, null);
});

test('a yes/no figure meets an == target only when equal', () => {
  const base = { id: 'w.readable', group: 'weight' as const, label: 'readable', unit: 'yes/no' as const, target: { op: '==' as const, value: true } };
  assert.equal(measured(base, true).meets, true);
  assert.equal(measured(base, false).meets, false);
  assert.throws(() => judge(true, { op: '<=', value: 1 }), /"<=" compares numbers, got boolean and number/);
});

test('a figure refuses a value that is not finite', () => {
  assert.throws(() => measured(ratioBase, Number.NaN), /figure binding.ratio: expected a finite value, got NaN/);
});

test('values are shown in their unit; bytes in KB of 1024', () => {
  assert.equal(formatValue(1.0834, 'x'), '1.08x');
  assert.equal(formatValue(49.287, 's'), '49.3 s');
  assert.equal(formatValue(101.6, 'ms/page'), '101.6 ms/page');
  assert.equal(formatValue(22221, 'bytes'), '21.7 KB');
  assert.equal(formatValue(40960, 'bytes'), '40.0 KB');
  assert.equal(formatValue(true, 'yes/no'), 'yes');
  assert.equal(formatValue(3.4, 'count'), '3');
  assert.equal(formatTarget({ op: '<=', value: 40960 }, 'bytes'), '<= 40.0 KB');
  assert.equal(formatTarget({ op: '==', value: true }, 'yes/no'), 'yes');
});

test('one line per figure: value, target, verdict and note', () => {
  const line = formatFigureLine(measured(ratioBase, 1.21, { note: 'evidence 18.2 s / plain 15.0 s' }));
  assert.match(line, /^binding overhead\s+1\.21x\s+target <= 1\.15x\s+MISSES\s+\(evidence 18\.2 s \/ plain 15\.0 s\)$/);
  assert.match(formatFigureLine(measured(ratioBase, 1.1)), /target <= 1\.15x\s+meets$/);
  const missing = formatFigureLine(notMeasured({ ...ratioBase, id: 'lab.ratio', group: 'lab', label: 'lab' }, 'the lab driver needs root'));
  assert.match(missing, /^lab\s+—\s+target <= 1\.15x\s+not measured: the lab driver needs root$/);
});

test('labels are padded to the longest so values line up', () => {
  const lines = formatFigures([measured(ratioBase, 1.1), measured({ id: 'g', group: 'growth', label: 'g', unit: 's' }, 9)]);
  assert.equal(lines[0]!.indexOf('1.10x') + '1.10x'.length, lines[1]!.indexOf('9.0 s') + '9.0 s'.length);
});

test('summary counts, and the exit code fails only for figures that were not measured', () => {
  const figures = [
    measured(ratioBase, 1.3),
    measured({ ...ratioBase, id: 'x' }, 1.0),
    notMeasured({ ...ratioBase, id: 'lab.ratio', group: 'lab' }, 'skipped (--skip-lab)'),
  ];
  assert.deepEqual(summarize(figures), { measured: 2, notMeasured: 1, meetTarget: 1, missTarget: 1 });
  assert.equal(exitCodeFor(figures), 1);
  assert.equal(exitCodeFor(figures, new Set(['lab'])), 0);
  assert.equal(exitCodeFor(figures.slice(0, 2)), 0, 'a missed target is reported, not failed');
});
