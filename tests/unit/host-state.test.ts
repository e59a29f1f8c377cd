// What a kind cluster and shice's engine change of the host, and what is written back,
// as pure functions on real readings of this kind of machine (tests/fixtures/samples/host).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { changeText, isRecordedSysctl, routeChanges, routeLines, sysctlChanges, type Sysctls } from '../../src/capture/kind/engine/host-state.ts';

const sample = (name: string) => readFileSync(new URL(`../fixtures/samples/host/${name}`, import.meta.url), 'utf8');
const before = JSON.parse(sample('sysctls-before-engine.json')) as Sysctls;

/** The settings a real kind teardown reported writing back, as `name after -> before`. */
const reported = sample('kind-teardown-wrote-back.txt')
  .replace(/^[^:]*: /, '')
  .trim()
  .split(', ')
  .map((item) => /^(\S+) (.+) -> (.+)$/.exec(item)!)
  .map(([, name, after, was]) => ({ name: name!, before: was!, after: after! }));

test("the recorded settings: the host's own, not an interface's, a device's or the last pid", () => {
  for (const path of [
    'net/ipv4/ip_forward',
    'net/ipv6/conf/all/forwarding',
    'net/ipv6/conf/default/forwarding',
    'net/ipv4/neigh/default/gc_thresh1',
    'kernel/panic',
    'fs/file-max',
    'vm/overcommit_memory',
  ])
    assert.equal(isRecordedSysctl(path), true, path);
  for (const path of [
    'net/ipv6/conf/eth0/forwarding',
    'net/ipv4/conf/docker0',
    'net/ipv4/neigh/eth0/gc_stale_time',
    'dev/tty',
    'fs/binfmt_misc',
    'kernel/random/boot_id',
    'kernel/ns_last_pid',
  ])
    assert.equal(isRecordedSysctl(path), false, path);
  assert.equal(Object.keys(before).filter((name) => /\.(eth0|lo)\./.test(name)).length, 0, 'a real reading holds no interface of its own');
  assert.equal(before['net.ipv4.ip_forward'], '0');
  assert.equal(before['net.ipv6.conf.all.forwarding'], '0');
});

test('what a kind cluster changed of the kernel settings, found from the readings before and after', () => {
  const after = { ...before, ...Object.fromEntries(reported.map((c) => [c.name, c.after])) };
  const changes = sysctlChanges(before, after);
  assert.deepEqual(
    changes,
    [...reported].sort((a, b) => a.name.localeCompare(b.name)),
  );
  assert.deepEqual(
    changes.map((c) => c.name),
    [
      'fs.file-max',
      'fs.protected_fifos',
      'fs.protected_regular',
      'fs.protected_symlinks',
      'kernel.panic',
      'kernel.panic_on_oops',
      'net.ipv6.conf.all.forwarding',
      'net.ipv6.conf.default.forwarding',
      'vm.overcommit_memory',
    ],
  );
  assert.equal(changeText(changes.find((c) => c.name === 'kernel.panic')!), 'kernel.panic 10 -> 1');
  assert.deepEqual(sysctlChanges(before, before), [], 'the same reading: nothing to write back');
  const { 'kernel.panic': _gone, ...without } = after;
  assert.ok(!sysctlChanges(before, without).some((c) => c.name === 'kernel.panic'), 'a setting that went away is none to write back');
});

test("IPv6 forwarding's anycast routes in the local table, and the IPv6 network's bridge, found as added", () => {
  const was = routeLines(sample('ip-6-route-before-engine.txt'));
  const is = routeLines(sample('ip-6-route-engine-ipv6-network.txt'));
  const { added, removed } = routeChanges(was, is);
  assert.deepEqual(removed, []);
  assert.deepEqual(
    added.filter((r) => r.startsWith('anycast ')),
    ['anycast fd00:: dev eth0 table local proto kernel metric 0 pref medium', 'anycast fe80:: dev eth0 table local proto kernel metric 0 pref medium'],
  );
  assert.equal(added.length, 4, 'the two anycast routes and the bridge network routes');
  assert.deepEqual(routeChanges(was, routeLines(sample('ip-6-route-before-engine.txt'))), { added: [], removed: [] });
});
