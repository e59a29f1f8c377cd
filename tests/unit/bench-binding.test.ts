// The binding figures: wall-time ratios of the evidence site to its plain
// baselines, built in the same run, with the same ratios over CPU time beside
// them; nothing measured when a plain site does not show the same page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindingFigures, BINDING_TARGET } from '../../bench/measure/binding.ts';
import type { BuildResult } from '../../bench/site/astro-build.ts';

const build = (seconds: number, cpuSeconds: number | null, load = 0.5): BuildResult => ({
  seconds,
  cost: { cpuSeconds, loadBefore: load, loadAfter: load },
  htmlFiles: 10,
  peakRssBytes: null,
});

test('the ratio is of the faster builds over wall time, with the ratio of the least CPU times beside it', () => {
  const figures = bindingFigures(
    50,
    { plain: [build(22.5, 40), build(24, 41)], evidence: [build(12.7, 30), build(13.1, 29)], unhighlighted: [build(10, 20), build(11, 21)] },
    { plain: null, unhighlighted: null },
  );
  const [ratio, perPage, bare] = figures;
  assert.equal(ratio!.id, 'binding.ratio');
  assert.equal(ratio!.value, 12.7 / 22.5);
  assert.deepEqual(ratio!.target, { op: '<=', value: BINDING_TARGET });
  assert.match(
    ratio!.note!,
    /evidence 12\.7 s \/ plain 22\.5 s wall, faster of 2 cold builds each; over CPU time 0\.72x \(evidence \/ plain 29\.0 \/ 40\.0 s CPU\); same text/,
  );
  assert.deepEqual((ratio!.details as { cpuSeconds: unknown }).cpuSeconds, { plain: [40, 41], evidence: [30, 29], unhighlighted: [20, 21] });
  assert.equal(perPage!.value, ((12.7 - 22.5) * 1000) / 100);
  assert.match(perPage!.note!, /CPU -110\.0 ms\/page/);
  assert.equal(bare!.value, 12.7 / 10);
  assert.match(bare!.note!, /over CPU time 1\.45x/);
});

test('a busy machine is named, CPU time unknown is said, and a plain site that differs measures nothing', () => {
  const busy = bindingFigures(
    1,
    { plain: [build(2, null, 9)], evidence: [build(3, null)], unhighlighted: [build(1, null)] },
    { plain: null, unhighlighted: 'the unhighlighted and evidence en article pages differ in text at character 3' },
  );
  assert.match(busy[0]!.note!, /CPU time unknown here; 1 build\(s\) ran with the load above the cores: read the CPU ratio/);
  assert.equal(busy[2]!.status, 'not measured');
  const differ = bindingFigures(
    1,
    { plain: [build(2, 1)], evidence: [build(3, 2)], unhighlighted: [build(1, 1)] },
    { plain: 'x differs', unhighlighted: null },
  );
  assert.deepEqual(
    differ.map((f) => [f.id, f.status]),
    [
      ['binding.ratio', 'not measured'],
      ['binding.perPage', 'not measured'],
      ['binding.ratioUnhighlighted', 'measured'],
    ],
  );
  assert.match(differ[0]!.reason!, /^x differs; a ratio of different pages would mean nothing$/);
});
