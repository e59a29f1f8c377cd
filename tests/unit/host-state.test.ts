// What a kind cluster and shice's engine change of the host, and what is written back,
// as pure functions on real readings of this kind of machine (tests/fixtures/samples/host).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  changeText,
  driftFromBaseline,
  isRecordedSysctl,
  journalChanges,
  routeChanges,
  routeLines,
  sysctlChanges,
  undoSysctls,
  withClusterSettings,
  CLUSTER_SETTINGS,
  type SysctlIo,
  type Sysctls,
} from '../../src/capture/kind/engine/host-state.ts';
import { carryJournal, engineJournal, type EngineRecord } from '../../src/capture/kind/engine/engine.ts';
import { hostBeforeOf } from '../../src/capture/kind/leftovers.ts';
import { kindRunRecordSchema } from '../../src/capture/recovery/run-registry.ts';

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

/** A kernel in memory: the sample's settings, with the one coupling the undo meets (ip_forward is conf.all.forwarding). */
function kernel(values: Sysctls): SysctlIo & { values: Sysctls; writes: string[] } {
  const k = {
    values: { ...values },
    writes: [] as string[],
    read: (name: string) => k.values[name],
    write: (name: string, value: string) => {
      k.writes.push(`${name}=${value}`);
      k.values[name] = value;
      if (name === 'net.ipv4.ip_forward') k.values['net.ipv4.conf.all.forwarding'] = value;
      if (name === 'net.ipv4.conf.all.forwarding') k.values['net.ipv4.ip_forward'] = value;
    },
  };
  return k;
}

test("an undo writes back only the project's own changes, and only where they still hold the value it set: an administrator's are left and said", () => {
  const after = { ...before, ...Object.fromEntries(reported.map((c) => [c.name, c.after])) };
  const journal = journalChanges(before, after);
  assert.deepEqual(
    journal.map((e) => `${e.name} ${e.before}->${e.set}`),
    reported.map((c) => `${c.name} ${c.before}->${c.after}`).sort(),
  );
  // While the cluster runs, an administrator sets vm.swappiness (never the cluster's) and kernel.panic (the cluster's, changed again).
  const host = kernel({ ...after, 'vm.swappiness': '33', 'kernel.panic': '5' });
  const { restored, left, failed } = undoSysctls(journal, host);
  assert.deepEqual(failed, []);
  assert.equal(host.values['vm.swappiness'], '33', "not the project's change: never written");
  assert.equal(host.values['kernel.panic'], '5', 'changed by someone else since the cluster set it: left');
  assert.deepEqual(
    left.map((l) => `${l.entry.name} ${l.now}`),
    ['kernel.panic 5'],
  );
  assert.ok(!host.writes.some((w) => w.startsWith('vm.swappiness') || w.startsWith('kernel.panic=')));
  assert.deepEqual(
    restored.map((e) => e.name).sort(),
    journal.map((e) => e.name).filter((n) => n !== 'kernel.panic'),
  );
  for (const e of restored) assert.equal(host.values[e.name], before[e.name]);
  // Done again (a --clean after a kill -9 in the undo): nothing more is written.
  const again = kernel(host.values);
  assert.deepEqual(undoSysctls(journal, again).restored, []);
  assert.deepEqual(again.writes, []);
});

test("a setting one undo moves (ip_forward is conf.all.forwarding) counts as restored, not as someone else's; a write that does not take is a failure", () => {
  const started = { ...before, 'net.ipv4.ip_forward': '1', 'net.ipv4.conf.all.forwarding': '1' };
  const journal = journalChanges(before, started);
  assert.deepEqual(
    journal.map((e) => e.name),
    ['net.ipv4.conf.all.forwarding', 'net.ipv4.ip_forward'],
  );
  const host = kernel(started);
  const done = undoSysctls(journal, host);
  assert.deepEqual(
    done.restored.map((e) => e.name),
    ['net.ipv4.conf.all.forwarding', 'net.ipv4.ip_forward'],
  );
  assert.deepEqual(done.left, []);
  assert.deepEqual(host.writes, ['net.ipv4.conf.all.forwarding=0']);
  const locked = {
    ...kernel(started),
    write: () => {
      throw new Error('EACCES: permission denied');
    },
  };
  const failed = undoSysctls(journal, locked);
  assert.deepEqual(
    failed.failed.map((f) => `${f.entry.name}: ${f.error}`),
    ['net.ipv4.conf.all.forwarding: EACCES: permission denied', 'net.ipv4.ip_forward: EACCES: permission denied'],
  );
});

test("the engine's --stop undoes its journal, not a difference from its reading before; an undo not done is the next start's, not the host's 'before'", () => {
  const reading = { ...before, 'net.ipv4.ip_forward': '0' };
  const record: EngineRecord = {
    pid: 1,
    startTime: null,
    socket: '/s',
    startedAt: '',
    adaptation: null,
    before: { docker0: false, sysctls: reading },
    journal: [{ name: 'net.ipv4.ip_forward', before: '0', set: '1' }],
  };
  const now = { ...reading, 'net.ipv4.ip_forward': '1', 'vm.swappiness': '33' };
  assert.deepEqual(engineJournal(record, now), record.journal, "the administrator's vm.swappiness is no entry");
  // A record of an older shice (no journal): only dockerd's known change, forwarding turned on.
  const { journal: _none, ...legacy } = record;
  assert.deepEqual(
    engineJournal(legacy, now).map((e) => e.name),
    ['net.ipv4.ip_forward'],
  );
  // That engine's stop could not undo forwarding: the next start reads 1, and keeps 0 as the host's value before.
  const carried = carryJournal(now, record.journal!);
  assert.equal(carried.before['net.ipv4.ip_forward'], '0');
  assert.equal(carried.before['vm.swappiness'], '33');
  assert.deepEqual(carried.journal, record.journal);
  // Undone meanwhile, or changed by someone else: nothing is carried.
  assert.deepEqual(carryJournal({ ...now, 'net.ipv4.ip_forward': '0' }, record.journal!).journal, []);
});

test("a killed kind run's record keeps the undo of what its create changed, which recovery applies with or without its cluster's marker", () => {
  const after = { ...before, ...Object.fromEntries(reported.map((c) => [c.name, c.after])) };
  const record = kindRunRecordSchema.parse({
    kind: 'kind',
    runId: 'r1',
    owner: { pid: 1, startTime: '1' },
    cluster: 'kx-main',
    stateDir: '/state',
    root: '/root-of-checkout',
    hostSysctls: before,
    hostJournal: journalChanges(before, after),
    kindNetworkExisted: false,
    libModulesExisted: true,
  });
  const host = hostBeforeOf(record);
  assert.equal(host.hostJournal?.length, reported.length);
  assert.equal(host.kindNetworkExisted, false);
  const k = kernel(after);
  undoSysctls(host.hostJournal!, k);
  assert.equal(k.values['kernel.panic'], before['kernel.panic']);
  assert.equal(k.values['vm.overcommit_memory'], before['vm.overcommit_memory']);
});

test('recovery of a kind run killed after its teardown removed the marker still undoes the host: the journal is applied, a setting someone else changed is named', async () => {
  const { removeLeftovers } = await import('../../src/capture/kind/leftovers.ts');
  const { readSysctls } = await import('../../src/capture/kind/engine/host-state.ts');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const stateDir = mkdtempSync(join(tmpdir(), 'shice-leftovers-'));
  try {
    const now = readSysctls();
    // An entry the run's create set that holds another value now: left and said, never written (this test writes nothing to /proc/sys).
    const entry = { name: 'kernel.panic', before: `${Number(now['kernel.panic']) + 1}`, set: `${Number(now['kernel.panic']) + 2}` };
    const record = kindRunRecordSchema.parse({
      kind: 'kind',
      runId: 'r-gone-marker',
      owner: { pid: 1, startTime: '1' },
      cluster: 'kx-main',
      stateDir,
      root: stateDir,
      hostSysctls: now,
      hostJournal: [entry],
      kindNetworkExisted: false,
    });
    const calls: string[][] = [];
    const tools = {
      run: async (argv: string[]) => {
        calls.push(argv);
        if (argv[0] === 'docker' && argv[1] === 'version')
          return {
            exitCode: 0,
            stdout: JSON.stringify({ Client: { Version: '26.1.5' }, Server: { Version: '26.1.5', Os: 'linux', Arch: 'amd64', KernelVersion: '6' } }),
            stderr: '',
          };
        // kind's network: gone already.
        return { exitCode: 1, stdout: '', stderr: 'Error: No such network: kind' };
      },
    };
    const place = { options: { runId: record.runId }, stateDir, kubeconfig: join(stateDir, 'kubeconfig'), tools } as never;
    const lines = await removeLeftovers(place, record);
    assert.ok(
      lines.some((l) => l.startsWith(`left kernel.panic at ${now['kernel.panic']}: changed by someone else since`)),
      lines.join('\n'),
    );
    assert.ok(
      calls.some((argv) => argv.join(' ').startsWith('docker network inspect')),
      "kind's network, which the run created, was looked for",
    );
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test("a kill -9 before the journal saw the cluster's changes: the settings a kind cluster changes are still undone, an administrator's are not", () => {
  // The host after a real cluster's create (the teardown's sample), and vm.swappiness set by hand meanwhile.
  const now: Sysctls = { ...before, 'vm.swappiness': '33' };
  for (const r of reported) now[r.name] = r.after;
  const journal = withClusterSettings(before, now, []);
  assert.deepEqual(
    journal.map((e) => e.name),
    reported.map((r) => r.name).sort(),
    'every setting the real teardown wrote back is one a kind cluster changes',
  );
  assert.ok(!journal.some((e) => e.name === 'vm.swappiness'), "the administrator's change is not the cluster's");
  assert.ok(reported.every((r) => CLUSTER_SETTINGS.includes(r.name)));
  // A journal entry already there keeps what it saw: its value set is the one an undo checks.
  const seen = [{ name: 'kernel.panic', before: before['kernel.panic']!, set: '10' }];
  assert.deepEqual(
    withClusterSettings(before, now, seen).find((e) => e.name === 'kernel.panic'),
    seen[0],
  );
});

test("what no journal covers is said against the machine's baseline, never written: a killed capture's cluster settings, not an administrator's others", () => {
  // The values a real kind cluster left (its teardown's report), on the host as first found, and one setting nobody here changes.
  const now: Sysctls = { ...before, ...Object.fromEntries(reported.map((c) => [c.name, c.after])) };
  const other = Object.keys(before).find((name) => !CLUSTER_SETTINGS.includes(name) && !/forward/.test(name))!;
  now[other] = `${before[other]}9`;
  const lines = driftFromBaseline(before, now);
  const named = lines.map((line) => line.split(' ')[0]);
  assert.deepEqual(named, reported.map((c) => c.name).sort());
  assert.ok(!named.includes(other), `${other} is no cluster's`);
  const panic = reported.find((c) => c.name === 'kernel.panic');
  if (panic)
    assert.ok(
      lines.includes(
        `kernel.panic is ${panic.after}, ${panic.before} when shice first found this machine, and no journal says shice set it (a capture killed whose record is gone?): sysctl -w kernel.panic=${panic.before} puts it back`,
      ),
    );
  assert.deepEqual(driftFromBaseline(before, before), []);
});
