// The names of links to raw output (output-links.ts), on the steps of 074's committed run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { lineLinkNames, stepLinkNames } from '../../src/article/render/output-links.ts';

const run = loadSnapshots(join(fileURLToPath(new URL('../../', import.meta.url)), 'content/articles/074-external-traffic-policy/snapshots'));
const steps = (...ids: string[]) => ids.map((id) => run.steps.get(id)!);

test('a list of steps is named by what ran where, numbered where two would read the same; never by step id', () => {
  const walk = steps('cluster-via-worker', 'cluster-via-worker2', 'conntrack-worker2', 'iptables-worker');
  assert.deepEqual(stepLinkNames(walk, 'zh'), [
    'control-plane 上的 curl（1）',
    'control-plane 上的 curl（2）',
    'worker2 上的 conntrack',
    'worker 上的 iptables-save',
  ]);
  assert.deepEqual(stepLinkNames(walk, 'en'), ['curl on control-plane (1)', 'curl on control-plane (2)', 'conntrack on worker2', 'iptables-save on worker']);
  assert.deepEqual(stepLinkNames(steps('delete-backend'), 'zh'), [`采集主机上的 ${run.steps.get('delete-backend')!.command[0]}`]);
});

test("a Measured block's links name its lines", () => {
  assert.deepEqual(lineLinkNames(3, 'zh'), ['第 1 行', '第 2 行', '第 3 行']);
  assert.deepEqual(lineLinkNames(1, 'en'), ['line 1']);
});
