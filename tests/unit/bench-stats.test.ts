import { test } from 'node:test';
import assert from 'node:assert/strict';
import { growthShape, leastSquares, mean, ratio, segmentSlopes } from '../../bench/stats.ts';

test('mean of build times', () => {
  assert.equal(mean([9.2, 12.8, 49.3]), (9.2 + 12.8 + 49.3) / 3);
});

test('mean refuses an empty list and non-finite values', () => {
  assert.throws(() => mean([]), /mean: expected at least one value, got none/);
  assert.throws(() => mean([1, Number.NaN]), /mean: expected finite numbers, got NaN/);
});

test('ratio of evidence to plain build time', () => {
  assert.equal(ratio(17.25, 15), 1.15);
  assert.throws(() => ratio(1, 0), /ratio: expected a denominator > 0, got 0/);
  assert.throws(() => ratio(Number.POSITIVE_INFINITY, 2), /finite/);
});

test('least squares recovers a line exactly, with r² 1', () => {
  // 9 s of startup plus 0.1 s per page, at 2, 100 and 400 pages.
  const fit = leastSquares([
    { x: 2, y: 9.2 },
    { x: 100, y: 19 },
    { x: 400, y: 49 },
  ]);
  assert.ok(Math.abs(fit.slope - 0.1) < 1e-12);
  assert.ok(Math.abs(fit.intercept - 9) < 1e-9);
  assert.equal(fit.r2, 1);
});

test('least squares on noisy real timings gives the slope and an r² below 1', () => {
  // Seconds measured on this machine for 1, 50 and 200 articles (2, 100, 400 pages).
  const fit = leastSquares([
    { x: 2, y: 9.195 },
    { x: 100, y: 12.805 },
    { x: 400, y: 49.287 },
  ]);
  assert.ok(fit.slope > 0.09 && fit.slope < 0.11, `slope ${fit.slope}`);
  assert.ok(fit.r2 < 1 && fit.r2 > 0.9, `r2 ${fit.r2}`);
});

test('least squares needs two distinct x values', () => {
  assert.throws(() => leastSquares([{ x: 1, y: 1 }]), /at least 2 points, got 1/);
  assert.throws(
    () =>
      leastSquares([
        { x: 5, y: 1 },
        { x: 5, y: 2 },
      ]),
    /at least 2 distinct x values, got only x=5/,
  );
});

test('segment slopes follow x order whatever the input order', () => {
  assert.deepEqual(
    segmentSlopes([
      { x: 400, y: 49 },
      { x: 2, y: 9 },
      { x: 100, y: 19 },
    ]),
    [10 / 98, 30 / 300],
  );
  assert.throws(
    () =>
      segmentSlopes([
        { x: 1, y: 1 },
        { x: 1, y: 2 },
      ]),
    /two points share x=1/,
  );
});

test('growth shape: straight, bending up, bending down', () => {
  assert.deepEqual(
    growthShape([
      { x: 2, y: 9.2 },
      { x: 100, y: 19 },
      { x: 400, y: 49 },
    ]).shape,
    'linear',
  );
  const up = growthShape([
    { x: 2, y: 9 },
    { x: 100, y: 12.8 },
    { x: 400, y: 49.3 },
  ]);
  assert.equal(up.shape, 'faster than linear');
  assert.ok(up.bend! > 3);
  assert.equal(
    growthShape([
      { x: 0, y: 0 },
      { x: 10, y: 10 },
      { x: 20, y: 12 },
    ]).shape,
    'slower than linear',
  );
});

test('growth shape at the tolerance edge, and with a free first step', () => {
  assert.equal(
    growthShape([
      { x: 0, y: 0 },
      { x: 1, y: 1 },
      { x: 2, y: 2.3 },
    ]).shape,
    'linear',
  );
  assert.equal(
    growthShape([
      { x: 0, y: 0 },
      { x: 1, y: 1 },
      { x: 2, y: 2.4 },
    ]).shape,
    'faster than linear',
  );
  assert.deepEqual(
    growthShape([
      { x: 0, y: 5 },
      { x: 1, y: 5 },
      { x: 2, y: 7 },
    ]),
    { shape: 'faster than linear', bend: null },
  );
  assert.throws(
    () =>
      growthShape([
        { x: 0, y: 0 },
        { x: 1, y: 1 },
      ]),
    /at least 3 sizes, got 2/,
  );
});
