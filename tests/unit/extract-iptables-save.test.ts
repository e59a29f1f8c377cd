import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRule, findRules, optionValue, parseIptablesSave, splitRuleArgs } from '../../src/evidence/extract/iptables-save.ts';
import { readLines, readSample } from '../fixtures/samples/read-sample.ts';

const filterWorker2 = readSample('iptables/filter-worker2.yaml').stdout;
const DROP_LOCAL =
  '-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/s-local has no local endpoints" -m addrtype --dst-type LOCAL -m tcp --dport 30187 -j DROP';

test("parseIptablesSave reads worker2's filter table: chains with policies, rules with their exact lines", () => {
  const save = parseIptablesSave(filterWorker2);
  assert.deepEqual(
    save.tables.map((t) => t.name),
    ['filter'],
  );
  const filter = save.tables[0]!;
  // kube-proxy v1.37's own chains, as iptables-save prints them.
  assert.deepEqual(
    filter.chains.map((c) => `${c.name} ${c.policy}`),
    [
      'INPUT ACCEPT',
      'FORWARD ACCEPT',
      'OUTPUT ACCEPT',
      'KUBE-EXTERNAL-SERVICES -',
      'KUBE-FIREWALL -',
      'KUBE-FORWARD -',
      'KUBE-NODEPORTS -',
      'KUBE-PROXY-CANARY -',
      'KUBE-PROXY-FIREWALL -',
      'KUBE-SERVICES -',
    ],
  );
  assert.equal(filter.chains[0]!.counters, '[0:0]');
  assert.equal(filter.rules.length, filterWorker2.split('\n').filter((l) => l.startsWith('-A ')).length);
  const drop = filter.rules.find((r) => r.line === DROP_LOCAL)!;
  assert.equal(drop.chain, 'KUBE-EXTERNAL-SERVICES');
  assert.equal(drop.target, 'DROP');
  assert.equal(drop.table, 'filter');
  assert.equal(filterWorker2.split('\n')[drop.lineNumber - 1], DROP_LOCAL);
  // The quoted comment is one argument, without its quotes.
  assert.equal(optionValue(drop.args, '--comment'), 'default/s-local has no local endpoints');
  assert.equal(optionValue(drop.args, '--dport'), '30187');
  assert.equal(optionValue(drop.args, '--sport'), undefined);
});

test('findRule returns the DROP rule for a NodePort exactly as iptables-save printed it', () => {
  const save = parseIptablesSave(filterWorker2);
  assert.equal(findRule(save, { chain: 'KUBE-EXTERNAL-SERVICES', target: 'DROP', dport: 30187 }).line, DROP_LOCAL);
  assert.match(
    findRule(save, { table: 'filter', chain: 'KUBE-EXTERNAL-SERVICES', target: 'DROP', dport: '31317' }).line,
    /"default\/s-lb has no local endpoints".* --dport 31317 -j DROP$/,
  );
  assert.equal(findRule(save, { chain: 'KUBE-NODEPORTS', target: 'ACCEPT' }).args.at(-3), '31877');
});

test('findRule says what it looked for and what the chain holds when nothing matches', () => {
  const save = parseIptablesSave(filterWorker2);
  assert.throws(
    () => findRule(save, { chain: 'KUBE-EXTERNAL-SERVICES', target: 'DROP', dport: 1 }),
    (e: Error) => {
      assert.equal(e.name, 'ExtractError');
      assert.match(
        e.message,
        /^looked for a rule with chain KUBE-EXTERNAL-SERVICES, target DROP, --dport 1 in iptables-save output, found none \(chain KUBE-EXTERNAL-SERVICES has: "-A KUBE-EXTERNAL-SERVICES/,
      );
      return true;
    },
  );
  assert.throws(
    () => findRule(save, { chain: 'KUBE-EXTERNAL-SERVICES', target: 'DROP' }),
    /expected one rule with chain KUBE-EXTERNAL-SERVICES, target DROP, found 2: line \d+, line \d+/,
  );
  // On worker (the node with the backend) kube-proxy writes no DROP rule.
  const worker = parseIptablesSave(readSample('iptables/worker-filter.yaml').stdout);
  assert.throws(
    () => findRule(worker, { chain: 'KUBE-EXTERNAL-SERVICES', target: 'DROP', dport: 30187 }),
    /found none \(chain KUBE-EXTERNAL-SERVICES has no rules\)/,
  );
  assert.throws(() => findRule(save, { table: 'nat', target: 'DNAT' }), /found none \(tables present: filter\)/);
});

test('parseIptablesSave reads every table of a full iptables-save, nat rules included', () => {
  const save = parseIptablesSave(readSample('iptables/worker2-all.yaml').stdout);
  assert.deepEqual(
    save.tables.map((t) => t.name),
    ['mangle', 'filter', 'nat'],
  );
  const nodePorts = findRules(save, { table: 'nat', chain: 'KUBE-NODEPORTS' });
  // Two rules a NodePort (kube-proxy v1.37): each still jumps to the Service's KUBE-EXT chain.
  assert.deepEqual(
    nodePorts.map((r) => optionValue(r.args, '--dport')),
    ['30495', '30495', '32435', '32435', '31466', '31466'],
  );
  assert.ok(nodePorts.every((r) => r.target?.startsWith('KUBE-EXT-')));
  // One endpoint a Service: the backend for the three, the API server for `kubernetes`.
  const dnat = findRules(save, { table: 'nat', target: 'DNAT' });
  assert.deepEqual(dnat.map((r) => optionValue(r.args, '--to-destination')).sort(), ['10.245.2.2:80', '10.245.2.2:80', '10.245.2.2:80', '172.20.0.3:6443']);
  // The same table read alone gives the same rules.
  const natOnly = parseIptablesSave(readSample('iptables/worker2-nat.yaml').stdout);
  assert.deepEqual(
    natOnly.tables[0]!.rules.map((r) => r.line),
    save.tables.find((t) => t.name === 'nat')!.rules.map((r) => r.line),
  );
  // A negated match keeps its "!" as an argument.
  assert.deepEqual(findRules(natOnly, { chain: 'KUBE-POSTROUTING', target: 'RETURN' })[0]!.args.slice(0, 4), ['-m', 'mark', '!', '--mark']);
});

test("the article's quoted DROP rule (no comment) is found by chain, target and port", () => {
  const [line] = readLines('seed/074-drop-rule.txt');
  const save = parseIptablesSave(`*filter\n:KUBE-EXTERNAL-SERVICES - [0:0]\n${line}\nCOMMIT\n`);
  assert.equal(findRule(save, { chain: 'KUBE-EXTERNAL-SERVICES', target: 'DROP', dport: 32459 }).line, line);
});

test('iptables-save -c counters before -A are accepted; the line stays as printed', () => {
  const text = '*filter\n:INPUT ACCEPT [5:300]\n[3:180] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\nCOMMIT\n';
  const rule = parseIptablesSave(text).tables[0]!.rules[0]!;
  assert.equal(rule.line, '[3:180] -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT');
  assert.equal(rule.target, 'ACCEPT');
});

test('splitRuleArgs honours quotes and backslash escapes', () => {
  assert.deepEqual(splitRuleArgs('-m comment --comment "say \\"hi\\" \\\\ there" -j ACCEPT'), [
    '-m',
    'comment',
    '--comment',
    'say "hi" \\ there',
    '-j',
    'ACCEPT',
  ]);
  assert.deepEqual(splitRuleArgs('--comment ""'), ['--comment', '']);
  assert.throws(() => splitRuleArgs('--comment "open'), /unterminated quote/);
});

test('parseIptablesSave fails on cut-short or foreign output, naming the line', () => {
  assert.throws(() => parseIptablesSave(filterWorker2.replace(/COMMIT[\s\S]*$/, '')), /table "filter" has no COMMIT \(the output was cut short\)/);
  assert.throws(() => parseIptablesSave('-A INPUT -j ACCEPT\n'), /line 1: expected a "\*table" line first, got "-A INPUT -j ACCEPT"/);
  assert.throws(() => parseIptablesSave('*filter\n:INPUT\nCOMMIT\n'), /line 2: expected a chain line ":NAME POLICY \[packets:bytes\]", got ":INPUT"/);
  assert.throws(() => parseIptablesSave('*filter\nclient=10.245.1.1\nCOMMIT\n'), /line 2: expected a rule line "-A CHAIN \.\.\.", got "client=10\.245\.1\.1"/);
  assert.deepEqual(parseIptablesSave('').tables, []);
});
