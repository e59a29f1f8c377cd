// The step builders experiments share: the command they make is the one the
// articles' committed runs recorded, flag for flag.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { curlArgv, exec } from '../../src/experiment/steps.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = (slug: string, folder = 'snapshots') => loadSnapshots(join(root, 'content/articles', slug, folder));

test("curlArgv: the argv 074's and 075's runs recorded, in their order", () => {
  const s074 = run('074-external-traffic-policy').steps;
  const health = s074.get('health-worker')!.command;
  assert.deepEqual(curlArgv(health.at(-1)!, { maxTime: '3', include: true }), health);
  const plain = s074.get('cluster-via-worker')!.command;
  assert.deepEqual(curlArgv(plain.at(-1)!, { maxTime: '3' }), plain);
  const spread = run('075-local-uneven-weights').steps.get('spread-local')!.command;
  assert.deepEqual(curlArgv(spread.at(-1)!, { maxTime: '2', header: 'Connection: close', writeOut: ' %{http_code} %{remote_ip}\\n' }), spread);
});

test('exec: a command on a node, with what the step may add', () => {
  const command = () => ['iptables-save', '-t', 'nat'];
  assert.deepEqual(exec('iptables-worker', 'worker', "worker's nat table", command, { variants: ['iptables'] }), {
    kind: 'exec',
    id: 'iptables-worker',
    node: 'worker',
    title: "worker's nat table",
    command,
    variants: ['iptables'],
  });
});
