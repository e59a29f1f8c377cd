// The arithmetic of the benchmark: averages, ratios and the least-squares line
// through build times. Pure; every function names what it got when it cannot answer.

export interface Point {
  x: number;
  y: number;
}

export interface LineFit {
  slope: number;
  intercept: number;
  /** Coefficient of determination; 1 when every point lies on the line. */
  r2: number;
}

function assertFinite(values: readonly number[], what: string): void {
  const bad = values.find((v) => !Number.isFinite(v));
  if (bad !== undefined) throw new Error(`${what}: expected finite numbers, got ${bad}`);
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error('mean: expected at least one value, got none');
  assertFinite(values, 'mean');
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** numerator / denominator; a zero or negative denominator has no meaningful ratio here (times, sizes). */
export function ratio(numerator: number, denominator: number): number {
  assertFinite([numerator, denominator], 'ratio');
  if (denominator <= 0) throw new Error(`ratio: expected a denominator > 0, got ${denominator}`);
  return numerator / denominator;
}

/** Ordinary least squares of y on x; needs two distinct x values. */
export function leastSquares(points: readonly Point[]): LineFit {
  if (points.length < 2) throw new Error(`leastSquares: expected at least 2 points, got ${points.length}`);
  assertFinite(
    points.flatMap((p) => [p.x, p.y]),
    'leastSquares',
  );
  const mx = mean(points.map((p) => p.x));
  const my = mean(points.map((p) => p.y));
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const { x, y } of points) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
    syy += (y - my) ** 2;
  }
  if (sxx === 0) throw new Error(`leastSquares: expected at least 2 distinct x values, got only x=${mx}`);
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const residual = points.reduce((sum, p) => sum + (p.y - (intercept + slope * p.x)) ** 2, 0);
  return { slope, intercept, r2: syy === 0 ? 1 : 1 - residual / syy };
}

/** The slope between each pair of neighbouring points, in x order. */
export function segmentSlopes(points: readonly Point[]): number[] {
  const sorted = [...points].sort((a, b) => a.x - b.x);
  const slopes: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const dx = sorted[i]!.x - sorted[i - 1]!.x;
    if (dx === 0) throw new Error(`segmentSlopes: two points share x=${sorted[i]!.x}`);
    slopes.push((sorted[i]!.y - sorted[i - 1]!.y) / dx);
  }
  return slopes;
}

export type GrowthShape = 'linear' | 'faster than linear' | 'slower than linear';

export interface Growth {
  shape: GrowthShape;
  /** Last segment's slope over the first's: 1 on a straight line; null when the first segment cost nothing. */
  bend: number | null;
}

/**
 * Whether costs grow linearly: with a handful of sizes r² stays near 1 even on
 * a curve, so the test compares the marginal cost of the last segment with the
 * first. Within `tolerance` (0.25: from 0.75x to 1/0.75x) it counts as linear.
 */
export function growthShape(points: readonly Point[], tolerance = 0.25): Growth {
  if (points.length < 3) throw new Error(`growthShape: expected at least 3 sizes, got ${points.length}`);
  const slopes = segmentSlopes(points);
  const first = slopes[0]!;
  const last = slopes.at(-1)!;
  if (first <= 0) {
    // The first step cost nothing (or less): any positive later cost is a bend upwards.
    return { shape: last > 0 ? 'faster than linear' : 'linear', bend: null };
  }
  const bend = last / first;
  const low = 1 - tolerance;
  const shape: GrowthShape = bend > 1 / low ? 'faster than linear' : bend < low ? 'slower than linear' : 'linear';
  return { shape, bend };
}

/**
 * The order to build `sizes` in, `rounds` times each: up, then down, then up
 * again, so a stretch of load on the machine falls on every size alike rather
 * than on the two builds of one size.
 */
export function interleavedOrder<T>(sizes: readonly T[], rounds: number): T[] {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`interleavedOrder: expected rounds >= 1, got ${rounds}`);
  const order: T[] = [];
  for (let round = 0; round < rounds; round++) order.push(...(round % 2 === 0 ? sizes : [...sizes].reverse()));
  return order;
}
