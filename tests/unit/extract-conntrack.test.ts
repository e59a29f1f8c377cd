import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flowEntriesShown, parseConntrackLine, parseConntrackList } from '../../src/evidence/extract/conntrack.ts';
import { readLines, readSample } from '../fixtures/samples/read-sample.ts';

test("parses worker2's entry for s-cluster's NodePort: DNAT to the pod, SNAT to worker2", () => {
  const sample = readSample('conntrack/conntrack-worker2.yaml');
  const [entry, ...rest] = parseConntrackList(sample.stdout);
  assert.equal(rest.length, 0);
  assert.equal(entry!.line, sample.stdout.trim());
  assert.equal(entry!.protocol, 'tcp');
  assert.equal(entry!.protocolNumber, 6);
  assert.ok(entry!.timeout > 0 && entry!.timeout <= 120);
  assert.equal(entry!.state, 'TIME_WAIT');
  assert.equal(entry!.original.src, '172.20.0.3');
  assert.equal(entry!.original.dst, '172.20.0.4');
  assert.equal(entry!.original.dport, '32435');
  assert.match(entry!.original.sport!, /^\d+$/);
  assert.deepEqual(entry!.original.extra, {});
  assert.equal(entry!.reply.src, '10.245.2.2');
  assert.equal(entry!.reply.dst, '172.20.0.4');
  assert.equal(entry!.reply.sport, '80');
  assert.deepEqual(entry!.flags, ['ASSURED']);
  assert.equal(entry!.mark, '0');
  assert.equal(entry!.use, 1);
  assert.deepEqual(entry!.extra, {});
  assert.equal(flowEntriesShown(sample.stderr), 1);
});

test('an [UNREPLIED] flag between the two directions does not end the entry', () => {
  const entries = parseConntrackList(readSample('conntrack/worker2-all-after-delete.yaml').stdout);
  assert.equal(entries.length, flowEntriesShown(readSample('conntrack/worker2-all-after-delete.yaml').stderr));
  // The UDP datagram nobody answered, among the API server's and the NodePorts' entries.
  const unreplied = entries.find((e) => e.flags.includes('UNREPLIED'))!;
  assert.equal(unreplied.protocol, 'udp');
  assert.equal(unreplied.reply.src, '172.20.0.4');
  assert.equal(unreplied.reply.sport, '5353');
  assert.equal(unreplied.mark, '0');
  assert.equal(unreplied.use, 1);
  // kube-proxy's own connections to the API server are there too, ESTABLISHED.
  assert.ok(entries.some((e) => e.protocol === 'tcp' && e.state === 'ESTABLISHED' && e.original.dport === '6443'));
});

test('UDP entries have no state', () => {
  const sample = readSample('conntrack/worker2-udp.yaml');
  const [udp] = parseConntrackList(sample.stdout);
  assert.equal(udp!.protocol, 'udp');
  assert.equal(udp!.protocolNumber, 17);
  assert.equal(udp!.state, undefined);
  assert.equal(udp!.original.dport, '5353');
  assert.equal(udp!.reply.sport, '5353');
  assert.deepEqual(udp!.flags, ['UNREPLIED']);
});

test('counts: two entries, none, and the stderr summary', () => {
  const two = readSample('conntrack/worker2-two-entries.yaml');
  assert.equal(parseConntrackList(two.stdout).length, 2);
  assert.equal(flowEntriesShown(two.stderr), 2);
  const none = readSample('conntrack/worker2-none.yaml');
  assert.deepEqual(parseConntrackList(none.stdout), []);
  assert.equal(flowEntriesShown(none.stderr), 0);
  assert.throws(() => flowEntriesShown(''), { name: 'ExtractError', message: 'looked for "N flow entries have been shown." in stderr, got ""' });
});

test("the article's quoted lines (single-spaced) parse the same way", () => {
  const [first, second] = readLines('seed/074-conntrack.txt').map(parseConntrackLine);
  assert.deepEqual([first!.original.src, first!.original.dst, first!.original.sport, first!.original.dport], ['172.18.0.3', '172.18.0.4', '52092', '31575']);
  assert.deepEqual([first!.reply.src, first!.reply.dst, first!.reply.sport, first!.reply.dport], ['10.244.1.178', '172.18.0.4', '80', '4458']);
  assert.equal(first!.timeout, 119);
  assert.equal(second!.timeout, 102);
  assert.equal(second!.reply.src, '10.244.1.177');
});

test('lines that are not conntrack entries fail with the line and what was expected', () => {
  assert.throws(() => parseConntrackList('tcp 6 119 TIME_WAIT src=1.1.1.1 dst=2.2.2.2 sport=1 dport=2\n'), {
    name: 'ExtractError',
    message:
      'conntrack output line 1: conntrack line: expected an original and a reply direction (two src=... groups), got "tcp 6 119 TIME_WAIT src=1.1.1.1 dst=2.2.2.2 sport=1 dport=2"',
  });
  assert.throws(() => parseConntrackLine('client=10.245.1.1'), /expected a protocol name first/);
  assert.throws(() => parseConntrackLine('tcp x 119'), /expected a protocol number second/);
  assert.throws(() => parseConntrackLine('tcp 6 119 TIME_WAIT src=1.1.1.1 dst=2.2.2.2 garbage'), /expected key=value or \[FLAG\] tokens, not "garbage"/);
  assert.throws(() => parseConntrackLine('tcp 6 1 CLOSE src=1.1.1.1 sport=1 src=2.2.2.2 dst=1.1.1.1'), /expected src= and dst= in the original direction/);
});
