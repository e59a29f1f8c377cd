// `nft list table ip kube-proxy` as the committed nftables run printed it on worker2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { findChain, findChainRule, findPortVerdict, findSet, parseNftTable } from '../../src/evidence/extract/nft.ts';

const file = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/snapshots.nftables/nft-worker2.yaml', import.meta.url));
const run = load(readFileSync(fileURLToPath(new URL('run.yaml', `file://${file}`)), 'utf8')) as { services: { name: string; nodePort: number }[] };
const stdout = (load(readFileSync(file, 'utf8')) as { stdout: string }).stdout;
const nodePort = (name: string) => String(run.services.find((s) => s.name === name)!.nodePort);

test("parses kube-proxy's table: sets and maps with their elements over several lines, chains with hooks and rules", () => {
  const table = parseNftTable(stdout);
  assert.deepEqual([table.family, table.name], ['ip', 'kube-proxy']);
  const map = findSet(table, 'no-endpoint-nodeports');
  assert.equal(map.kind, 'map');
  assert.equal(map.type, 'inet_proto . inet_service : verdict');
  // One element per Local Service without a local endpoint on worker2, as many as the text lists.
  const listed = stdout.split('map no-endpoint-nodeports')[1]!.split('elements = {')[1]!.split('}')[0]!;
  assert.equal(map.elements.length, (listed.match(/ : /g) ?? []).length);
  const drop = findPortVerdict(map, 'tcp', nodePort('s-local'));
  assert.deepEqual([drop.verdict, drop.comment, drop.port], ['drop', 'default/s-local', nodePort('s-local')]);
  assert.equal(drop.text, `tcp . ${nodePort('s-local')} comment "default/s-local" : drop`);
  const input = findChain(table, 'filter-input');
  assert.equal(input.hook, 'type filter hook input priority filter; policy accept;');
  assert.equal(findChainRule(table, 'filter-input', 'jump nodeport-endpoints-check'), 'ct state new jump nodeport-endpoints-check');
  assert.equal(
    findChainRule(table, 'nodeport-endpoints-check', '@no-endpoint-nodeports'),
    'ip daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports',
  );
  assert.equal(findChain(table, 'reject-chain').rules.join('|'), 'reject', "a chain's own comment is not a rule");
  // Set elements on one line, and map elements whose verdicts name chains with slashes.
  assert.equal(findSet(table, 'nodeport-ips').elements.length, 1);
  assert.match(
    findPortVerdict(findSet(table, 'service-nodeports'), 'tcp', nodePort('s-cluster')).verdict,
    /^goto external-[A-Z0-9]+-default\/s-cluster\/tcp\/$/,
  );
});

test('what is not there is named, with what is', () => {
  const table = parseNftTable(stdout);
  assert.throws(
    () => findPortVerdict(findSet(table, 'no-endpoint-nodeports'), 'tcp', nodePort('s-cluster')),
    /looked for tcp \. \d+ in map "no-endpoint-nodeports"; it holds tcp \. /,
  );
  assert.throws(() => findSet(table, 'nope'), /looked for set or map "nope" in table ip kube-proxy; it has hairpin-connections, /);
  assert.throws(() => findChainRule(table, 'filter-input', 'jump nowhere'), /looked for one rule of chain "filter-input" with "jump nowhere", found 0/);
  assert.throws(() => parseNftTable('Error: No such file or directory\n'), /expected "table <family> <name> \{" on the first line/);
  const empty = parseNftTable('table ip t {\n\tmap m {\n\t\ttype inet_proto . inet_service : verdict\n\t}\n}\n');
  assert.throws(() => findPortVerdict(findSet(empty, 'm'), 'tcp', '1'), /it holds no elements/);
});
