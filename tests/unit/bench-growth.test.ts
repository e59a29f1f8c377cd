// The growth bench: CPU time read from /proc, builds interleaved across sizes,
// and each build's CPU time and load reported beside its wall time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildCost, childCpuSeconds, describeBuild, wasBusy } from '../../bench/site/cpu.ts';
import { interleavedOrder } from '../../bench/stats.ts';
import { articleWorkFigure, buildOrder, growthFigures, kindSetSizes, ogCardFigure, OVER_FLOOR_TARGET, pageKindFigures } from '../../bench/measure/growth.ts';
import type { BuildResult } from '../../bench/site/astro-build.ts';

// /proc/<pid>/stat of a node process, as Linux 6.18 wrote it (cutime 1234, cstime 56).
const STAT =
  '4170 (node) S 4169 4170 4169 0 -1 4194560 3637 1120 0 0 12 3 1234 56 20 0 11 0 5312 1129451520 12291 18446744073709551615 1 1 0 0 0 0 0 16781312 17922 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0';

test('the CPU time of reaped children is cutime + cstime, whatever the command name', () => {
  assert.equal(childCpuSeconds(STAT), 12.9);
  assert.equal(childCpuSeconds(STAT.replace('(node)', '(a) b (c)')), 12.9);
  assert.throws(() => childCpuSeconds('garbage'), /not a \/proc stat line/);
});

test("this process's own /proc/self/stat parses", { skip: process.platform !== 'linux' }, () => {
  assert.ok(childCpuSeconds(readFileSync('/proc/self/stat', 'utf8')) >= 0);
});

test("a build's cost: CPU between two samples, the load before and after, and whether the machine was busy", () => {
  const cost = buildCost({ childCpu: 10, load: 0.4 }, { childCpu: 25.5, load: 3.1 });
  assert.deepEqual(cost, { cpuSeconds: 15.5, loadBefore: 0.4, loadAfter: 3.1 });
  assert.equal(describeBuild(12.34, cost), '12.3 s wall, 15.5 s CPU, load 0.4→3.1');
  assert.equal(wasBusy(cost, 2), true);
  assert.equal(wasBusy({ cpuSeconds: 1, loadBefore: 0.5, loadAfter: 1.9 }, 2), false);
  assert.equal(describeBuild(1, buildCost({ childCpu: null, load: 1 }, { childCpu: null, load: 1 })), '1.0 s wall, CPU unknown, load 1.0→1.0');
});

test('sizes are interleaved: up, down, up', () => {
  assert.deepEqual(interleavedOrder([1, 50, 200], 2), [1, 50, 200, 200, 50, 1]);
  assert.deepEqual(interleavedOrder([1, 50], 3), [1, 50, 50, 1, 1, 50]);
  assert.throws(() => interleavedOrder([1], 0), /rounds >= 1/);
});

test('the page sets without records are built at three times the largest size, next to each other, every round mirrored', () => {
  assert.deepEqual(kindSetSizes([1, 10, 40]), [1, 120]);
  assert.deepEqual(kindSetSizes([2, 3, 1]), [1, 9]);
  const plans = [
    { set: 'all' as const, sizes: [1, 10] },
    { set: 'none' as const, sizes: [1, 30] },
    { set: 'articles' as const, sizes: [1, 30] },
  ];
  const once = [
    ['all', 1],
    ['articles', 1],
    ['none', 1],
    ['all', 10],
    ['articles', 30],
    ['none', 30],
  ];
  assert.deepEqual(buildOrder(plans, 1), once);
  assert.deepEqual(buildOrder(plans, 2), [...once, ...[...once].reverse()]);
});

const build = (seconds: number, cpuSeconds: number | null, load = 0.5): BuildResult => ({
  seconds,
  cost: { cpuSeconds, loadBefore: load, loadAfter: load },
  htmlFiles: 1,
  peakRssBytes: null,
});

test('the slopes over wall and CPU time, each build described beside its size', () => {
  // 2, 100 and 400 article pages; wall grows 10 ms a page, CPU 14 ms a page.
  const figures = growthFigures([
    { n: 1, builds: [build(4.02, 5.03), build(4.5, 5.2)], failure: null },
    { n: 50, builds: [build(5.0, 6.4), build(5.3, 6.5, 3.5)], failure: null },
    { n: 200, builds: [build(8.0, 10.6), build(8.1, 10.7)], failure: null },
  ]);
  const byId = new Map(figures.map((f) => [f.id, f]));
  assert.equal(Math.round(byId.get('growth.marginal')!.value as number), 10);
  assert.equal(byId.get('growth.marginal')!.target, null, 'the ratio to the floor carries the target (growth.overFloor)');
  assert.match(byId.get('growth.marginal')!.note!, /1 build\(s\) ran with the load above the cores/);
  assert.equal(Math.round(byId.get('growth.marginalCpu')!.value as number), 14);
  assert.match(byId.get('growth.50')!.note!, /5\.0 s wall, 6\.4 s CPU, load 0\.5→0\.5; 5\.3 s wall, 6\.5 s CPU, load 3\.5→3\.5/);
});

test('a size that failed is not measured and the slopes come from the others', () => {
  const figures = growthFigures([
    { n: 1, builds: [build(4, null)], failure: null },
    { n: 50, builds: [], failure: 'too slow on this machine' },
    { n: 200, builds: [build(8, null)], failure: null },
  ]);
  const byId = new Map(figures.map((f) => [f.id, f]));
  assert.equal(byId.get('growth.50')!.value, null);
  assert.match(byId.get('growth.marginal')!.note!, /from 2 of 3 sizes/);
  assert.equal(byId.has('growth.marginalCpu'), false, 'no CPU time anywhere: no CPU figure, not a failed one');
  assert.match(byId.get('growth.marginal')!.note!, /CPU time unknown here/);
});

test("the floor: Astro's slope for the same prose, and the evidence site's over it, over wall and CPU time", () => {
  const evidence = [
    { n: 1, builds: [build(4.02, 5.03)], failure: null },
    { n: 50, builds: [build(5.0, 6.4)], failure: null },
    { n: 200, builds: [build(8.0, 10.6)], failure: null },
  ];
  // The floor grows 4 ms a page of wall time and 7 ms of CPU time.
  const floor = [
    { n: 1, builds: [build(3.008, 4.014)], failure: null },
    { n: 50, builds: [build(3.4, 4.7), build(3.5, 4.8)], failure: null },
    { n: 200, builds: [build(4.6, 6.8)], failure: null },
  ];
  const byId = new Map(growthFigures(evidence, floor).map((f) => [f.id, f]));
  assert.equal(Math.round(byId.get('growth.floor')!.value as number), 4);
  assert.match(byId.get('growth.floor')!.note!, /CPU 7\.0 ms\/page/);
  const over = byId.get('growth.overFloor')!;
  assert.equal((over.value as number).toFixed(2), '2.50');
  assert.equal(over.target!.value, OVER_FLOOR_TARGET);
  assert.equal(over.meets, false);
  assert.match(over.note!, /10\.0 \/ 4\.0 ms\/page wall; over CPU time 2\.00x/);
  assert.match(byId.get('growth.50')!.note!, /its floor: 3\.4 s wall, 4\.7 s CPU, load 0\.5→0\.5; 3\.5 s wall/);
});

test('a floor that could not be built is not measured, and says why; the evidence figures stand', () => {
  const evidence = [
    { n: 1, builds: [build(4, 5)], failure: null },
    { n: 50, builds: [build(5, 6.4)], failure: null },
  ];
  const floor = [
    { n: 1, builds: [], failure: "content/articles/x: no zh.mdx or en.mdx to take the floor's prose from" },
    { n: 50, builds: [], failure: "content/articles/x: no zh.mdx or en.mdx to take the floor's prose from" },
  ];
  const byId = new Map(growthFigures(evidence, floor).map((f) => [f.id, f]));
  assert.equal(byId.get('growth.floor')!.status, 'not measured');
  assert.match(byId.get('growth.overFloor')!.reason!, /got 0 \(content\/articles\/x: no zh\.mdx/);
  assert.equal(byId.get('growth.marginal')!.status, 'measured');
});

test("the Open Graph cards' cost: the faster build with them less the faster without, per article page, CPU beside", () => {
  const figure = ogCardFigure(20, { with: [build(30, 32), build(29, 31)], without: [build(6, 7), build(5, 7.5)], failure: null });
  assert.equal(figure.id, 'growth.ogCard');
  assert.equal(figure.unit, 'ms/page');
  assert.equal(figure.value, ((29 - 5) * 1000) / 40);
  assert.match(figure.note!, /^\(faster build with the cards - without\) \/ 40 article pages, wall; CPU 600\.0 ms\/page; with: 30\.0 s wall, 32\.0 s CPU/);
  assert.deepEqual(ogCardFigure(20, { with: [], without: [], failure: 'too slow on this machine' }).reason, 'too slow on this machine');
  assert.match(
    ogCardFigure(1, { with: [build(2, null)], without: [build(1, 1)], failure: null }).note!,
    /^\(faster build with the cards - without\) \/ 2 article pages, wall; with: 2\.0 s wall, CPU unknown/,
  );
});

test("each kind of page over the floor's page of the same kind: the difference of two page sets' slopes, per page", () => {
  // Seconds at 1 and 3 copies: [evidence site, floor] per page set (CPU time 1.5 times the wall time).
  const sizes = (evidence: [number, number], floor: [number, number]) => ({
    evidence: [1, 3].map((n, i) => ({ n, project: null, builds: [build(evidence[i]!, evidence[i]! * 1.5)], failure: null })),
    floor: [1, 3].map((n, i) => ({ n, project: null, builds: [build(floor[i]!, floor[i]! * 1.5)], failure: null })),
  });
  const all = sizes([5.0, 7.0], [4.0, 4.6]); // 1.0 and 0.3 s a copy
  const series = {
    ...all,
    // 0.4 and 0.2; 0.2 and 0.1; 0.1 and 0.05 s a copy
    sets: { 'no-records': sizes([4.6, 5.4], [3.8, 4.2]), articles: sizes([4.3, 4.7], [3.6, 3.8]), none: sizes([4.1, 4.3], [3.55, 3.65]) },
    pagesPerCopy: { article: 2, evidence: 2, record: 32 },
  };
  const byId = new Map(pageKindFigures(series).map((f) => [f.id, f]));
  const record = byId.get('growth.overFloor.record')!;
  assert.equal((record.value as number).toFixed(2), '6.00'); // (1.0 - 0.4) / 32 over (0.3 - 0.2) / 32
  assert.equal(record.meets, false);
  assert.match(record.note!, /^18\.[78] \/ 3\.1 ms per page wall; over CPU time 6\.00x .*32 such pages a copy; slopes of the all set less the no-records set$/);
  assert.equal((byId.get('growth.overFloor.evidence')!.value as number).toFixed(2), '2.00');
  assert.equal(byId.get('growth.overFloor.evidence')!.meets, true);
  assert.equal((byId.get('growth.overFloor.article')!.value as number).toFixed(2), '2.00'); // (0.2 - 0.1) / 2 over (0.1 - 0.05) / 2
  const work = articleWorkFigure(series);
  assert.equal(work.unit, 'ms/article');
  assert.equal((work.value as number).toFixed(1), '100.0');
  assert.match(work.note!, /CPU 150\.0 ms; its floor 50\.0 ms$/);
  assert.match(articleWorkFigure({ sets: {} }).reason!, /needs at least 2 sizes of the none set/);
  assert.equal(byId.get('growth.overFloor.article')!.target!.value, OVER_FLOOR_TARGET);

  // A set not built, or a floor whose kind cost nothing: not measured, with the reason.
  const missing = new Map(pageKindFigures({ ...series, sets: { articles: series.sets.articles, none: series.sets.none } }).map((f) => [f.id, f]));
  assert.match(missing.get('growth.overFloor.record')!.reason!, /needs at least 2 sizes of the all set less the no-records set built/);
  assert.equal(missing.get('growth.overFloor.article')!.status, 'measured');
  const flat = pageKindFigures({ ...series, floor: series.sets['no-records'].floor }).find((f) => f.id === 'growth.overFloor.record')!;
  assert.match(flat.reason!, /the floor's record pages cost nothing measurable/);
  assert.match(pageKindFigures({ ...series, pagesPerCopy: null })[0]!.reason!, /the floor's sources could not be read/);
});
