// `nft list ruleset` as the committed nftables run printed it on worker2: kube-proxy's table beside iptables-nft's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { findChain, findChainRule, findPortVerdict, findSet, findTable, parseNftRuleset, parseNftTable } from '../../src/evidence/extract/nft.ts';

const file = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/snapshots.nftables/nft-worker2.yaml', import.meta.url));
const run = load(readFileSync(fileURLToPath(new URL('run.yaml', `file://${file}`)), 'utf8')) as { services: { name: string; nodePort: number }[] };
const stdout = (load(readFileSync(file, 'utf8')) as { stdout: string }).stdout;
const nodePort = (name: string) => String(run.services.find((s) => s.name === name)!.nodePort);

const kubeProxy = () => findTable(parseNftRuleset(stdout), 'ip', 'kube-proxy');

test('a ruleset is every table the node had, in order, each parsed whole', () => {
  const tables = parseNftRuleset(stdout);
  const names = tables.map((t) => `${t.family} ${t.name}`);
  // As many tables as the text opens at its margin; kube-proxy's among them, once.
  assert.equal(names.length, (stdout.match(/^table /gm) ?? []).length);
  assert.equal(names.filter((n) => n === 'ip kube-proxy').length, 1);
  assert.ok(names.length > 1, `kube-proxy's table beside others: ${names.join(', ')}`);
  // Each table's chains are its own: kubelet's KUBE-FIREWALL (iptables-nft's ip filter) is not kube-proxy's.
  assert.ok(findChain(findTable(tables, 'ip', 'filter'), 'KUBE-FIREWALL').rules.length > 0);
  assert.throws(() => findChain(kubeProxy(), 'KUBE-FIREWALL'), /looked for chain "KUBE-FIREWALL" in table ip kube-proxy/);
  // A single table (`nft list table`) is a ruleset of one.
  const one = parseNftRuleset('table ip t {\n\tchain c {\n\t\taccept\n\t}\n}\n');
  assert.deepEqual(
    one.map((t) => [t.family, t.name, t.chains[0]!.rules]),
    [['ip', 't', ['accept']]],
  );
});

test('a ruleset that is not one names what it found, and a table that is missing or twice is named with what is there', () => {
  assert.throws(
    () => parseNftRuleset('Error: Could not process rule: Operation not permitted\n'),
    /expected "table <family> <name> \{" at the margin, got "Error: Could not/,
  );
  assert.throws(() => parseNftRuleset(''), /expected "table <family> <name> \{" on the first line, got ""/);
  assert.throws(() => findTable(parseNftRuleset(stdout), 'ip6', 'kube-proxy'), /looked for one table ip6 kube-proxy, found 0; the ruleset has .*ip kube-proxy/);
  const twice = 'table ip t {\n}\ntable ip t {\n}\n';
  assert.throws(() => findTable(parseNftRuleset(twice), 'ip', 't'), /looked for one table ip t, found 2/);
});

test("parses kube-proxy's table: sets and maps with their elements over several lines, chains with hooks and rules", () => {
  const table = kubeProxy();
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
  const table = kubeProxy();
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
