// The lab driver on the real kernel: network namespaces, the real Kubernetes
// components built by npm run lab:build, the lab kubelet, nginx, curl,
// conntrack and iptables. Needs Linux, root, the Debian tools and the binaries;
// without them these tests are skipped with the reason, except on CI
// (CI=true), where they fail.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { experiment074 as experiment } from '../support/articles.ts';
import type { Experiment, Topology } from '../../src/experiment/types.ts';
import { DriverError } from '../../src/capture/provider/node-provider.ts';
import { topologyView } from '../../src/capture/session/topology-view.ts';
import { labDriver } from '../../src/capture/lab/index.ts';
import { Cluster } from '../../src/capture/kubernetes/cluster.ts';
import { recoverDeadRuns } from '../../src/capture/recovery/recover.ts';
import { PROVIDER_LEFTOVERS } from '../../src/capture/session/drivers.ts';
import { readRecords, recordRun, type RunRecord } from '../../src/capture/recovery/run-registry.ts';
import { deleteNamespaces, listNamespaces, namespaceProcesses, processStartTime } from '../../src/capture/lab/leftovers.ts';
import { LAB_PREFIX, runFolder } from '../../src/capture/lab/names.ts';
import { claimNetnsMount, releaseNetnsMount } from '../../src/capture/lab/netns-mount.ts';
import { batchInput, runIpBatch } from '../../src/capture/lab/ip-batch.ts';
import { isAlive, waitUntil } from '../../src/capture/machine/process.ts';
import { text } from '../../src/capture/machine/process.ts';
import {
  assertNothingLeft,
  expectedComponents,
  kernelTest,
  kubeModuleVersions,
  labNamespaces,
  netnsNames,
  newRootListeners,
  newRunId,
  rootListeners,
  runComponents,
  untilRunning,
} from './support.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const ARTICLE = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/', import.meta.url));
const NODES = ['control-plane', 'worker', 'worker2'];
/** Article 074's lab namespaces, after the run's prefix: the bridge and the nodes, and the pods' when they run. */
const NODE_NAMESPACES = ['bridge', ...NODES.map((n) => `node.${n}`)];
/** The lab's run of `experiment` as the capture builds it (--kube-bin left to SHICE_KUBE_BIN or the build). */
const labRun = (runId: string, articleDir = ARTICLE) =>
  labDriver.create(experiment, { runId, articleDir, root: '.', keep: false, flags: {}, kubernetes: HEADLINE_RELEASE });
const labNamespacesAfterPrefix = async (runId: string) => (await labNamespaces(runId)).map((ns) => ns.slice(`${LAB_PREFIX}${runId}.`.length)).sort();

function statusAndCount(stdout: string): [number, number] {
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(stdout)?.[1]);
  const body = stdout.slice(stdout.indexOf('\r\n\r\n') + 4);
  return [status, (JSON.parse(body) as { localEndpoints: number }).localEndpoints];
}

kernelTest(
  "article 074 on real Kubernetes: what the API allocated, kube-proxy's own rules and health check, and nothing left or listening outside",
  async (t) => {
    const runId = newRunId('e074');
    const logs: string[] = [];
    const ctx = { signal: new AbortController().signal, log: (line: string) => logs.push(line) };
    const run = labRun(runId);
    const driver = run.provider;
    const cluster = new Cluster(run, experiment, { articleDir: ARTICLE });
    const timings: string[] = [];
    // The root namespace's whole listening set before the run: during it and after it, nothing may be added.
    const listenersBefore = await rootListeners();
    try {
      await driver.preflight();
      let start = performance.now();
      const topology = await cluster.up(ctx);
      timings.push(`up ${Math.round(performance.now() - start)} ms`);
      assert.deepEqual(await runComponents(runId), expectedComponents(NODES, ['default.backend']), 'each component runs, once, in the namespace it belongs to');
      assert.deepEqual(await newRootListeners(listenersBefore), [], 'nothing listens in the root namespace that did not before the run');

      // What each binary reports is the release of the module kube/ builds it from.
      const versions = await cluster.versions(ctx);
      const modules = kubeModuleVersions();
      const kubernetes = modules.get('k8s.io/kubernetes')!;
      for (const component of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy'])
        assert.equal(versions[component], `Kubernetes ${kubernetes}`, component);
      assert.equal(versions.kubernetes, kubernetes, "the API server's own answer to kubectl version");
      assert.equal(versions.kubectl, kubernetes, "kubectl's client version");
      assert.equal(versions.etcd, `etcd Version: ${modules.get('go.etcd.io/etcd/server/v3')!.replace(/^v/, '')}`);
      assert.equal(versions['kube-proxy-mode'], 'iptables', "kube-proxy's own answer on /proxyMode");
      assert.match(versions['cni-plugins'] ?? '', /^containernetworking-plugins \d/);

      // Allocated by the control plane: the control-plane registered first and got the first podCIDR.
      const node = (name: string) => topology.nodes.find((n) => n.name === name)!;
      // The workers join in no fixed order, as in kind: which range each gets is the run's, and the allocator
      // may pass one over (a CI run gave the workers .1 and .3, .2 unused): two ranges of their own in the pod CIDR.
      assert.equal(node('control-plane').podCIDR, '10.244.0.0/24');
      const workerRanges = [node('worker').podCIDR, node('worker2').podCIDR];
      for (const range of workerRanges)
        assert.match(range, /^10\.244\.([1-9]|[1-9]\d|1\d\d|2[0-4]\d|25[0-5])\.0\/24$/, "a /24 of the pod CIDR, not the control plane's");
      assert.notEqual(workerRanges[0], workerRanges[1], 'each worker a range of its own');
      const backend = topology.pods.find((p) => p.name === 'backend')!;
      assert.equal(backend.node, 'worker', 'the scheduler followed the nodeSelector');
      assert.ok(backend.ip.startsWith(node('worker').podCIDR.replace(/0\/24$/, '')), `host-local gave an address of worker's podCIDR: ${backend.ip}`);
      assert.match(
        backend.image,
        /^\/usr\/sbin\/nginx \(nginx version: nginx\/[\d.]+; Debian package nginx [^\s)]+\)$/,
        "the pod status names what really ran, in the binary's and dpkg's own words",
      );
      for (const service of topology.services) {
        assert.ok(service.nodePort !== null && service.nodePort >= 30000 && service.nodePort <= 32767, `${service.name} nodePort ${service.nodePort}`);
        assert.ok(service.clusterIP.startsWith('10.96.'), service.clusterIP);
        assert.equal(service.healthCheckNodePort !== null, service.name === 's-lb', `only LoadBalancer + Local gets a healthCheckNodePort (${service.name})`);
      }

      const view = topologyView(topology);
      const cpNs = `${LAB_PREFIX}${runId}.node.control-plane`;
      const outcomes = new Map<string, { exitCode: number; stdout: string; stderr: string; durationMs: number; argv: string[] }>();
      for (const step of experiment.steps) {
        start = performance.now();
        if (step.kind === 'exec') {
          const outcome = await cluster.runStep(step, view, ctx);
          assert.deepEqual(outcome.argv, ['ip', 'netns', 'exec', `${LAB_PREFIX}${runId}.node.${step.node}`, ...step.command(view)]);
          outcomes.set(step.id, outcome);
        } else {
          const outcome = await cluster.runStep(step, view, ctx);
          assert.deepEqual(outcome.argv, [
            'ip',
            'netns',
            'exec',
            cpNs,
            'kubectl',
            '--kubeconfig',
            'kubeconfig/admin.conf',
            'delete',
            'pod',
            'backend',
            '--namespace',
            'default',
            '--wait=true',
            '--timeout=60s',
          ]);
          assert.deepEqual(outcome.command, ['kubectl', 'delete', 'pod', 'backend', '--namespace', 'default', '--wait=true', '--timeout=60s']);
          assert.equal(outcome.stdout, 'pod "backend" deleted from default namespace\n');
          outcomes.set(step.id, outcome);
        }
        timings.push(`${step.id} ${Math.round(performance.now() - start)} ms`);
      }
      const get = (id: string) => outcomes.get(id)!;
      assert.equal(get('cluster-via-worker').stdout, `client=${node('worker').podCIDR.replace(/0\/24$/, '1')}\n`);
      assert.equal(get('cluster-via-worker2').stdout, `client=${node('worker2').internalIP}\n`);
      assert.equal(get('local-via-worker').stdout, `client=${node('control-plane').internalIP}\n`);
      assert.equal(get('local-via-worker2').exitCode, 28);
      // kube-proxy's own filter rules on worker2: the DROP for both Local Services, the health check port open.
      const filter = get('iptables-worker2').stdout;
      for (const service of ['s-local', 's-lb']) {
        assert.ok(
          filter.includes(
            `-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/${service} has no local endpoints" -m addrtype --dst-type LOCAL -m tcp --dport ${view.nodePort(service)} -j DROP\n`,
          ),
          filter,
        );
      }
      assert.ok(
        filter.includes(
          `-A KUBE-NODEPORTS -p tcp -m comment --comment "default/s-lb health check node port" -m tcp --dport ${view.healthCheckNodePort('s-lb')} -j ACCEPT\n`,
        ),
        filter,
      );
      assert.deepEqual(statusAndCount(get('health-worker').stdout), [200, 1]);
      assert.match(
        get('health-worker').stdout,
        /\r\nContent-Type: application\/json\r\nX-Content-Type-Options: nosniff\r\nX-Load-Balancing-Endpoint-Weight: 1\r\n/,
      );
      assert.deepEqual(statusAndCount(get('health-worker2').stdout), [503, 0]);
      // The delete waited for worker's health check to say 0 local endpoints (the pod terminating); what follows
      // once the endpoint is gone from the API: the only backend gone, kube-proxy on worker rejects every
      // Service's NodePort (no endpoints anywhere, not a DROP for want of a local one), keeps the health check
      // port open, and nginx is gone with its namespace. kube-proxy writes the rules on its own time: awaited.
      const rejects = (filter: string) =>
        ['s-local', 's-lb', 's-cluster'].every((service) =>
          filter.includes(
            `-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/${service} has no endpoints" -m addrtype --dst-type LOCAL -m tcp --dport ${view.nodePort(service)} -j REJECT --reject-with icmp-port-unreachable\n`,
          ),
        );
      let workerFilter = '';
      const waitStarted = performance.now();
      await waitUntil(
        async () => rejects((workerFilter = text((await driver.exec('worker', ['iptables-save', '-t', 'filter'], { timeoutMs: 10_000 }, ctx)).stdout))),
        30_000,
        100,
      );
      timings.push(`worker's REJECT rules ${Math.round(performance.now() - waitStarted)} ms after the last step`);
      assert.ok(rejects(workerFilter), workerFilter);
      assert.ok(!workerFilter.includes('has no local endpoints'), workerFilter);
      assert.ok(
        workerFilter.includes(
          `-A KUBE-NODEPORTS -p tcp -m comment --comment "default/s-lb health check node port" -m tcp --dport ${view.healthCheckNodePort('s-lb')} -j ACCEPT\n`,
        ),
        workerFilter,
      );
      assert.deepEqual(await runComponents(runId), expectedComponents(NODES, []), "the lab kubelet stopped the pod's nginx");
      assert.deepEqual(await labNamespacesAfterPrefix(runId), NODE_NAMESPACES, "and removed the pod's namespace with the pod");
      assert.deepEqual(await newRootListeners(listenersBefore), [], 'nothing listens in the root namespace that did not before the run');
    } finally {
      const start = performance.now();
      await driver.down(ctx);
      timings.push(`down ${Math.round(performance.now() - start)} ms`);
      t.diagnostic(timings.join(', '));
    }
    await assertNothingLeft(runId);
    assert.deepEqual(await newRootListeners(listenersBefore), [], 'nothing of the run listens in the root namespace after it');
    await driver.down(ctx); // idempotent
  },
);

/** A copy of article 074 whose Service the API server refuses: up() fails after the control plane is up. */
function refusedArticle(): { dir: string; experiment: Experiment } {
  const dir = mkdtempSync(join(tmpdir(), 'shice-labtest-article-'));
  mkdirSync(join(dir, 'manifests'));
  cpSync(join(ARTICLE, 'manifests', 'backend.yaml'), join(dir, 'manifests', 'backend.yaml'));
  const services = readFileSync(join(ARTICLE, 'manifests', 'services.yaml'), 'utf8').replace(
    'externalTrafficPolicy: Cluster',
    'externalTrafficPolicy: Sideways',
  );
  assert.ok(services.includes('Sideways'));
  writeFileSync(join(dir, 'manifests', 'services.yaml'), services);
  return { dir, experiment };
}

kernelTest('down() after up() failed midway (the API server refused a manifest) removes everything up() had made', async () => {
  const runId = newRunId('fail');
  const { dir, experiment: refused } = refusedArticle();
  const run = labRun(runId, dir);
  const driver = run.provider;
  const ctx = { signal: new AbortController().signal, log: () => {} };
  try {
    // The cluster applies the manifests once the provider's nodes and API server are up.
    await assert.rejects(new Cluster(run, refused, { articleDir: dir }).up(ctx), (error: unknown) => {
      assert.ok(error instanceof DriverError, String(error));
      assert.match(
        error.message,
        /^could not apply manifests\/services\.yaml: `.*kubectl .*apply -f .*services\.yaml` exited 1: .*Unsupported value: "Sideways"/,
      );
      return true;
    });
    // The control plane kept working: backend.yaml, applied before the refused services.yaml, gets its pod.
    const whole = expectedComponents(NODES, ['default.backend']);
    let seen: string[] = [];
    await waitUntil(async () => JSON.stringify((seen = await runComponents(runId))) === JSON.stringify(whole), 30_000, 50);
    assert.deepEqual(seen, whole, 'each component and the backend pod run in their namespaces after the refused apply');
  } finally {
    await driver.down(ctx);
    rmSync(dir, { recursive: true, force: true });
  }
  await assertNothingLeft(runId);
});

kernelTest('an abort during up() stops it; down() then removes everything', async () => {
  const runId = newRunId('abort');
  const controller = new AbortController();
  const ctx = {
    signal: controller.signal,
    log: (line: string) => {
      if (line.startsWith('applying ')) controller.abort(new Error('interrupted by the test'));
    },
  };
  const run = labRun(runId);
  const driver = run.provider;
  try {
    await assert.rejects(new Cluster(run, experiment, { articleDir: ARTICLE }).up(ctx), /interrupted/);
    assert.deepEqual(await labNamespacesAfterPrefix(runId), NODE_NAMESPACES, 'aborted while applying: the nodes were up, no pod yet');
  } finally {
    await driver.down({ log: () => {} });
  }
  await assertNothingLeft(runId);
});

kernelTest(
  '--keep leaves the lab running after the capture exits, recorded as kept; --clean (recoverDeadRuns) removes it, the next capture does not',
  async () => {
    const runId = newRunId('keep');
    const script = `
    import { labDriver } from ${JSON.stringify(new URL('../../src/capture/lab/index.ts', import.meta.url).href)};
    import { Cluster } from ${JSON.stringify(new URL('../../src/capture/kubernetes/cluster.ts', import.meta.url).href)};
    import { experiment074 as experiment } from ${JSON.stringify(new URL('../support/articles.ts', import.meta.url).href)};
    import { HEADLINE_RELEASE } from ${JSON.stringify(new URL('../../src/experiment/kubernetes.ts', import.meta.url).href)};
    const run = labDriver.create(experiment, { runId: ${JSON.stringify(runId)}, articleDir: ${JSON.stringify(ARTICLE)}, root: '.', keep: true, flags: {}, kubernetes: HEADLINE_RELEASE });
    const topology = await new Cluster(run, experiment, { articleDir: ${JSON.stringify(ARTICLE)} }).up({ signal: new AbortController().signal, log: () => {} });
    await run.provider.down({ log: (line) => console.log(line) });
    console.log(JSON.stringify(topology));
  `;
    try {
      const child = await execa(process.execPath, ['--input-type=module', '-e', script], { timeout: 120_000 });
      const lines = child.stdout.trim().split('\n');
      assert.ok(lines.includes('lab kept: remove it with npm run capture -- --driver lab --clean'), child.stdout);
      const topology = JSON.parse(lines.at(-1) ?? '{}') as Topology;
      assert.deepEqual(
        await labNamespacesAfterPrefix(runId),
        [...NODE_NAMESPACES, 'pod.default.backend'].sort(),
        'the kept lab (bridge, nodes, pod) outlived its capture',
      );
      assert.ok(
        lines.some((l) => /^lab kept: kubectl: ip netns exec /.test(l)),
        'says how to reach the kept API server',
      );
      assert.deepEqual(
        await runComponents(runId),
        expectedComponents(NODES, ['default.backend']),
        'the control plane, the kubelets, kube-proxies and nginx outlived their capture',
      );
      const worker = topology.nodes.find((n) => n.name === 'worker')!;
      const cp = topology.nodes.find((n) => n.name === 'control-plane')!;
      const nodePort = topology.services.find((s) => s.name === 's-local')!.nodePort;
      const curl = await execa('ip', [
        'netns',
        'exec',
        `${LAB_PREFIX}${runId}.node.control-plane`,
        'curl',
        '--silent',
        '--max-time',
        '3',
        `http://${worker.internalIP}:${nodePort}/`,
      ]);
      assert.equal(curl.stdout, `client=${cp.internalIP}`);
      const record = readRecords().runs.find((r): r is RunRecord => r.kind === 'lab' && r.runId === runId);
      assert.equal(record?.kept, true, 'the kept run is recorded as kept');
      assert.deepEqual(
        record?.namespaces.map((ns) => ns.slice(`${LAB_PREFIX}${runId}.`.length)).sort(),
        NODE_NAMESPACES,
        "the bridge and the nodes; the pods' by the run's prefix",
      );
      assert.equal(record?.namespacePrefix, `${LAB_PREFIX}${runId}.`);
      const logged: string[] = [];
      assert.deepEqual(
        (await recoverDeadRuns((line) => logged.push(line), { leftovers: PROVIDER_LEFTOVERS, onlyRuns: (id) => id === runId, leaveKept: true })).done,
        [],
        'the next capture leaves a kept lab up',
      );
      assert.deepEqual(logged, [`left lab run ${runId} up: it was kept with --keep (npm run capture -- --clean removes it)`]);
    } finally {
      const removed = (await recoverDeadRuns(() => {}, { leftovers: PROVIDER_LEFTOVERS, onlyRuns: (id) => id === runId })).done;
      assert.ok(removed.includes(`dead lab run ${runId}: removed namespace ${LAB_PREFIX}${runId}.bridge`), removed.join('\n'));
      assert.ok(removed.includes(`dead lab run ${runId}: removed namespace ${LAB_PREFIX}${runId}.pod.default.backend`), removed.join('\n'));
      assert.ok(
        removed.some((line) => line.includes(': removed process ') && line.includes('nginx')),
        removed.join('\n'),
      );
      assert.ok(
        removed.some((line) => line.includes(': removed process ') && line.includes('kube-apiserver')),
        removed.join('\n'),
      );
      assert.ok(!readRecords().runs.some((r) => r.runId === runId), 'its record is gone with it');
    }
    await assertNothingLeft(runId);
  },
);

kernelTest('ip batches on the kernel: namespaces, their processes and their deletion as ip itself sees them; a failure names its command', async () => {
  const runId = newRunId('batch');
  const [a, b] = [`${LAB_PREFIX}${runId}.node.a`, `${LAB_PREFIX}${runId}.node.b`];
  const dir = mkdtempSync(join(tmpdir(), 'shice-labtest-batch-'));
  const signal = new AbortController().signal;
  let sleeper: number | undefined;
  try {
    const inner = {
      netns: b,
      commands: [
        ['link', 'set', 'lo', 'up'],
        ['addr', 'add', '10.77.0.1/24', 'dev', 'lo'],
        ['route', 'add', '10.9.0.0/24', 'via', '9.9.9.9'],
      ],
    };
    writeFileSync(join(dir, 'b.ip'), batchInput(inner));
    // As the lab does before its first namespace: the mount `ip netns add` may make is noted, and released after.
    await claimNetnsMount(runId);
    const root = {
      netns: null,
      commands: [
        ['netns', 'add', a],
        ['netns', 'add', b],
        ['netns', 'exec', b, 'ip', '-batch', join(dir, 'b.ip')],
        ['netns', 'add', `${b}-never`],
      ],
    };
    await assert.rejects(runIpBatch(root, { signal, nested: new Map([[join(dir, 'b.ip'), inner]]) }), (error: unknown) => {
      assert.ok(error instanceof DriverError);
      assert.equal(error.message, `ip -n ${b} route add 10.9.0.0/24 via 9.9.9.9 failed (in ip -batch -): Error: Nexthop has invalid gateway.`);
      return true;
    });
    // ip stopped at the failing line: what came before it is done, what came after is not.
    const listed = netnsNames((await execa('ip', ['netns', 'list'])).stdout).filter((ns) => ns.includes(runId));
    assert.deepEqual(listed.sort(), [a, b]);
    assert.deepEqual(
      (await listNamespaces()).filter((ns) => ns.includes(runId)),
      [a, b],
    );
    assert.match((await execa('ip', ['-n', b, '-brief', 'addr', 'show', 'lo'])).stdout, /10\.77\.0\.1\/24/);

    const child = execa('ip', ['netns', 'exec', b, 'sleep', '300'], { detached: true, cleanup: false, reject: false, stdio: 'ignore' });
    sleeper = child.pid;
    await untilRunning(sleeper!, ['sleep', '300'], b);
    const pids = (name: string) => execa('ip', ['netns', 'pids', name]).then((r) => r.stdout.split('\n').filter(Boolean).map(Number));
    const found = namespaceProcesses([a, b, `${b}-never`]);
    assert.deepEqual(found.get(a), await pids(a));
    assert.deepEqual(found.get(b), await pids(b));
    assert.deepEqual(found.get(b), [sleeper]);
    assert.deepEqual(found.get(`${b}-never`), [], 'a namespace that does not exist holds no process');

    process.kill(sleeper!, 'SIGKILL');
    await child;
    assert.deepEqual(await deleteNamespaces([a, `${b}-never`, b]), [a, b], 'one that never existed is not reported as deleted');
    assert.deepEqual(
      (await listNamespaces()).filter((ns) => ns.includes(runId)),
      [],
    );
    assert.deepEqual(await deleteNamespaces([a]), [], 'deleting again is a no-op');
  } finally {
    if (sleeper !== undefined && isAlive(sleeper)) process.kill(sleeper, 'SIGKILL');
    for (const ns of [a, b]) await execa('ip', ['netns', 'del', ns], { reject: false });
    await releaseNetnsMount(runId);
    rmSync(dir, { recursive: true, force: true });
  }
});

kernelTest(
  'recovery removes what a dead run recorded, and only that: processes in its namespaces, its recorded processes, namespaces, folders; live runs stay',
  async () => {
    const stale = newRunId('stale');
    const live = newRunId('live');
    const staleNs = `${LAB_PREFIX}${stale}.node.worker`;
    const unrecordedNs = `${LAB_PREFIX}${stale}.node.unrecorded`;
    const liveNs = `${LAB_PREFIX}${live}.bridge`;
    const liveFolder = runFolder(live);
    const staleFolder = runFolder(stale);
    const registry = mkdtempSync(join(tmpdir(), 'shice-labtest-registry-'));
    const started: number[] = [];
    try {
      await claimNetnsMount(live);
      for (const ns of [staleNs, unrecordedNs, liveNs]) await execa('ip', ['netns', 'add', ns]);
      const inside = execa('ip', ['netns', 'exec', staleNs, 'sleep', '300'], { detached: true, cleanup: false, reject: false, stdio: 'ignore' });
      // A process the run started outside any namespace (its namespace already gone), and one whose pid was reused.
      const outside = execa('sleep', ['301'], { detached: true, cleanup: false, reject: false, stdio: 'ignore' });
      const reused = execa('sleep', ['302'], { detached: true, cleanup: false, reject: false, stdio: 'ignore' });
      started.push(inside.pid!, outside.pid!, reused.pid!);
      // Recovery names a process by its command line: each must have exec'd, the first inside its namespace.
      await untilRunning(inside.pid!, ['sleep', '300'], staleNs);
      await untilRunning(outside.pid!, ['sleep', '301'], null);
      await untilRunning(reused.pid!, ['sleep', '302'], null);
      mkdirSync(staleFolder);
      mkdirSync(liveFolder);
      recordRun(
        {
          runId: stale,
          owner: { pid: 2 ** 22 + 1, startTime: '1' },
          namespaces: [staleNs, `${LAB_PREFIX}${stale}.never-created`],
          processes: [
            { pid: outside.pid!, startTime: processStartTime(outside.pid!), label: 'a recorded sleep' },
            { pid: reused.pid!, startTime: '1', label: 'an earlier process with this pid' },
          ],
          folders: [staleFolder],
        },
        registry,
      );
      recordRun({ runId: live, namespaces: [liveNs], processes: [], folders: [liveFolder] }, registry);

      const removed = (await recoverDeadRuns(() => {}, { leftovers: PROVIDER_LEFTOVERS, dir: registry, onlyRuns: (id) => id === stale || id === live })).done;
      assert.deepEqual(removed, [
        `dead lab run ${stale}: removed process ${inside.pid} (sleep 300) in ${staleNs}`,
        `dead lab run ${stale}: removed process ${outside.pid} (a recorded sleep)`,
        `dead lab run ${stale}: removed namespace ${staleNs}`,
        `dead lab run ${stale}: removed folder ${staleFolder}`,
      ]);
      await inside;
      await outside;
      assert.equal(isAlive(inside.pid!), false);
      assert.equal(isAlive(outside.pid!), false);
      assert.equal(isAlive(reused.pid!), true, 'a pid whose start time differs is another process: left alone');
      const names = netnsNames((await execa('ip', ['netns', 'list'])).stdout);
      assert.ok(!names.includes(staleNs));
      assert.ok(names.includes(unrecordedNs), 'a namespace the record does not name stays, whatever its name');

      assert.ok(names.includes(liveNs), 'a live run stays');
      assert.ok(existsSync(liveFolder));
      assert.deepEqual(
        readRecords(registry).runs.map((r) => r.runId),
        [live],
        "the dead run's record is gone, the live one stays",
      );
      // A run whose processes make namespaces themselves (a lab kubelet's pods) records its own prefix:
      // those go too; a prefix that is not the run's own is ignored.
      recordRun(
        { runId: stale, owner: { pid: 2 ** 22 + 1, startTime: '1' }, namespaces: [], namespacePrefix: `${LAB_PREFIX}${stale}.`, processes: [], folders: [] },
        registry,
      );
      recordRun(
        { runId: live, owner: { pid: 2 ** 22 + 1, startTime: '1' }, namespaces: [], namespacePrefix: `${LAB_PREFIX}`, processes: [], folders: [] },
        registry,
      );
      const second = (await recoverDeadRuns(() => {}, { leftovers: PROVIDER_LEFTOVERS, dir: registry, onlyRuns: (id) => id === stale || id === live })).done;
      assert.deepEqual(second, [`dead lab run ${stale}: removed namespace ${unrecordedNs}`]);
      const after = netnsNames((await execa('ip', ['netns', 'list'])).stdout);
      assert.ok(!after.includes(unrecordedNs));
      assert.ok(after.includes(liveNs), 'a record claiming a prefix that is not its own removes nothing');
    } finally {
      for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      for (const ns of [staleNs, unrecordedNs, liveNs]) await execa('ip', ['netns', 'del', ns], { reject: false });
      await releaseNetnsMount(live);
      for (const dir of [liveFolder, staleFolder, registry]) rmSync(dir, { recursive: true, force: true });
    }
  },
);

kernelTest('up() refuses a run whose namespaces or folder exist already, and down() leaves them alone', async () => {
  const runId = newRunId('taken');
  const ctx = { signal: new AbortController().signal, log: () => {} };
  const taken = `${LAB_PREFIX}${runId}.bridge`;
  try {
    await claimNetnsMount(runId);
    await execa('ip', ['netns', 'add', taken]);
    const first = labRun(runId).provider;
    await assert.rejects(
      first.up(ctx),
      new RegExp(
        `^DriverError: lab run ${runId} already has namespaces \\(${taken.replaceAll('.', '\\.')}\\): remove them with npm run capture -- --driver lab --clean$`,
      ),
    );
    await first.down(ctx);
    assert.deepEqual(await labNamespaces(runId), [taken]);
    await execa('ip', ['netns', 'del', taken]);

    mkdirSync(runFolder(runId));
    writeFileSync(join(runFolder(runId), 'marker'), 'not the lab’s');
    const second = labRun(runId).provider;
    await assert.rejects(second.up(ctx), /^DriverError: lab run folder .*EEXIST.*--driver lab --clean$/);
    await second.down(ctx);
    assert.ok(existsSync(join(runFolder(runId), 'marker')), 'a folder up() did not make stays');
  } finally {
    await execa('ip', ['netns', 'del', taken], { reject: false });
    await releaseNetnsMount(runId);
    rmSync(runFolder(runId), { recursive: true, force: true });
  }
  assert.deepEqual(await labNamespaces(runId), []);
});
