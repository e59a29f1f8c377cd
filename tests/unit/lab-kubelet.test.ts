// The lab kubelet's parts driven with fakes and real output (tests/fixtures/lab-kubelet):
// the readiness probe's cadence and thresholds, the runtime's stop sequence and what it
// says ran, kindnet's routes and conflist, the node agent's pod lifecycle, and the list
// of what the stand-in decided.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ApiAnswer, KubeApi, WatchEvent } from '../../src/capture/lab/kubelet/api.ts';
import type { Clock } from '../../src/capture/lab/kubelet/clock.ts';
import { imagesReplaced, readImagesReplaced, readNodeDecisions, standInDecisions } from '../../src/capture/lab/kubelet/decisions.ts';
import { mergeNodeDecisions } from '../../src/capture/provider/stand-in.ts';
import { Kindnet, mtuOfAddress, nodeRoute } from '../../src/capture/lab/kubelet/kindnet.ts';
import { memTotalKiB, nodeResources } from '../../src/capture/lab/kubelet/machine.ts';
import { exitCodeOf, NodeAgent } from '../../src/capture/lab/kubelet/node-agent.ts';
import type { Json } from '../../src/capture/lab/kubelet/objects.ts';
import { probeDue, readinessProbeOf, ReadinessProber, recordProbe, NOT_YET_PROBED, type ProbeCount } from '../../src/capture/lab/kubelet/probe.ts';
import { cniEnv, gracePeriodSeconds, LabRuntime, packageOfPath, whatRanImage, type Exit, type RuntimeIO } from '../../src/capture/lab/kubelet/runtime.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/lab-kubelet/${name}`, import.meta.url), 'utf8');
const backendPod = () => JSON.parse(fixture('pod-backend.json')) as Json;
const nodes = () => (JSON.parse(fixture('nodes.json')) as { items: Json[] }).items;
const backendContainer = (pod: Json) => ((pod.spec as Json).containers as Json[])[0] as Json;

/** A clock moved by hand: `advance` fires due ticks and lets their promises settle. */
class ManualClock implements Clock {
  private at = Date.parse('2026-12-03T11:36:21.000Z');
  private timers: { every: number; next: number; tick: () => void }[] = [];
  private sleepers: { until: number; wake: () => void }[] = [];
  now = () => new Date(this.at);
  sleep = (ms: number) => new Promise<void>((wake) => this.sleepers.push({ until: this.at + ms, wake }));
  every = (ms: number, tick: () => void) => {
    const timer = { every: ms, next: this.at + ms, tick };
    this.timers.push(timer);
    return () => void (this.timers = this.timers.filter((t) => t !== timer));
  };
  async advance(ms: number): Promise<void> {
    const end = this.at + ms;
    for (;;) {
      const next = Math.min(...this.timers.map((t) => t.next), ...this.sleepers.map((s) => s.until));
      if (!(next <= end)) break;
      this.at = next;
      for (const timer of this.timers.filter((t) => t.next === next)) {
        timer.next += timer.every;
        timer.tick();
      }
      for (const sleeper of this.sleepers.filter((s) => s.until === next)) sleeper.wake();
      this.sleepers = this.sleepers.filter((s) => s.until !== next);
      await settle();
    }
    this.at = end;
    await settle();
  }
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

test("the readiness probe: the pod spec's values as the API server returned them, kubelet's defaults where absent", () => {
  const pod = backendPod();
  assert.deepEqual(readinessProbeOf(backendContainer(pod), 'backend'), {
    path: '/',
    port: 80,
    initialDelaySeconds: 0,
    periodSeconds: 1,
    timeoutSeconds: 1,
    successThreshold: 1,
    failureThreshold: 3,
  });
  const bare = readinessProbeOf({ ports: [{ name: 'http', containerPort: 8080 }], readinessProbe: { httpGet: { port: 'http' } } }, 'c');
  assert.deepEqual(bare, { path: '/', port: 8080, initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
  assert.equal(readinessProbeOf({ name: 'nginx' }, 'c'), null, 'no probe: Ready once running');
  assert.throws(
    () => readinessProbeOf({ readinessProbe: { exec: { command: ['true'] } } }, 'pod default/x, container c'),
    /^Error: pod default\/x, container c: field readinessProbe: expected an httpGet probe \(the lab runs no other kind\), got exec$/,
  );
  assert.throws(
    () => readinessProbeOf({ readinessProbe: { httpGet: { port: 'web' } } }, 'c'),
    /field readinessProbe\.httpGet\.port: expected a port number or the name of a container port, got "web"/,
  );
  assert.throws(
    () => readinessProbeOf({ readinessProbe: { httpGet: { port: 80 }, periodSeconds: 1.5 } }, 'c'),
    /field readinessProbe\.periodSeconds: expected a whole number/,
  );
});

test("the readiness probe's thresholds and initial delay, as kubelet's prober worker applies them", () => {
  const probe = { successThreshold: 2, failureThreshold: 3 };
  let count: ProbeCount = NOT_YET_PROBED;
  count = recordProbe(count, true, probe);
  assert.equal(count.ready, false, 'one success of two');
  count = recordProbe(count, true, probe);
  assert.equal(count.ready, true);
  count = recordProbe(recordProbe(count, false, probe), false, probe);
  assert.equal(count.ready, true, 'two failures of three leave it Ready');
  count = recordProbe(count, true, probe);
  assert.deepEqual(count, { last: true, run: 1, ready: true }, 'a success breaks the run of failures');
  count = [false, false, false].reduce<ProbeCount>((c, ok) => recordProbe(c, ok, probe), count);
  assert.equal(count.ready, false);
  const start = new Date('2026-12-03T00:00:00.000Z');
  assert.equal(probeDue(start, new Date('2026-12-03T00:00:04.999Z'), { initialDelaySeconds: 5 }), false, 'whole seconds, as kubelet compares them');
  assert.equal(probeDue(start, new Date('2026-12-03T00:00:05.000Z'), { initialDelaySeconds: 5 }), true);
});

test('the prober ticks once a period, drops a tick while a probe is out, and stops', async () => {
  const clock = new ManualClock();
  const probe = readinessProbeOf(backendContainer(backendPod()), 'backend')!;
  const answers = [false, true];
  const changes: boolean[] = [];
  let probes = 0;
  let release: (() => void) | null = null;
  const prober = new ReadinessProber({
    probe,
    startedAt: clock.now(),
    clock,
    check: async () => {
      probes += 1;
      if (probes === 3) await new Promise<void>((r) => (release = r)); // a slow answer
      return answers.shift() ?? true;
    },
    onChange: async (ready) => void changes.push(ready),
  });
  prober.start();
  await clock.advance(999);
  assert.equal(probes, 0, 'nothing before one period');
  await clock.advance(1);
  assert.deepEqual([probes, changes], [1, []], 'a failure: not Ready, as before');
  await clock.advance(1000);
  assert.deepEqual([probes, changes, prober.ready], [2, [true], true]);
  await clock.advance(3000);
  assert.equal(probes, 3, 'the ticks while the third probe is out are dropped');
  release!();
  await settle();
  prober.stop();
  await clock.advance(10_000);
  assert.equal(probes, 3, 'no probe after stop');
});

/** A fake runtime I/O: records every call, plays exits by hand. */
function fakeRuntimeIO() {
  const calls: string[][] = [];
  const files = new Map<string, string>();
  const kills: [number, string][] = [];
  let exit: ((e: Exit) => void) | null = null;
  const io: RuntimeIO & { exitWith: (e: Exit) => void } = {
    run: async (argv) => {
      calls.push(argv);
      if (argv[0] === '/usr/sbin/nginx') return { stdout: '', stderr: fixture('nginx-v.stderr') };
      if (argv[1] === '--search') return { stdout: fixture('dpkg-query-search.stdout'), stderr: '' };
      if (argv[1] === '--show') return { stdout: fixture('dpkg-query-show.stdout'), stderr: '' };
      return { stdout: '', stderr: '' };
    },
    cniPlugin: async (path, env, stdin) => {
      calls.push([path, env.CNI_COMMAND as string, env.CNI_IFNAME as string, String((JSON.parse(stdin) as Json).type)]);
      if (env.CNI_COMMAND !== 'ADD') return '';
      // ptp makes the address; a chained plugin (portmap) prints the result it was given, as the CNI spec asks.
      const prev = (JSON.parse(stdin) as Json).prevResult;
      return path.endsWith('/ptp')
        ? JSON.stringify({ ips: [{ address: '10.244.1.3/24', gateway: '10.244.1.1' }] })
        : prev === undefined
          ? ''
          : JSON.stringify(prev);
    },
    spawn: async (argv) => {
      calls.push(argv);
      return { pid: 4242, exited: new Promise<Exit>((resolve) => (exit = resolve)) };
    },
    kill: (pid, signal) => {
      kills.push([pid, signal]);
      if (signal === 'SIGKILL') exit?.({ code: null, signal: 'SIGKILL' });
    },
    writeFile: (path, content) => void files.set(path, content),
    sleep: () => new Promise(() => {}), // the grace period never ends unless a test says so
    log: () => {},
    exitWith: (e) => exit?.(e),
  };
  return { io, calls, files, kills };
}

test("the runtime: a sandbox through kindnet's CNI chain, the container's files and argv, what ran from the tools' own words", async () => {
  const { io, calls, files } = fakeRuntimeIO();
  const runtime = new LabRuntime({ io, runFolder: '/run/lab', netnsPrefix: 'lab.', cniBin: '/usr/lib/cni' });
  const ref = { uid: 'u1', namespace: 'default', name: 'backend' };
  const conflist = { cniVersion: '0.3.1', name: 'kindnet', plugins: [{ type: 'ptp' }, { type: 'portmap' }] };
  const sandbox = await runtime.runSandbox(ref, conflist);
  assert.deepEqual(sandbox, { netns: 'lab.pod.default.backend', ip: '10.244.1.3' });
  assert.deepEqual(calls.slice(0, 4), [
    ['ip', 'netns', 'add', 'lab.pod.default.backend'],
    ['/usr/lib/cni/loopback', 'ADD', 'lo', 'loopback'],
    ['/usr/lib/cni/ptp', 'ADD', 'eth0', 'ptp'],
    ['/usr/lib/cni/portmap', 'ADD', 'eth0', 'portmap'],
  ]);
  await runtime.startContainer(ref, sandbox, 'backend', [{ containerPath: '/etc/nginx/conf.d/default.conf', content: 'server {}' }]);
  assert.equal(files.get('/run/lab/pods/default.backend/rootfs/etc/nginx/conf.d/default.conf'), 'server {}');
  assert.deepEqual(calls[4]!.slice(0, 11), [
    'ip',
    'netns',
    'exec',
    'lab.pod.default.backend',
    'unshare',
    '--uts',
    '--',
    'sh',
    '-c',
    'hostname "$1" && shift && exec "$@"',
    'sh',
  ]);
  assert.equal(calls[4]![11], 'backend');
  const ran = await runtime.whatRan();
  assert.deepEqual(ran, { binary: '/usr/sbin/nginx', version: 'nginx version: nginx/1.22.1', debianPackage: 'nginx 1.22.1-9+deb12u11' });
  assert.equal(whatRanImage(ran), '/usr/sbin/nginx (nginx version: nginx/1.22.1; Debian package nginx 1.22.1-9+deb12u11)');
  assert.equal(whatRanImage({ ...ran, debianPackage: null }), '/usr/sbin/nginx (nginx version: nginx/1.22.1)', 'no package is named when dpkg knows none');
  await runtime.whatRan();
  assert.equal(calls.filter((c) => c[0] === '/usr/sbin/nginx').length, 1, 'asked once');
  await runtime.removeSandbox(ref, conflist);
  assert.deepEqual(
    calls.slice(-4).map((c) => c.slice(0, 2)),
    [
      ['/usr/lib/cni/portmap', 'DEL'],
      ['/usr/lib/cni/ptp', 'DEL'],
      ['/usr/lib/cni/loopback', 'DEL'],
      ['ip', 'netns'],
    ],
  );
  assert.equal(packageOfPath('diversion by dash from: /bin/sh\ndash: /bin/sh\n', '/bin/sh'), 'dash');
  assert.equal(packageOfPath('dpkg-query: no path found matching pattern /x\n', '/x'), null);
  assert.equal(
    cniEnv('DEL', ref, 'n', '/cni', 'eth0').CNI_ARGS,
    'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=backend;K8S_POD_INFRA_CONTAINER_ID=u1',
  );
});

test("the runtime's stop: the nginx image's stop signal, the pod's grace period, SIGKILL only when it runs out", async () => {
  const { io, kills } = fakeRuntimeIO();
  let graceOver: (() => void) | null = null;
  io.sleep = () => new Promise<void>((r) => (graceOver = r));
  const runtime = new LabRuntime({ io, runFolder: '/run/lab', netnsPrefix: 'lab.', cniBin: '/cni' });
  const quits = await runtime.startContainer({ uid: 'u', namespace: 'd', name: 'p' }, { netns: 'n', ip: '10.0.0.2' }, 'p', []);
  const stopping = runtime.stopContainer(quits, 30);
  io.exitWith({ code: 0, signal: null });
  assert.deepEqual(await stopping, { signal: 'SIGQUIT', killed: false, exit: { code: 0, signal: null } });
  assert.deepEqual(kills, [[4242, 'SIGQUIT']]);
  const hangs = await runtime.startContainer({ uid: 'u', namespace: 'd', name: 'p' }, { netns: 'n', ip: '10.0.0.2' }, 'p', []);
  const killing = runtime.stopContainer(hangs, 30);
  await settle();
  graceOver!();
  assert.deepEqual(await killing, { signal: 'SIGQUIT', killed: true, exit: { code: null, signal: 'SIGKILL' } });
  assert.deepEqual(kills.slice(1), [
    [4242, 'SIGQUIT'],
    [4242, 'SIGKILL'],
  ]);
  assert.equal(exitCodeOf({ code: null, signal: 'SIGKILL' }), 137);
  assert.equal(exitCodeOf({ code: 1, signal: null }), 1);
  const pod = backendPod();
  assert.equal(gracePeriodSeconds(pod), 30, "the pod spec's terminationGracePeriodSeconds");
  assert.equal(gracePeriodSeconds({ ...pod, metadata: { ...(pod.metadata as Json), deletionGracePeriodSeconds: 5 } }), 5, "the deletion's first");
  assert.equal(gracePeriodSeconds({ metadata: { deletionGracePeriodSeconds: 0 } }), 2, "never under kubelet's minimum");
  assert.equal(gracePeriodSeconds(null), 30);
});

test("kindnet: routes to the other nodes' pod CIDRs from the API's Nodes, its own conflist with the node interface's MTU", async () => {
  const all = nodes();
  assert.deepEqual(all.map(nodeRoute), [
    { node: 'kx-main-control-plane', cidr: '10.244.0.0/24', via: '172.18.0.3' },
    { node: 'kx-main-worker', cidr: '10.244.1.0/24', via: '172.18.0.2' },
    { node: 'kx-main-worker2', cidr: '10.244.2.0/24', via: '172.18.0.4' },
  ]);
  assert.equal(nodeRoute({ metadata: { name: 'new' }, spec: {}, status: { addresses: [] } }), null, 'no podCIDR yet');
  assert.equal(mtuOfAddress(fixture('ip-address-worker.json'), '172.18.0.2'), 1500);
  assert.throws(() => mtuOfAddress(fixture('ip-address-worker.json'), '172.18.0.9'), /expected an interface with address 172\.18\.0\.9/);
  const runs: string[][] = [];
  const files = new Map<string, string>();
  const configured: Json[] = [];
  const kindnet = new Kindnet({
    nodeName: 'kx-main-worker',
    nodeIP: '172.18.0.2',
    stateDir: '/state',
    io: {
      run: async (argv) => (runs.push(argv), { stdout: argv[1] === '-j' ? fixture('ip-address-worker.json') : '', stderr: '' }),
      writeFile: (p, c) => void files.set(p, c),
      log: () => {},
    },
    onConfigured: async (conflist) => void configured.push(conflist),
  });
  for (const node of [...all, ...all]) await kindnet.onEvent({ type: 'MODIFIED', object: node } as WatchEvent);
  assert.deepEqual(
    runs,
    [
      ['ip', 'route', 'replace', '10.244.0.0/24', 'via', '172.18.0.3'],
      ['ip', '-j', 'address', 'show'],
      ['ip', 'route', 'replace', '10.244.2.0/24', 'via', '172.18.0.4'],
    ],
    'each route once, its own node configured once',
  );
  assert.equal(configured.length, 1);
  const written = JSON.parse(files.get('/state/cni/10-kindnet.conflist')!) as { plugins: Json[] };
  assert.equal(written.plugins[0]!.mtu, 1500);
  assert.deepEqual((written.plugins[0]!.ipam as { ranges: unknown }).ranges, [[{ subnet: '10.244.1.0/24' }]]);
  assert.equal(kindnet.mtu, 1500);
});

/** A fake API: answers by method and path, records what it was sent. */
function fakeApi(pods: Map<string, Json>) {
  const sent: { method: string; path: string; body: unknown }[] = [];
  const api: KubeApi = {
    call: async (method, path, body) => {
      sent.push({ method, path, body });
      const answer = (status: number, b: unknown = {}): ApiAnswer => ({ status, body: b });
      if (method === 'POST' && path === '/api/v1/nodes') return answer(201, { metadata: { uid: 'node-uid' } });
      if (method === 'POST') return answer(201);
      if (method === 'DELETE') return answer(pods.delete(path) ? 200 : 404);
      return answer(200);
    },
    must: async (method, path, body) => {
      sent.push({ method, path, body });
      if (path.includes('/configmaps/')) return { data: { 'default.conf': 'server { listen 80; }' } };
      return {};
    },
    watch: () => new Promise(() => {}),
  };
  return { api, sent };
}

const statusOf = (body: unknown) =>
  (body as { status: { conditions: { type: string; status: string }[]; containerStatuses: { image: string; ready: boolean; state: Json }[] } }).status;

test('the node agent: registers, runs a pod as the API gave it, Ready after its probe, and on deletion stops it, tears down and deletes it', async () => {
  const clock = new ManualClock();
  const { io: runtimeIO, calls, kills } = fakeRuntimeIO();
  const runtime = new LabRuntime({ io: runtimeIO, runFolder: '/run/lab', netnsPrefix: 'lab.', cniBin: '/usr/lib/cni' });
  const pod = backendPod();
  const meta = pod.metadata as Json;
  const podPath = `/api/v1/namespaces/default/pods/backend`;
  const { api, sent } = fakeApi(new Map([[podPath, pod]]));
  const marks: string[] = [];
  const probes: string[] = [];
  const stop = new AbortController();
  const agent = new NodeAgent({
    node: {
      name: 'kx-main-worker',
      ip: '172.18.0.2',
      role: 'worker',
      kernel: '6.18',
      arch: 'x64',
      resources: nodeResources({ cpu: 2, memoryKiB: 24683584, ephemeralStorageKiB: 1000 }),
    },
    api,
    runtime,
    clock,
    signal: stop.signal,
    io: {
      markRegistered: (uid) => marks.push(`registered ${uid}`),
      markReady: () => marks.push('ready'),
      httpProbe: async (ip, port, path, timeoutMs) => (probes.push(`${ip}:${port}${path} ${timeoutMs}`), true),
      decided: () => marks.push('decided'),
      log: () => {},
    },
  });
  assert.equal(await agent.register(), 'node-uid');
  const node = sent[0]!.body as { status: { capacity: Record<string, string> } };
  assert.equal(node.status.capacity.memory, '24683584Ki', 'the capacity it was given');
  // Bound before the network: it waits for kindnet.
  await agent.onPodEvent({ type: 'ADDED', object: pod });
  assert.equal(calls.length, 0);
  await agent.networkReady({ cniVersion: '0.3.1', name: 'kindnet', plugins: [{ type: 'ptp' }, { type: 'portmap' }] });
  assert.deepEqual(marks, ['registered node-uid', 'ready', 'decided']);
  const statuses = () => sent.filter((s) => s.path === `${podPath}/status`).map((s) => statusOf(s.body));
  assert.equal(statuses().length, 1);
  assert.equal(statuses()[0]!.containerStatuses[0]!.image, '/usr/sbin/nginx (nginx version: nginx/1.22.1; Debian package nginx 1.22.1-9+deb12u11)');
  assert.equal(statuses()[0]!.conditions.find((c) => c.type === 'Ready')?.status, 'False', 'running, not yet probed');
  await clock.advance(999);
  assert.equal(probes.length, 0);
  await clock.advance(1);
  assert.deepEqual(probes, ['10.244.1.3:80/ 1000'], 'one period after the start, with the spec timeout');
  assert.equal(statuses()[1]!.conditions.find((c) => c.type === 'Ready')?.status, 'True');
  assert.deepEqual(
    agent.podsSeen.map((p) => [p.pod, p.hostname, p.probe?.periodSeconds, p.image]),
    [['default/backend', 'backend', 1, 'nginx:1.27-alpine']],
  );
  assert.deepEqual(imagesReplaced(agent.podsSeen), ['nginx:1.27-alpine'], "the image the pod named, which Debian's nginx ran in place of");
  // kubectl delete: the API sets deletionTimestamp and the grace period.
  const deleting = { ...pod, metadata: { ...meta, deletionTimestamp: '2026-12-03T11:37:00Z', deletionGracePeriodSeconds: 30 } };
  const stopped = agent.onPodEvent({ type: 'MODIFIED', object: deleting });
  await settle();
  assert.deepEqual(kills, [[4242, 'SIGQUIT']]);
  const again = agent.onPodEvent({ type: 'MODIFIED', object: deleting }); // the same event again waits for the same stop
  runtimeIO.exitWith({ code: 0, signal: null });
  await Promise.all([stopped, again]);
  assert.equal(kills.length, 1, 'one stop signal');
  const terminated = statuses().at(-1)!.containerStatuses[0]!;
  assert.deepEqual([terminated.ready, (terminated.state.terminated as Json).exitCode, (terminated.state.terminated as Json).reason], [false, 0, 'Completed']);
  assert.ok(
    calls.some((c) => c[0] === '/usr/lib/cni/ptp' && c[1] === 'DEL'),
    'the sandbox torn down',
  );
  const deletes = sent.filter((s) => s.method === 'DELETE');
  assert.equal(deletes.length, 1, 'deleted once');
  assert.deepEqual(deletes[0]!.body, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: meta.uid } });
  assert.deepEqual(
    agent.stops.map((s) => [s.pod, s.signal, s.graceSeconds, s.killed]),
    [['default/backend', 'SIGQUIT', 30, false]],
  );
  await clock.advance(10_000);
  assert.equal(probes.length, 1, 'no probe after the stop');
  assert.ok(
    sent.some((s) => s.path === '/api/v1/nodes/kx-main-worker/status'),
    'a heartbeat every 10 s',
  );
  agent.stop();
});

test('the node agent: a container that ends on its own is reported terminated and not restarted; an image the lab cannot run waits', async () => {
  const clock = new ManualClock();
  const { io: runtimeIO, kills } = fakeRuntimeIO();
  const runtime = new LabRuntime({ io: runtimeIO, runFolder: '/run/lab', netnsPrefix: 'lab.', cniBin: '/usr/lib/cni' });
  const pod = backendPod();
  const { api, sent } = fakeApi(new Map());
  const agent = new NodeAgent({
    node: { name: 'kx-main-worker', ip: '172.18.0.2', role: 'worker', kernel: '6.18', arch: 'x64', resources: {} },
    api,
    runtime,
    clock,
    signal: new AbortController().signal,
    io: { markRegistered: () => {}, markReady: () => {}, httpProbe: async () => true, decided: () => {}, log: () => {} },
  });
  await agent.networkReady({ cniVersion: '0.3.1', name: 'kindnet', plugins: [{ type: 'ptp' }] });
  await agent.onPodEvent({ type: 'ADDED', object: pod });
  runtimeIO.exitWith({ code: 1, signal: null });
  await settle();
  const last = statusOf(sent.at(-1)!.body).containerStatuses[0]!;
  assert.deepEqual([(last.state.terminated as Json).exitCode, (last.state.terminated as Json).reason, last.ready], [1, 'Error', false]);
  await agent.onPodEvent({ type: 'DELETED', object: pod });
  assert.deepEqual(kills, [], 'no signal to a process that has ended');
  assert.deepEqual(agent.stops, []);
  const httpd = { ...pod, metadata: { ...(pod.metadata as Json), name: 'httpd', uid: 'u2' }, spec: { containers: [{ name: 'httpd', image: 'httpd:2.4' }] } };
  await agent.onPodEvent({ type: 'ADDED', object: httpd });
  const waiting = statusOf(sent.at(-1)!.body).containerStatuses[0]!;
  assert.equal((waiting.state.waiting as Json).reason, 'LabCannotRunImage');
  agent.stop();
});

test('what the stand-in decided: read values say what from, decisions say so, nodes that agree are merged', () => {
  assert.equal(memTotalKiB('MemTotal:       24683584 kB\nMemFree: 1 kB\n'), 24683584);
  assert.throws(() => memTotalKiB('MemFree: 1 kB\n', '/proc/meminfo'), /^Error: \/proc\/meminfo: field MemTotal: expected "MemTotal: <n> kB"$/);
  const probe = readinessProbeOf(backendContainer(backendPod()), 'backend');
  const decisions = standInDecisions({
    capacity: { cpu: 2, memoryKiB: 24683584, ephemeralStorageKiB: 1000 },
    mtu: 1500,
    whatRan: { binary: '/usr/sbin/nginx', version: 'nginx version: nginx/1.22.1', debianPackage: 'nginx 1.22.1-9+deb12u11' },
    pods: [{ pod: 'default/backend', hostname: 'backend', probe, image: 'x' }],
    stops: [{ pod: 'default/backend', signal: 'SIGQUIT', graceSeconds: 30, killed: false, exitedInMs: 12 }],
  });
  const by = (field: string) => decisions.find((d) => d.field === field);
  assert.deepEqual([by('node.status.capacity.cpu')?.value, by('node.status.capacity.cpu')?.source], ['2', 'read']);
  assert.equal(by('node.status.capacity.memory')?.value, '24683584Ki');
  assert.equal(by('node.status.capacity.pods')?.source, 'stand-in');
  assert.equal(by('pod.status.containerStatuses[].image')?.value, '/usr/sbin/nginx (nginx version: nginx/1.22.1; Debian package nginx 1.22.1-9+deb12u11)');
  assert.equal(by('pods.default/backend.hostname')?.source, 'stand-in');
  assert.match(
    by('pods.default/backend.readinessProbe')?.value ?? '',
    /^httpGet \/ port 80; periodSeconds 1, initialDelaySeconds 0, timeoutSeconds 1, successThreshold 1, failureThreshold 3$/,
  );
  assert.equal(by('pods.default/backend.stop')?.value, 'SIGQUIT, grace 30 s; exited after 12 ms');
  for (const d of decisions) {
    assert.ok(d.zh !== '' && d.en !== '', `${d.field}: both languages`);
    assert.equal(d.source === 'read', d.from !== undefined, `${d.field}: a read value says what from`);
  }
  const none = standInDecisions({ capacity: null, mtu: null, whatRan: null, pods: [], stops: [] });
  assert.ok(!none.some((d) => d.source === 'read'), 'nothing read, nothing claimed as read');
  const merged = mergeNodeDecisions([
    { node: 'a', decisions: none },
    { node: 'b', decisions: [...none, { ...none[0]!, value: 'other' }] },
  ]);
  assert.deepEqual(merged[0]!.nodes, ['a', 'b']);
  assert.deepEqual(merged.at(-1)!.nodes, ['b']);
  const dir = mkdtempSync(join(tmpdir(), 'lab-kubelet-'));
  try {
    const file = join(dir, 'decisions.json');
    writeFileSync(file, JSON.stringify({ node: 'a', decisions: none }));
    assert.deepEqual(readNodeDecisions(file), { node: 'a', decisions: none });
    assert.throws(() => readImagesReplaced(file), new RegExp(`^Error: ${file}: field imagesReplaced: expected a list of image names$`));
    writeFileSync(file, JSON.stringify({ node: 'a', decisions: none, imagesReplaced: ['nginx:1.27-alpine'] }));
    assert.deepEqual(readImagesReplaced(file), ['nginx:1.27-alpine']);
    assert.deepEqual(
      imagesReplaced([
        { pod: 'default/a', hostname: 'a', probe: null, image: 'nginx:1.27-alpine' },
        { pod: 'default/b', hostname: 'b', probe: null, image: 'nginx:1.25' },
        { pod: 'default/c', hostname: 'c', probe: null, image: 'nginx:1.27-alpine' },
      ]),
      ['nginx:1.27-alpine', 'nginx:1.25'],
      'each image once, in the order the pods came',
    );
    writeFileSync(file, JSON.stringify({ node: 'a', decisions: [{ ...none[0]!, source: 'measured' }] }));
    assert.throws(() => readNodeDecisions(file), new RegExp(`^Error: ${file}: field decisions\\[0\\]\\.source: expected "stand-in" or "read"$`));
    writeFileSync(file, '{');
    assert.throws(() => readNodeDecisions(file), new RegExp(`^Error: ${file}: expected the lab kubelet's JSON`));
    // A node whose lab kubelet never wrote its file: one line naming the file, so the run fails instead of showing nothing.
    const missing = join(dir, 'nodes', 'worker', 'decisions.json');
    assert.throws(
      () => readNodeDecisions(missing),
      (error: Error) => {
        assert.match(error.message, new RegExp(`^${missing}: expected the lab kubelet's JSON: ENOENT`));
        assert.equal(error.message.split('\n').length, 1);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
