// How an article shows a long line of JSON (074's `ip -j address show` on worker,
// as committed): laid out over indented lines that parse to the same value, the
// line it came as kept for the copy button; any other output, and JSON a layout
// could change, shown as it came.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { outputBlocks, readableBlocks } from '../../src/article/render/raw-output.ts';

const snapshots = loadSnapshots(fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/snapshots', import.meta.url)));
const step = (id: string) => snapshots.steps.get(id)!;

test('one long line of JSON is laid out over indented lines of the same value, and keeps the line it came as', () => {
  const addresses = step('addresses-worker');
  const [raw] = outputBlocks(addresses);
  const [shown] = readableBlocks(addresses);
  assert.equal(raw!.lang, 'json');
  assert.ok(!raw!.code.includes('\n') && raw!.code.length > 120, 'the snapshot holds one long line');
  assert.equal(shown!.asItCame, raw!.code);
  assert.deepEqual(JSON.parse(shown!.code), JSON.parse(raw!.code));
  const lines = shown!.code.split('\n');
  assert.ok(lines.length > 20, `${lines.length} lines`);
  assert.ok(
    lines.every((line) => line.length <= 80),
    'each line fits a phone, give or take',
  );
  assert.match(lines[1]!, /^ {2}\{$/);
});

test('text, an HTTP head, short JSON and JSON whose layout could change a value stay as they came', () => {
  for (const id of ['iptables-worker2', 'health-worker', 'cluster-via-worker']) assert.deepEqual(readableBlocks(step(id)), outputBlocks(step(id)), id);
  const short = { ...step('addresses-worker'), stdout: '[{"ifindex":1}]\n' };
  assert.deepEqual(readableBlocks(short), outputBlocks(short));
  // 2^53 + 1 parses to 2^53: laid out, it would show another number.
  const big = { ...step('addresses-worker'), stdout: `[${'{"valid_life_time":9007199254740993},'.repeat(4)}{"n":1}]\n` };
  assert.equal(readableBlocks(big)[0]!.asItCame, undefined);
  assert.equal(readableBlocks(big)[0]!.code, big.stdout.replace(/\n$/, ''));
});
