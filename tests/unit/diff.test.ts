import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byRole, diffRuns, roleTokens, withinNoise, type RunSide } from '../../src/evidence/diff.ts';
import { whatChangedLines } from '../../src/capture/session/what-changed.ts';
import type { ClaimResult } from '../../src/evidence/claims.ts';

const fact = (id: string, value: string, step = 'run') => [id, { id, step, value }] as const;
const claim = (id: string, status: ClaimResult['status']): ClaimResult => ({ id, statement: { zh: id, en: id }, status, values: [] });
/** The capture's report of `next` against `old`, as one text. */
const report = (before: RunSide, after: RunSide) =>
  whatChangedLines({ folder: 'snapshots', kind: 'replaced', side: { ...before, generatedPods: [] } }, { ...after, generatedPods: [] }).join('\n');

const old: RunSide = {
  runId: 'run-a',
  steps: ['cluster-via-worker', 'local-via-worker2'],
  facts: new Map([
    fact('service.s-local.nodePort', '30154'),
    fact('iptables-worker2.dropRule', '-A KUBE-EXTERNAL-SERVICES -p tcp -m tcp --dport 30154 -j DROP', 'iptables-worker2'),
    fact('cluster-via-worker2.client', '172.18.0.4', 'cluster-via-worker2'),
    fact('local-via-worker2.rc', '28', 'local-via-worker2'),
    fact('local-via-worker2.seconds', '3.1', 'local-via-worker2'),
    fact('local-via-worker2.error', 'Connection timed out after 3001 milliseconds', 'local-via-worker2'),
    fact('cluster-via-worker.argv', 'ip netns exec shice-lab-run-a.node.control-plane curl http://172.18.0.2:30533/', 'cluster-via-worker'),
    fact('service.s-cluster.nodePort', '30533'),
  ]),
  claims: [claim('local-drops-without-backend', 'holds'), claim('cluster-hides-client', 'holds')],
};

test('random-by-design values are marked volatile, real changes are not', () => {
  const next: RunSide = {
    runId: 'run-b',
    steps: ['cluster-via-worker', 'local-via-worker2', 'conntrack-worker2'],
    facts: new Map([
      fact('service.s-local.nodePort', '32490'),
      fact('iptables-worker2.dropRule', '-A KUBE-EXTERNAL-SERVICES -p tcp -m tcp --dport 32490 -j DROP', 'iptables-worker2'),
      fact('cluster-via-worker2.client', '10.244.2.1', 'cluster-via-worker2'),
      fact('local-via-worker2.rc', '7', 'local-via-worker2'),
      fact('local-via-worker2.seconds', '3.3', 'local-via-worker2'),
      fact('local-via-worker2.error', 'Connection timed out after 3004 milliseconds', 'local-via-worker2'),
      fact('cluster-via-worker.argv', 'ip netns exec shice-lab-run-b.node.control-plane curl http://172.18.0.2:31241/', 'cluster-via-worker'),
      fact('service.s-cluster.nodePort', '31241'),
    ]),
    claims: [claim('local-drops-without-backend', 'broken'), claim('cluster-hides-client', 'holds')],
  };
  const diff = diffRuns(old, next);
  const byId = new Map(diff.facts.map((f) => [f.id, f]));
  assert.equal(byId.get('service.s-local.nodePort')!.volatile, 'port allocated at random');
  assert.equal(byId.get('iptables-worker2.dropRule')!.volatile, 'the same role in both runs (service.s-local.nodePort)');
  assert.equal(byId.get('cluster-via-worker.argv')!.volatile, 'only its random-by-design parts changed');
  assert.equal(byId.get('local-via-worker2.seconds')!.volatile, 'duration within its noise');
  assert.equal(byId.get('local-via-worker2.error')!.volatile, 'timing inside a message');
  assert.equal(byId.get('cluster-via-worker2.client')!.volatile, undefined);
  assert.equal(byId.get('local-via-worker2.rc')!.volatile, undefined);
  assert.deepEqual(diff.addedSteps, ['conntrack-worker2']);
  assert.deepEqual(diff.claims, [{ id: 'local-drops-without-backend', old: 'holds', new: 'broken' }]);

  const text = report(old, next);
  assert.match(text, /^what changed: the behaviour changed \(1 claim, 1 new step, 2 facts\)/);
  assert.match(text, /claim local-drops-without-backend: holds -> broken/);
  assert.match(text, /new step: conntrack-worker2/);
  assert.match(text, /local-via-worker2\.rc: "28" -> "7"/);
  assert.match(text, /~ port allocated at random: service\.s-cluster\.nodePort, service\.s-local\.nodePort/);
});

test('a missing step and a fact that disappeared are reported; identical runs say so', () => {
  const next: RunSide = {
    ...old,
    runId: 'run-c',
    steps: ['cluster-via-worker'],
    facts: new Map([...old.facts].filter(([id]) => id !== 'local-via-worker2.rc')),
  };
  const diff = diffRuns(old, next);
  assert.deepEqual(diff.missingSteps, ['local-via-worker2']);
  assert.match(report(old, next), /local-via-worker2\.rc: "28" -> \(none\)/);
  assert.match(report(old, { ...old, runId: 'run-d' }), /^what changed: no change in behaviour \(no value differs\)/);
});

test('durations: within half a second or a fifth is noise; a timeout that doubles is not', () => {
  assert.ok(withinNoise(0.1, 0.5));
  assert.ok(withinNoise(3.1, 3.5));
  assert.ok(!withinNoise(3.1, 6.2));
  assert.ok(!withinNoise(0.1, 1.3));
});

/** Two runs of one topology whose nodes got their addresses and pod ranges in another order (as kind hands them out). */
const topology = (runId: string, ips: [string, string, string], cidrs: [string, string, string], client: string): RunSide => ({
  runId,
  steps: ['cluster-via-worker'],
  facts: new Map([
    fact('node.control-plane.ip', ips[0]),
    fact('node.worker.ip', ips[1]),
    fact('node.worker2.ip', ips[2]),
    fact('node.control-plane.podCIDR', cidrs[0]),
    fact('node.worker.podCIDR', cidrs[1]),
    fact('node.worker2.podCIDR', cidrs[2]),
    fact('cluster-via-worker.client', client, 'cluster-via-worker'),
    fact('cluster-via-worker.argv', `curl --max-time 3 http://${ips[1]}:30533/`, 'cluster-via-worker'),
  ]),
  claims: [claim('cluster-same-node-sees-gateway', 'holds')],
});

test("addresses by role: worker's pod gateway in both runs is no change, whatever its digits", () => {
  const before = topology('run-a', ['172.18.0.3', '172.18.0.2', '172.18.0.4'], ['10.244.0.0/24', '10.244.2.0/24', '10.244.1.0/24'], '10.244.2.1');
  const after = topology('run-b', ['172.18.0.4', '172.18.0.3', '172.18.0.2'], ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24'], '10.244.1.1');
  const byId = new Map(diffRuns(before, after).facts.map((f) => [f.id, f]));
  assert.equal(byId.get('cluster-via-worker.client')!.volatile, 'the same role in both runs (node.worker.podGateway)');
  assert.equal(byId.get('node.worker.podCIDR')!.volatile, 'the same role in both runs (node.worker.podCIDR)');
  assert.equal(byId.get('node.control-plane.ip')!.volatile, 'the same role in both runs (node.control-plane.ip)');
  assert.equal(byId.get('cluster-via-worker.argv')!.volatile, 'the same role in both runs (node.worker.ip)');
  assert.match(report(before, after), /^what changed: no change in behaviour \(only volatile values differ: 7 facts\)/);
});

test("a client that turns into another node's address is a change in behaviour", () => {
  const before = topology('run-a', ['172.18.0.3', '172.18.0.2', '172.18.0.4'], ['10.244.0.0/24', '10.244.2.0/24', '10.244.1.0/24'], '10.244.2.1');
  // The backend now sees worker2's gateway: the packet came another way.
  const after = topology('run-b', ['172.18.0.4', '172.18.0.3', '172.18.0.2'], ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24'], '10.244.2.1');
  const change = diffRuns(before, after).facts.find((f) => f.id === 'cluster-via-worker.client');
  assert.deepEqual(change, {
    id: 'cluster-via-worker.client',
    old: '10.244.2.1',
    new: '10.244.2.1',
    roles: { old: '\u2039node.worker.podGateway\u203a', new: '\u2039node.worker2.podGateway\u203a' },
  });
  assert.match(
    report(before, after),
    /cluster-via-worker\.client: "10\.244\.2\.1" \(‹node\.worker\.podGateway›\) -> "10\.244\.2\.1" \(‹node\.worker2\.podGateway›\)/,
  );
  const moved = topology('run-c', ['172.18.0.4', '172.18.0.3', '172.18.0.2'], ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24'], '172.18.0.2');
  const client = diffRuns(before, moved).facts.find((f) => f.id === 'cluster-via-worker.client')!;
  assert.equal(client.volatile, undefined, 'the gateway of worker turned into the address of worker2');
  assert.match(
    report(before, moved),
    /^what changed: the behaviour changed \(1 fact\)\n.*\n  cluster-via-worker\.client: "10\.244\.2\.1" \(‹node\.worker\.podGateway›\) -> "172\.18\.0\.2" \(‹node\.worker2\.ip›\)/,
  );
});

test('byRole: a token never matches inside a longer number, and ranges keep their own role', () => {
  const tokens = roleTokens(topology('r', ['172.18.0.3', '172.18.0.2', '172.18.0.4'], ['10.244.0.0/24', '10.244.2.0/24', '10.244.1.0/24'], '10.244.2.1'));
  assert.equal(
    byRole('via 172.18.0.2, not 172.18.0.20 or 10.244.2.10; range 10.244.2.0/24.', tokens),
    'via \u2039node.worker.ip\u203a, not 172.18.0.20 or 10.244.2.10; range \u2039node.worker.podCIDR\u203a.',
  );
});

test('the environment (versions, packages, images, the host) is its own headline, listed, and never a change in behaviour', () => {
  const env = (runId: string, nginx: string, kernel: string): RunSide => ({
    runId,
    steps: [],
    facts: new Map([
      fact('version.nginx', nginx),
      fact('version.kernel', kernel),
      fact('pod.backend.image', `nginx ${nginx}`),
      fact('local-via-worker2.rc', '28'),
    ]),
    claims: [],
  });
  const text = report(env('a', '1.22.1-9+deb12u11', '6.18.44'), env('b', '1.22.1-9+deb12u12', '6.18.44'));
  assert.match(text, /^what changed: the environment changed \(2 facts: versions, packages, images or the host\)/);
  assert.match(
    text,
    /  the environment, where the run ran rather than what it did \(2 facts\):\n    pod\.backend\.image: "nginx 1\.22\.1-9\+deb12u11" -> "nginx 1\.22\.1-9\+deb12u12"\n    version\.nginx:/,
  );
  // A change in behaviour outranks it.
  const both = report(env('a', 'x', 'k'), { ...env('b', 'y', 'k'), facts: new Map([...env('b', 'y', 'k').facts, fact('local-via-worker2.rc', '0')]) });
  assert.match(both, /^what changed: the behaviour changed \(1 fact\)/);
});

test("kube-proxy's time to notice a deleted backend: within its minSyncPeriod and the poll is noise, beyond is not", () => {
  const settle = (runId: string, seconds: string, polls: string): RunSide => ({
    runId,
    steps: [],
    facts: new Map([fact('delete-backend.settleSeconds', seconds), fact('delete-backend.settlePolls', polls)]),
    claims: [],
  });
  const quiet = new Map(diffRuns(settle('a', '1.5', '1'), settle('b', '2.5', '10')).facts.map((f) => [f.id, f.volatile]));
  assert.match(quiet.get('delete-backend.settleSeconds')!, /within its noise/);
  assert.match(quiet.get('delete-backend.settlePolls')!, /within its noise/);
  const slow = new Map(diffRuns(settle('a', '1.5', '1'), settle('b', '4.0', '30')).facts.map((f) => [f.id, f.volatile]));
  assert.equal(slow.get('delete-backend.settleSeconds'), undefined);
  assert.equal(slow.get('delete-backend.settlePolls'), undefined);
});

test("a client's wait is a bracket: two runs whose brackets overlap or lie within kube-proxy's noise of each other measured the same; further apart, it is a change", () => {
  // 076's committed lab run: one probe hung to curl's limit, so the change came between 0.114 and 3.25 s after Ready.
  const wait = (runId: string, after: string, until: string): RunSide => ({
    runId,
    steps: [],
    facts: new Map([fact('recreate-backend.settleAfterSeconds', after), fact('recreate-backend.settleSeconds', until)]),
    claims: [],
  });
  const overlapping = new Map(diffRuns(wait('a', '0.11', '3.2'), wait('b', '0.13', '0.26')).facts.map((f) => [f.id, f.volatile]));
  assert.match(
    overlapping.get('recreate-backend.settleSeconds')!,
    /^a client's wait, within both runs' resolution and kube-proxy's 1 s minSyncPeriod \(the change came between 0\.11 and 3\.2 s, and between 0\.13 and 0\.26 s\)$/,
  );
  // The CI rerun of it: answered 0.05 s after Ready, 0.06 s before the committed run's last failing probe began.
  const near = new Map(diffRuns(wait('a', '0.114', '3.2'), wait('b', '0', '0.05')).facts.map((f) => [f.id, f.volatile]));
  assert.match(near.get('recreate-backend.settleSeconds')!, /^a client's wait, within both runs' resolution/);
  const apart = new Map(diffRuns(wait('a', '0.11', '0.26'), wait('b', '2.9', '3.2')).facts.map((f) => [f.id, f.volatile]));
  assert.equal(apart.get('recreate-backend.settleSeconds'), undefined, 'the change came later, beyond both brackets and the 1.2 s of noise');
  assert.equal(apart.get('recreate-backend.settleAfterSeconds'), undefined);
});

test("a pod delete's time: within the kubelet's 1 s relist and the poll is noise, beyond is not", () => {
  const deleting = (runId: string, seconds: string): RunSide => ({
    runId,
    steps: ['delete-backend', 'other'],
    facts: new Map([fact('delete-backend.seconds', seconds, 'delete-backend'), fact('other.seconds', seconds, 'other')]),
    claims: [],
    deletes: ['delete-backend'],
  });
  const quiet = new Map(diffRuns(deleting('a', '1.6'), deleting('b', '1.0')).facts.map((f) => [f.id, f.volatile]));
  assert.match(quiet.get('delete-backend.seconds')!, /^a pod delete's time, within its noise/);
  assert.equal(quiet.get('other.seconds'), undefined, 'another step: 0.6 s on 1.6 s is beyond its own noise');
  const slow = new Map(diffRuns(deleting('a', '1.6'), deleting('b', '4.0')).facts.map((f) => [f.id, f.volatile]));
  assert.equal(slow.get('delete-backend.seconds'), undefined);
});

test("a pod gateway the run measured is the gateway's role; a range's first host stands for it only where none was measured", () => {
  const side = topology('r', ['172.18.0.3', '172.18.0.2', '172.18.0.4'], ['10.244.0.0/24', '10.244.2.0/24', '10.244.1.0/24'], '10.244.2.1');
  const measured: RunSide = { ...side, facts: new Map([...side.facts, fact('node.worker.podGateway', '10.244.2.7', 'addresses-worker')]) };
  const roles = new Map(roleTokens(measured));
  assert.equal(roles.get('10.244.2.7'), 'node.worker.podGateway');
  assert.equal(roles.get('10.244.2.1'), undefined, "worker's range's first host is no gateway when the run says another is");
  assert.equal(roles.get('10.244.1.1'), 'node.worker2.podGateway');
});

test("a conntrack entry's countdown to expiry is no change: the line is volatile, its other parts facts of their own", async () => {
  const { conntrackFacts } = await import('../../src/evidence/fact-kit.ts');
  const facts = conntrackFacts('conntrack-worker2');
  assert.match(facts['conntrack-worker2.first.line'].volatile!.reason, /countdown to expiry/);
  assert.equal(facts['conntrack-worker2.first.reply.src'].volatile, undefined);
  const line = (ttl: number) =>
    `tcp      6 ${ttl} TIME_WAIT src=172.18.0.3 dst=172.18.0.4 sport=52092 dport=31575 src=10.244.1.2 dst=172.18.0.4 sport=80 dport=4458 [ASSURED] mark=0 use=1`;
  const side = (runId: string, ttl: number): RunSide => ({
    runId,
    steps: ['conntrack-worker2'],
    facts: new Map([
      [
        'conntrack-worker2.first.line',
        { id: 'conntrack-worker2.first.line', step: 'conntrack-worker2', value: line(ttl), volatile: facts['conntrack-worker2.first.line'].volatile },
      ],
    ]),
    claims: [claim('cluster-extra-hop', 'holds')],
  });
  const text = report(side('run-a', 119), side('run-b', 118));
  assert.match(text, /^what changed: no change in behaviour/);
  assert.match(text, /declared volatile: the line holds the entry's countdown to expiry/);
});

test('a fact the older run could not record (its capture did not read it yet) is listed apart, not as a change in behaviour; one that disappears is a change', () => {
  const side = (runId: string, facts: [string, string][]): RunSide => ({
    runId,
    steps: [],
    facts: new Map(facts.map(([id, value]) => fact(id, value))),
    claims: [],
  });
  const older = side('a', [['service.s-local.externalTrafficPolicy', 'Local']]);
  const newer = side('b', [
    ['service.s-local.externalTrafficPolicy', 'Local'],
    ['service.s-local.internalTrafficPolicy', 'Cluster'],
  ]);
  const text = report(older, newer);
  assert.match(text, /^what changed: no change in behaviour \(1 fact recorded by this run only\)/);
  assert.match(
    text,
    /\n  recorded by this run only, the older run's capture did not record them, not a change in behaviour \(1 fact\):\n    \+ service\.s-local\.internalTrafficPolicy: "Cluster"/,
  );
  assert.match(report(newer, older), /^what changed: the behaviour changed \(1 fact\)/, 'a value no longer recorded is a change');
  const other = side('c', [
    ['service.s-local.externalTrafficPolicy', 'Local'],
    ['service.s-local.newField', 'x'],
  ]);
  assert.match(report(older, other), /^what changed: the behaviour changed \(1 fact\)/, 'only the fields recorded later are excused');
});

test("a pod sandbox's network namespace is named afresh on every run: an argv that differs only in it is no change", () => {
  // 076's committed kind run and a rerun of it: each pod step entered the sandbox crictl named for the pod.
  const argv = (netns: string) => `docker exec kx-main-worker nsenter --net=/var/run/netns/cni-${netns} -- curl --silent http://10.96.1.1/`;
  const side = (runId: string, netns: string): RunSide => ({ runId, steps: [], facts: new Map([fact('local-from-worker.argv', argv(netns))]), claims: [] });
  const [change] = diffRuns(side('run-1', '474d66ac-affb-ef03-b05d-086b8636fba9'), side('run-2', 'fd0331ca-25b7-7db4-3e4c-4aa306f4fbec')).facts;
  assert.equal(change!.volatile, 'only its random-by-design parts changed');
  const elsewhere = diffRuns(side('run-1', '474d66ac-affb-ef03-b05d-086b8636fba9'), {
    ...side('run-2', 'x'),
    facts: new Map([fact('local-from-worker.argv', argv('fd0331ca-25b7-7db4-3e4c-4aa306f4fbec').replace('kx-main-worker', 'kx-main-worker2'))]),
  }).facts[0]!;
  assert.equal(elsewhere.volatile, undefined, 'another node is a change');
});
