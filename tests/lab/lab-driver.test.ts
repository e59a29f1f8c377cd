// The lab driver. The first part checks its pure pieces and runs anywhere; the
// second drives LabDriver on the real kernel (network namespaces, nginx, curl,
// conntrack, iptables) and needs Linux, root and the Debian tools. Without them
// those tests are skipped with the reason, except on CI (CI=true), where they fail.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { experiment } from '../../content/articles/074-external-traffic-policy/experiment.ts';
import { loadManifests, parseManifests, collectManifests } from '../../src/experiment/manifests.ts';
import type { Experiment, Topology } from '../../src/experiment/types.ts';
import { DriverError } from '../../src/capture/driver.ts';
import type { ProxyNodeInput } from '../../src/capture/kubeproxy/model.ts';
import { normalizeSave, renderFullRestore } from '../../src/capture/kubeproxy/restore.ts';
import { buildProxyRules } from '../../src/capture/kubeproxy/rules.ts';
import { topologyView } from '../../src/capture/topology-view.ts';
import { allocateClusterIP, allocateNodePort, bandOffset, hostAddress, subnet } from '../../src/capture/lab/allocate.ts';
import { LabDriver } from '../../src/capture/lab/index.ts';
import { recoverDeadRuns } from '../../src/capture/recover.ts';
import { readRecords, recordRun } from '../../src/capture/run-registry.ts';
import { allocateServices, buildLabLayout, LabLayoutError, serviceEndpoints } from '../../src/capture/lab/layout.ts';
import { deleteNamespaces, listNamespaces, namespaceProcesses, processStartTime } from '../../src/capture/lab/leftovers.ts';
import { LAB_PREFIX, runFolder, runIdOfNamespace } from '../../src/capture/lab/names.ts';
import { batchArgv, batchFailure, batchInput, ipArgv, runIpBatch } from '../../src/capture/lab/ip-batch.ts';
import { labNetwork, namespaceBatches, namespacesBatch, networkCommands, networkScript } from '../../src/capture/lab/network.ts';
import { nginxMainConfig, nginxPaths } from '../../src/capture/lab/nginx.ts';
import { isAlive } from '../../src/capture/lab/processes.ts';
import { writeHealthState } from '../../src/capture/lab/health-state.ts';
import { runTogether, settleAll } from '../../src/capture/lab/together.ts';
import { findProgram, missingPrerequisite } from '../../src/capture/lab/tools.ts';

const ARTICLE = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/', import.meta.url));
const MANIFESTS = loadManifests(ARTICLE, experiment.manifests);
/** Always the first value: the bottom of whichever band is scanned. */
const firstChoice = (): number => 0;

// ---------------------------------------------------------------- pure parts

test('allocation bands are the API server’s: ClusterIPs from 10.96.1.1 up, NodePorts from 30086 up', () => {
  assert.equal(bandOffset(65536, 16, 256, 16), 256);
  assert.equal(bandOffset(2768, 16, 128, 32), 86);
  assert.equal(allocateClusterIP('10.96.0.0/16', new Set(), firstChoice), '10.96.1.1');
  assert.equal(allocateClusterIP('10.96.0.0/16', new Set(['10.96.1.1']), firstChoice), '10.96.1.2');
  assert.equal(allocateNodePort(new Set(), firstChoice), 30086);
  assert.equal(allocateNodePort(new Set([30086, 30087]), firstChoice), 30088);
  // A random start wraps around the upper band; the lower band is used only when the upper one is full.
  assert.equal(allocateNodePort(new Set(), (bound) => bound - 1), 32767);
  assert.equal(allocateNodePort(new Set([32767]), (bound) => bound - 1), 30086);
  const upperBand = new Set(Array.from({ length: 32767 - 30086 + 1 }, (_, i) => 30086 + i));
  assert.equal(allocateNodePort(upperBand, firstChoice), 30000);
  assert.equal(allocateClusterIP('10.96.0.0/28', new Set(['10.96.0.1']), firstChoice), '10.96.0.2');
  assert.throws(() => allocateClusterIP('10.96.0.0/30', new Set(['10.96.0.1', '10.96.0.2']), firstChoice), /no free value left/);
  assert.equal(subnet('10.244.0.0/16', 24, 2), '10.244.2.0/24');
  assert.equal(hostAddress('10.244.2.0/24', 1), '10.244.2.1');
  assert.throws(() => subnet('10.244.0.0/16', 24, 256), /has no subnet/);
});

test('random allocation stays in range and never collides', () => {
  const services = allocateServices(MANIFESTS.services, '10.96.0.0/16', (bound) => Math.floor(Math.random() * bound));
  const ports = services.flatMap((s) => [...s.ports.map((p) => p.allocatedNodePort), s.healthCheckNodePort]).filter((p) => p !== null);
  assert.equal(new Set(ports).size, ports.length);
  for (const port of ports) assert.ok(port >= 30000 && port <= 32767, String(port));
  for (const s of services) assert.match(s.clusterIP, /^10\.96\.\d+\.\d+$/);
  assert.deepEqual(services.map((s) => [s.name, s.healthCheckNodePort !== null]), [['s-cluster', false], ['s-local', false], ['s-lb', true]]);
});

test('a NodePort the manifest asks for is kept; the same one twice is an error', () => {
  const objects = parseManifests(
    'apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {type: NodePort, selector: {app: x}, ports: [{port: 80, nodePort: 30100}]}\n' +
      '---\napiVersion: v1\nkind: Service\nmetadata: {name: b}\nspec: {type: NodePort, selector: {app: x}, ports: [{port: 80, nodePort: 30100}]}\n',
    'svc.yaml',
  );
  const [a] = collectManifests(objects).services;
  assert.equal(allocateServices([a!], '10.96.0.0/16', firstChoice)[0]?.ports[0]?.allocatedNodePort, 30100);
  assert.throws(() => allocateServices(collectManifests(objects).services, '10.96.0.0/16', firstChoice), (error: unknown) => {
    assert.ok(error instanceof LabLayoutError);
    assert.equal(error.message, 'svc.yaml: document 2 (Service b): spec.ports[0].nodePort: expected a port no other Service uses, got 30100');
    return true;
  });
});

test("article 074's lab layout: kind-like addresses and names that fit in 15 characters", () => {
  const layout = buildLabLayout(experiment, MANIFESTS, 'unit-1');
  assert.deepEqual(
    layout.nodes.map((n) => [n.name, n.k8sName, n.internalIP, n.podCIDR, n.podGateway]),
    [
      ['control-plane', 'kx-main-control-plane', '172.18.0.3', '10.244.0.0/24', '10.244.0.1'],
      ['worker', 'kx-main-worker', '172.18.0.2', '10.244.1.0/24', '10.244.1.1'],
      ['worker2', 'kx-main-worker2', '172.18.0.4', '10.244.2.0/24', '10.244.2.1'],
    ],
  );
  assert.deepEqual(layout.pods.map((p) => [p.namespace, p.name, p.node, p.ip, p.gateway]), [['default', 'backend', 'worker', '10.244.1.2', '10.244.1.1']]);
  for (const name of [...layout.nodes.map((n) => n.bridgePort), ...layout.pods.map((p) => p.hostVeth)]) assert.ok(name.length <= 15, name);
  assert.deepEqual(layout.pods[0]?.configFiles.map((f) => f.containerPath), ['/etc/nginx/conf.d/default.conf']);
  assert.ok(layout.nodes.every((n) => runIdOfNamespace(n.netns) === 'unit-1'));
});

test('every lab command stays inside a namespace of the run: none touches the root namespace', () => {
  const layout = buildLabLayout(experiment, MANIFESTS, 'unit-2');
  const prefix = `${LAB_PREFIX}unit-2.`;
  const network = labNetwork(layout, '172.18.0.0/16');
  const commands = networkCommands(network);
  assert.ok(commands.length > 30);
  // What actually runs: two root-level batches whose lines add the run's namespaces or run something inside one of them.
  const script = networkScript(network, (batch) => `/tmp/x/${batch.netns}.ip`);
  assert.deepEqual(batchArgv(script), ['ip', '-batch', '-']);
  assert.deepEqual(batchArgv(namespacesBatch(network)), ['ip', '-batch', '-']);
  for (const [verb, action, netns, ...rest] of [...namespacesBatch(network).commands, ...script.commands]) {
    assert.equal(verb, 'netns');
    assert.ok(['add', 'exec'].includes(action ?? ''), action);
    assert.ok(netns?.startsWith(prefix), `not confined to the run's namespaces: ${netns}`);
    if (rest[0] === 'ip') assert.deepEqual(rest, ['ip', '-batch', `/tmp/x/${netns}.ip`], 'a nested batch runs inside its own namespace');
  }
  for (const batch of namespaceBatches(network)) assert.ok(batch.netns?.startsWith(prefix), String(batch.netns));
  for (const argv of commands) {
    const [tool, a, b, c] = argv;
    assert.equal(tool, 'ip', argv.join(' '));
    const netns = a === '-n' ? b : a === 'netns' && ['add', 'exec'].includes(b ?? '') ? c : undefined;
    assert.ok(netns?.startsWith(prefix), `not confined to the run's namespaces: ${argv.join(' ')}`);
    if (argv.includes('peer')) assert.ok(argv[argv.indexOf('peer') + 4]?.startsWith(prefix), `veth peer outside the run: ${argv.join(' ')}`);
  }
});

test('the network builds in dependency order: bridge, then each node, then its pods', () => {
  const layout = buildLabLayout(experiment, MANIFESTS, 'unit-5');
  const network = labNetwork(layout, '172.18.0.0/16');
  const lines = networkCommands(network).map((argv) => argv.join(' '));
  const at = (line: string): number => {
    const index = lines.indexOf(line);
    assert.ok(index >= 0, `missing: ${line}\n${lines.join('\n')}`);
    return index;
  };
  const br = 'shice-lab-unit-5.bridge';
  const worker = 'shice-lab-unit-5.node.worker';
  const pod = 'shice-lab-unit-5.pod.default.backend';
  // The namespaces come first, in one batch; then the script runs each namespace's batch, a pod's after its node's.
  assert.deepEqual(namespacesBatch(network).commands.map((c) => c.join(' ')), network.namespaces.map((ns) => `netns add ${ns}`));
  assert.deepEqual(network.namespaces, [br, 'shice-lab-unit-5.node.control-plane', worker, 'shice-lab-unit-5.node.worker2', pod]);
  const script = networkScript(network, (batch) => `${batch.netns}.ip`).commands.map((c) => c.join(' '));
  const runs = (netns: string): number => script.indexOf(`netns exec ${netns} ip -batch ${netns}.ip`);
  assert.ok(runs(br) === 0 && runs(br) < runs(worker) && runs(worker) < runs(pod), script.join('\n'));
  assert.ok(script.includes('netns exec shice-lab-unit-5.node.worker2 sysctl -q -w net.ipv4.ip_forward=1 net.ipv4.conf.all.route_localnet=1'));
  const [bridgePort, hostVeth] = [layout.nodes.find((n) => n.name === 'worker')!.bridgePort, layout.pods[0]!.hostVeth];
  // The bridge namespace makes every node's veth and hands the node its end as eth0.
  assert.ok(at(`ip netns add ${pod}`) < at(`ip -n ${br} link add br-kind type bridge`));
  assert.ok(at(`ip -n ${br} link add ${bridgePort} type veth peer name eth0 netns ${worker}`) < at(`ip -n ${worker} addr add 172.18.0.2/16 dev eth0`));
  assert.ok(at(`ip -n ${worker} link set eth0 up`) < at(`ip -n ${worker} route add 10.244.0.0/24 via 172.18.0.3`));
  // The node makes the pod's veth; the pod's own batch only configures its end.
  assert.ok(at(`ip -n ${worker} link add ${hostVeth} type veth peer name eth0 netns ${pod}`) < at(`ip -n ${pod} addr add 10.244.1.2/24 dev eth0`));
  assert.ok(at(`ip -n ${pod} link set eth0 up`) < at(`ip -n ${pod} route add default via 10.244.1.1`));
  assert.equal(lines.filter((l) => l.includes(' sysctl ')).length, 3, 'one sysctl process per node');
  assert.ok(lines.includes(`ip netns exec ${worker} sysctl -q -w net.ipv4.ip_forward=1 net.ipv4.conf.all.route_localnet=1`));
  // A batch is ip's stdin: its lines are the standalone commands without `ip -n <ns>`.
  const podInput = batchInput(network.pods[0]!.batch);
  assert.equal(podInput, `link set lo up\naddr add 10.244.1.2/24 dev eth0\nlink set eth0 up\nroute add default via 10.244.1.1\n`);
});

test("a batch refuses words ip's batch reader would split or cut, and a failure names the command it stopped at", () => {
  const batch = { netns: 'shice-lab-u.node.worker', commands: [['link', 'set', 'lo', 'up'], ['addr', 'add', '10.1.0.1/24', 'dev', 'lo'], ['route', 'add', '10.9.0.0/24', 'via', '9.9.9.9']] };
  assert.deepEqual(ipArgv(null, ['netns', 'add', 'a']), ['ip', 'netns', 'add', 'a']);
  assert.throws(() => batchInput({ netns: 'x', commands: [['link', 'set', 'a b', 'up']] }), /^Error: ip batch for x: "link set a b up": expected words without spaces, quotes, backslashes or #, got "a b"$/);
  assert.throws(() => batchInput({ netns: null, commands: [['netns', 'add', 'x#y']] }), /ip batch for the root namespace: .*got "x#y"$/);
  assert.throws(() => batchInput({ netns: 'x', commands: [['link', 'set', '', 'up']] }), /got ""$/);
  // stderr of `ip -n NS -batch -` (iproute2 6.1) when its third line failed.
  assert.deepEqual(batchFailure(batch, 'Error: Nexthop has invalid gateway.\nCommand failed -:3\n'), {
    argv: ['ip', '-n', 'shice-lab-u.node.worker', 'route', 'add', '10.9.0.0/24', 'via', '9.9.9.9'],
    detail: 'Error: Nexthop has invalid gateway.',
  });
  assert.deepEqual(batchFailure(batch, 'Cannot find device "nosuchdev"\nCommand failed -:2\n')?.argv.slice(3), ['addr', 'add', '10.1.0.1/24', 'dev', 'lo']);
  assert.deepEqual(
    batchFailure({ netns: null, commands: [['netns', 'add', 'a']] }, 'Cannot create namespace file "/run/netns/a": File exists\nCommand failed -:1\n'),
    { argv: ['ip', 'netns', 'add', 'a'], detail: 'Cannot create namespace file "/run/netns/a": File exists' },
  );
  assert.equal(batchFailure(batch, 'Command failed -:9\n'), null, 'a line the batch does not have');
  assert.equal(batchFailure(batch, 'Segmentation fault\n'), null);
  // A nested batch that failed inside a root-level one: both ip processes name their line; the inner one wins.
  const root = { netns: null, commands: [['netns', 'add', 'n1'], ['netns', 'exec', 'n1', 'ip', '-batch', '/run/n1.ip'], ['netns', 'exec', 'n1', 'sysctl', '-q', '-w', 'net.ipv4.nosuch=1']] };
  const inner = { netns: 'n1', commands: [['link', 'set', 'lo', 'up'], ['link', 'set', 'nosuch', 'up']] };
  assert.deepEqual(batchFailure(root, 'Cannot find device "nosuch"\nCommand failed /run/n1.ip:2\nCommand failed -:2\n', new Map([['/run/n1.ip', inner]])), {
    argv: ['ip', '-n', 'n1', 'link', 'set', 'nosuch', 'up'],
    detail: 'Cannot find device "nosuch"',
  });
  // A program run by `netns exec` that failed: the root-level line, as the command line it stands for.
  assert.deepEqual(batchFailure(root, 'sysctl: cannot stat /proc/sys/net/ipv4/nosuch: No such file or directory\nCommand failed -:3\n'), {
    argv: ['ip', 'netns', 'exec', 'n1', 'sysctl', '-q', '-w', 'net.ipv4.nosuch=1'],
    detail: 'sysctl: cannot stat /proc/sys/net/ipv4/nosuch: No such file or directory',
  });
});

test('work side by side: the first failure stops the others and is thrown once every task has finished', async () => {
  const events: string[] = [];
  const waitForAbort = (name: string) => (signal: AbortSignal) =>
    new Promise<void>((_, reject) => {
      signal.addEventListener('abort', () => setTimeout(() => {
        events.push(`${name} stopped: ${(signal.reason as Error).message}`);
        reject(signal.reason);
      }, 5), { once: true });
    });
  const failing = async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    events.push('nginx failed');
    throw new DriverError('nginx exited at start');
  };
  await assert.rejects(runTogether([waitForAbort('servers'), failing, waitForAbort('sync')], new AbortController().signal), /^DriverError: nginx exited at start$/);
  assert.deepEqual(events, ['nginx failed', 'servers stopped: nginx exited at start', 'sync stopped: nginx exited at start'], 'the error comes after every task has stopped');

  // An interrupt from outside reaches every task, and its reason is what is thrown.
  const outside = new AbortController();
  const running = runTogether([waitForAbort('a'), waitForAbort('b')], outside.signal);
  outside.abort(new Error('Ctrl-C'));
  await assert.rejects(running, /^Error: Ctrl-C$/);
  await runTogether([async () => {}, async () => {}], new AbortController().signal);

  const settled: string[] = [];
  const slow = new Promise<void>((resolve) => setTimeout(() => { settled.push('slow'); resolve(); }, 20));
  await assert.rejects(settleAll([Promise.reject(new Error('first')), slow, Promise.reject(new Error('second'))]), /^Error: first$/);
  assert.deepEqual(settled, ['slow'], 'settleAll waits for everything before it throws');
});

test('layout errors name the manifest, the object and the field', () => {
  const layoutOf = (pods: string): (() => unknown) => () =>
    buildLabLayout(experiment, { ...collectManifests([...MANIFESTS.configMaps, ...parseManifests(pods, 'pods.yaml')]), services: [] }, 'unit-3');
  const pod = (spec: string): string => `apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {app: backend}}\nspec:\n${spec}\n`;
  const conf = '  volumes: [{name: conf, configMap: {name: backend-nginx}}]';
  const mount = 'volumeMounts: [{name: conf, mountPath: /etc/nginx/conf.d}]';
  assert.throws(
    layoutOf(pod(`  nodeSelector: {kubernetes.io/hostname: kx-main-worker9}\n  containers: [{name: c, image: nginx, ${mount}}]\n${conf}`)),
    /^LabLayoutError: pods\.yaml: document 1 \(Pod p\): spec\.nodeSelector\["kubernetes\.io\/hostname"\]: expected one of kx-main-control-plane, kx-main-worker, kx-main-worker2, got "kx-main-worker9"$/,
  );
  assert.throws(layoutOf(pod(`  containers: [{name: c, image: 'httpd:2.4', ${mount}}]\n${conf}`)), /\(Pod p\): spec\.containers\[0\]\.image: expected an nginx image .*got "httpd:2\.4"$/);
  assert.throws(layoutOf(pod('  containers: [{name: c, image: nginx}]')), /\(Pod p\): spec\.containers\[0\]\.volumeMounts: expected a ConfigMap mounted at \/etc\/nginx\/conf\.d/);
  assert.throws(
    layoutOf(pod(`  containers: [{name: c, image: nginx, ${mount}}]\n  volumes: [{name: conf, configMap: {name: nowhere}}]`)),
    /\(Pod p\): spec\.volumes\(conf\)\.configMap\.name: expected a ConfigMap of namespace default in the manifests, got "nowhere"$/,
  );
  // An unpinned pod goes to the least busy worker, never to the tainted control-plane.
  const layout = layoutOf(pod(`  containers: [{name: c, image: 'docker.io/library/nginx:1.27', ${mount}}]\n${conf}`))() as ReturnType<typeof buildLabLayout>;
  assert.equal(layout.pods[0]?.node, 'worker');
});

test('endpoints follow the selector and resolve a named targetPort per pod', () => {
  const layout = buildLabLayout(experiment, MANIFESTS, 'unit-4');
  const services = allocateServices(
    collectManifests(parseManifests(
      'apiVersion: v1\nkind: Service\nmetadata: {name: named}\nspec: {type: NodePort, selector: {app: backend}, ports: [{port: 8080, targetPort: web}]}\n' +
        '---\napiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec: {type: NodePort, selector: {app: nobody}, ports: [{port: 80}]}\n',
      'svc.yaml',
    )).services,
    '10.96.0.0/16',
    firstChoice,
  );
  const pod = layout.pods[0]!;
  const named = { ...pod, container: { ...pod.container, ports: [{ name: 'web', containerPort: 8081, protocol: 'TCP' as const }] } };
  assert.deepEqual(serviceEndpoints(services, [named], layout.nodes), [
    { namespace: 'default', service: 'named', portName: null, ip: '10.244.1.2', port: 8081, nodeName: 'kx-main-worker' },
  ]);
  assert.deepEqual(serviceEndpoints(services, [pod], layout.nodes), [], 'no port named web: no endpoint');
});

test("nginx runs the image's main config with every path in the run folder", () => {
  const paths = nginxPaths('/tmp/shice-lab-x', { namespace: 'default', name: 'backend' });
  const config = nginxMainConfig(paths);
  assert.match(config, /^daemon off;$/m);
  assert.match(config, /^pid \/tmp\/shice-lab-x\/pods\/default\.backend\/nginx\.pid;$/m);
  assert.match(config, /^ {4}include \/tmp\/shice-lab-x\/pods\/default\.backend\/rootfs\/etc\/nginx\/conf\.d\/\*\.conf;$/m);
  const absolute = [...config.matchAll(/ (\/[^\s;']+)/g)].map((m) => m[1] as string).filter((p) => p !== '/etc/nginx/mime.types');
  for (const path of absolute) assert.ok(path.startsWith('/tmp/shice-lab-x/'), path);
});

test('names: a namespace belongs to a run only through the lab prefix and the dot', () => {
  assert.equal(runIdOfNamespace('shice-lab-20261202-1103-ab.node.worker'), '20261202-1103-ab');
  assert.equal(runIdOfNamespace('shice-lab-x.bridge'), 'x');
  assert.equal(runIdOfNamespace('shice-lab-nodot'), null);
  assert.equal(runIdOfNamespace('shice-sample-br'), null);
  assert.equal(runIdOfNamespace('cni-1234.x'), null);
  assert.equal(runFolder('r1', '/tmp'), '/tmp/shice-lab-r1');
  assert.throws(() => new LabDriver({ runId: 'bad id', articleDir: ARTICLE, keep: false }), /lab run id: expected letters, digits and dashes, got "bad id"/);
});

test('prerequisites: one line naming what is missing and the Debian package', () => {
  const linuxRoot = { platform: 'linux' as const, uid: 0, pathVariable: '/usr/bin' };
  assert.match(missingPrerequisite({ ...linuxRoot, platform: 'darwin' }, () => '/x') ?? '', /needs Linux .*this is darwin: use --driver kind$/);
  assert.match(missingPrerequisite({ ...linuxRoot, uid: 1000 }, () => '/x') ?? '', /^the lab driver needs root/);
  const missing = missingPrerequisite(linuxRoot, (program) => (['conntrack', '/usr/sbin/nginx'].includes(program) ? null : `/usr/bin/${program}`));
  assert.equal(
    missing,
    'the lab driver needs conntrack (Debian package conntrack), /usr/sbin/nginx (Debian package nginx-light): apt-get install conntrack nginx-light',
  );
  assert.equal(missingPrerequisite(linuxRoot, (p) => `/usr/bin/${p}`), null);
  assert.equal(findProgram('surely-not-a-program-here', '/usr/bin:/bin'), null);
});

test('plan(): setup and teardown argvs for a dry run, without touching anything', () => {
  const driver = new LabDriver({ runId: 'plan-1', articleDir: ARTICLE, keep: false });
  const { setup, teardown } = driver.plan(experiment);
  const lines = setup.map((argv) => argv.join(' '));
  assert.ok(lines.includes('ip netns add shice-lab-plan-1.bridge'));
  assert.ok(lines.some((l) => l.startsWith('ip netns exec shice-lab-plan-1.pod.default.backend /usr/sbin/nginx -p ')));
  assert.ok(lines.includes(`ip netns exec shice-lab-plan-1.node.worker2 iptables-restore ${runFolder('plan-1')}/nodes/worker2/iptables-restore.1.txt`));
  assert.ok(lines.some((l) => l.includes('health-server.ts --port <healthCheckNodePort of default/s-lb> --namespace default --name s-lb')));
  const deleted = teardown.filter((argv) => argv[1] === 'netns' && argv[2] === 'del').map((argv) => argv[3]);
  const added = setup.filter((argv) => argv[1] === 'netns' && argv[2] === 'add').map((argv) => argv[3]);
  assert.deepEqual([...deleted].sort(), [...added].sort());
  assert.deepEqual(teardown.at(-1), ['rm', '-rf', runFolder('plan-1')]);
  assert.deepEqual(driver.planDeletePod({ pod: 'backend', namespace: 'default', settleNode: 'worker', settleService: 's-lb' }).slice(0, 2), [
    ['kill', '-QUIT', '<pid of nginx of default/backend>'],
    ['ip', 'netns', 'del', 'shice-lab-plan-1.pod.default.backend'],
  ]);
  const resync = driver.planDeletePod({ pod: 'backend', namespace: 'default', settleNode: 'worker', settleService: 's-lb' }).map((argv) => argv.join(' '));
  assert.ok(resync.includes(`ip netns exec shice-lab-plan-1.node.worker iptables-save -t nat -f ${runFolder('plan-1')}/nodes/worker/iptables-save.3.txt`), resync.join('\n'));
  assert.ok(resync.includes(`ip netns exec shice-lab-plan-1.node.worker iptables-restore --noflush --counters ${runFolder('plan-1')}/nodes/worker/iptables-restore.3.txt`));
  assert.deepEqual(driver.execArgv('worker2', ['conntrack', '-L']), ['ip', 'netns', 'exec', 'shice-lab-plan-1.node.worker2', 'conntrack', '-L']);
  assert.equal(existsSync(runFolder('plan-1')), false);
});

// ---------------------------------------------------------------- on the real kernel

const unavailable = missingPrerequisite(
  { platform: process.platform, uid: typeof process.getuid === 'function' ? process.getuid() : null, pathVariable: process.env.PATH },
  (program) => findProgram(program, process.env.PATH),
);
const onCI = process.env.CI === 'true';

function kernelTest(name: string, body: (t: TestContext) => Promise<void>): void {
  const skip = unavailable !== null && !onCI ? `lab prerequisites missing: ${unavailable}` : false;
  test(name, { skip, timeout: 180_000 }, async (t) => {
    if (unavailable !== null) assert.fail(`CI=true and the lab cannot run here: ${unavailable}`);
    await body(t);
  });
}

/** Names from `ip netns list` (`name` or `name (id: N)` per line): the tests read the tool itself, not the driver's way. */
const netnsNames = (output: string): string[] => output.split('\n').map((line) => line.trim().split(/\s+/)[0] ?? '').filter((name) => name !== '');

const newRunId = (what: string): string => `test-${what}-${randomBytes(3).toString('hex')}`;

async function labNamespaces(runId: string): Promise<string[]> {
  const { stdout } = await execa('ip', ['netns', 'list']);
  return netnsNames(stdout).filter((ns) => ns.startsWith(`${LAB_PREFIX}${runId}.`));
}

/** Live processes whose command line mentions the run (its folder or its namespaces). */
function runProcesses(runId: string): number[] {
  const marker = `${LAB_PREFIX}${runId}`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && isAlive(pid);
      } catch {
        return false;
      }
    });
}

async function assertNothingLeft(runId: string): Promise<void> {
  assert.deepEqual(await labNamespaces(runId), [], 'namespaces left behind');
  assert.deepEqual(runProcesses(runId), [], 'processes left behind');
  assert.equal(existsSync(runFolder(runId)), false, 'run folder left behind');
}

function statusAndCount(stdout: string): [number, number] {
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(stdout)?.[1]);
  const body = stdout.slice(stdout.indexOf('\r\n\r\n') + 4);
  return [status, (JSON.parse(body) as { localEndpoints: number }).localEndpoints];
}

/** kube-proxy's input on a node, rebuilt from the topology alone (the backend pod serves every Service). */
function proxyInputFromTopology(topology: Topology, node: string, podsAlive: boolean): ProxyNodeInput {
  const k8sName = (name: string) => topology.nodes.find((n) => n.name === name)!.k8sName;
  return {
    nodeName: k8sName(node),
    clusterCIDR: experiment.cluster.podSubnet,
    services: topology.services.map((s) => ({
      namespace: s.namespace, name: s.name, portName: null, protocol: 'TCP', clusterIP: s.clusterIP, port: s.port,
      nodePort: s.nodePort, healthCheckNodePort: s.healthCheckNodePort, externalTrafficPolicy: s.externalTrafficPolicy,
    })),
    endpoints: podsAlive
      ? topology.services.flatMap((s) => topology.pods.map((p) => ({ namespace: s.namespace, service: s.name, portName: null, ip: p.ip, port: s.targetPort, nodeName: k8sName(p.node) })))
      : [],
  };
}

async function assertRulesMatchKernel(driver: LabDriver, topology: Topology, podsAlive: boolean): Promise<void> {
  const ctx = { signal: new AbortController().signal, log: () => {} };
  for (const node of topology.nodes) {
    const saved = await driver.exec(node.name, ['iptables-save'], ctx);
    const expected = renderFullRestore(buildProxyRules(proxyInputFromTopology(topology, node.name, podsAlive)));
    const lines = (text: string) => text.split('\n').filter((l) => l !== '');
    // iptables-save prints filter before nat, like the generator.
    assert.deepEqual(lines(normalizeSave(saved.stdout)), lines(expected), `${node.name}: the kernel's rules differ from kube-proxy's`);
  }
}

kernelTest("article 074's experiment on the lab shows what the article says", async (t) => {
  const runId = newRunId('e074');
  const logs: string[] = [];
  const ctx = { signal: new AbortController().signal, log: (line: string) => logs.push(line) };
  const driver = new LabDriver({ runId, articleDir: ARTICLE, keep: false });
  const timings: string[] = [];
  try {
    await driver.preflight();
    const versions = await driver.versions();
    for (const tool of ['kernel', 'iptables', 'conntrack', 'nginx', 'curl', 'iproute2', 'node']) assert.ok(versions[tool], `version of ${tool}`);
    assert.match(versions.iptables ?? '', /^iptables v\d+\.\d+\.\d+ \((nf_tables|legacy)\)$/);
    assert.match(versions.nginx ?? '', /^nginx version: nginx\/\d/);

    let start = performance.now();
    const topology = await driver.up(experiment, ctx);
    timings.push(`up ${Math.round(performance.now() - start)} ms`);
    assert.ok(logs.length >= 6, 'one progress line per setup phase');

    const node = (name: string) => topology.nodes.find((n) => n.name === name)!;
    const [cp, worker, worker2] = [node('control-plane'), node('worker'), node('worker2')];
    const backend = topology.pods.find((p) => p.name === 'backend')!;
    assert.equal(backend.node, 'worker');
    const view = topologyView(topology);
    const outcomes = new Map<string, { exitCode: number; stdout: string; stderr: string; durationMs: number; argv: string[] }>();
    for (const step of experiment.steps) {
      start = performance.now();
      if (step.kind === 'exec') {
        const outcome = await driver.exec(step.node, step.command(view), ctx);
        assert.deepEqual(outcome.argv.slice(0, 4), ['ip', 'netns', 'exec', `${LAB_PREFIX}${runId}.node.${step.node}`]);
        assert.deepEqual(outcome.argv.slice(4), step.command(view));
        outcomes.set(step.id, outcome);
      } else {
        await assertRulesMatchKernel(driver, topology, true);
        const outcome = await driver.deletePod(step, ctx);
        assert.deepEqual(outcome.argv, ['ip', 'netns', 'del', `${LAB_PREFIX}${runId}.pod.default.backend`]);
        assert.deepEqual(outcome.command, outcome.argv);
        assert.equal(outcome.exitCode, 0);
        outcomes.set(step.id, outcome);
        await assertRulesMatchKernel(driver, topology, false);
      }
      timings.push(`${step.id} ${Math.round(performance.now() - start)} ms`);
    }
    const get = (id: string) => outcomes.get(id)!;
    const gateway = worker.podCIDR.replace(/0\/24$/, '1');

    // Cluster: the backend never sees the client; via worker it sees worker's pod gateway, via worker2 worker2 itself.
    assert.equal(get('cluster-via-worker').exitCode, 0);
    assert.equal(get('cluster-via-worker').stdout, `client=${gateway}\n`);
    assert.equal(get('cluster-via-worker2').stdout, `client=${worker2.internalIP}\n`);

    // worker2's conntrack: DNAT to the pod on the way in, SNAT to worker2 on the reply.
    const nodePort = view.nodePort('s-cluster');
    const pair = new RegExp(
      `^tcp +6 \\d+ TIME_WAIT src=${cp.internalIP} dst=${worker2.internalIP} sport=\\d+ dport=${nodePort} src=${backend.ip} dst=${worker2.internalIP} sport=80 dport=\\d+ \\[ASSURED\\] mark=0 use=1$`,
      'm',
    );
    assert.match(get('conntrack-worker2').stdout, pair);
    assert.match(get('conntrack-worker2').stderr, /flow entries have been shown/);

    // Local: the source survives where the backend runs; elsewhere the packet is dropped and curl times out.
    assert.equal(get('local-via-worker').stdout, `client=${cp.internalIP}\n`);
    const dropped = get('local-via-worker2');
    assert.equal(dropped.exitCode, 28);
    assert.equal(dropped.stdout, '');
    assert.match(dropped.stderr, /curl: \(28\) /);
    assert.ok(dropped.durationMs >= 2900 && dropped.durationMs < 5000, `timed out after ${dropped.durationMs} ms`);
    assert.ok(
      get('filter-worker2').stdout.includes(
        `-A KUBE-EXTERNAL-SERVICES -p tcp -m comment --comment "default/s-local has no local endpoints" -m addrtype --dst-type LOCAL -m tcp --dport ${view.nodePort('s-local')} -j DROP\n`,
      ),
    );

    // The health check: 200 where the backend runs, 503 elsewhere, 503 everywhere after the delete.
    assert.deepEqual(statusAndCount(get('health-worker').stdout), [200, 1]);
    assert.match(get('health-worker').stdout, /\r\nContent-Type: application\/json\r\nX-Content-Type-Options: nosniff\r\nX-Load-Balancing-Endpoint-Weight: 1\r\n/);
    assert.deepEqual(statusAndCount(get('health-worker2').stdout), [503, 0]);
    assert.deepEqual(statusAndCount(get('health-control-plane').stdout), [503, 0]);
    assert.deepEqual(statusAndCount(get('health-worker-after-delete').stdout), [503, 0]);
    assert.ok(!get('health-worker').stdout.endsWith('\n'), 'no trailing newline after the JSON body');
  } finally {
    const start = performance.now();
    await driver.down(ctx);
    timings.push(`down ${Math.round(performance.now() - start)} ms`);
    t.diagnostic(timings.join(', '));
  }
  await assertNothingLeft(runId);
  await driver.down(ctx); // idempotent
});

/** A copy of article 074 whose backend config nginx refuses: up() fails after the network is built. */
function brokenArticle(): { dir: string; experiment: Experiment } {
  const dir = mkdtempSync(join(tmpdir(), 'shice-labtest-article-'));
  mkdirSync(join(dir, 'manifests'));
  cpSync(join(ARTICLE, 'manifests', 'services.yaml'), join(dir, 'manifests', 'services.yaml'));
  const backend = readFileSync(join(ARTICLE, 'manifests', 'backend.yaml'), 'utf8').replace('listen 80;', 'listen 80;\n      no_such_directive on;');
  assert.notEqual(backend, readFileSync(join(ARTICLE, 'manifests', 'backend.yaml'), 'utf8'));
  writeFileSync(join(dir, 'manifests', 'backend.yaml'), backend);
  return { dir, experiment };
}

kernelTest('down() after up() failed midway removes everything up() had made', async () => {
  const runId = newRunId('fail');
  const { dir, experiment: broken } = brokenArticle();
  const driver = new LabDriver({ runId, articleDir: dir, keep: false });
  const ctx = { signal: new AbortController().signal, log: () => {} };
  try {
    await assert.rejects(driver.up(broken, ctx), (error: unknown) => {
      assert.ok(error instanceof DriverError, String(error));
      assert.match(error.message, /^nginx of default\/backend exited at start with code 1 \(manifests\/backend\.yaml: document 2 \(Pod backend\)\): .*unknown directive "no_such_directive"/);
      return true;
    });
    assert.equal((await labNamespaces(runId)).length, 5, 'bridge, three nodes and the pod existed when nginx failed');
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
      if (line.startsWith('lab: pod ')) controller.abort(new Error('interrupted by the test'));
    },
  };
  const driver = new LabDriver({ runId, articleDir: ARTICLE, keep: false });
  try {
    await assert.rejects(driver.up(experiment, ctx), /interrupted by the test/);
    assert.ok((await labNamespaces(runId)).length >= 4);
  } finally {
    await driver.down({ log: () => {} });
  }
  await assertNothingLeft(runId);
});

kernelTest('--keep leaves the lab running after the capture exits, recorded as kept; --clean (recoverDeadRuns) removes it, the next capture does not', async () => {
  const runId = newRunId('keep');
  const script = `
    import { LabDriver } from ${JSON.stringify(new URL('../../src/capture/lab/index.ts', import.meta.url).href)};
    import { experiment } from ${JSON.stringify(new URL('../../content/articles/074-external-traffic-policy/experiment.ts', import.meta.url).href)};
    const driver = new LabDriver({ runId: ${JSON.stringify(runId)}, articleDir: ${JSON.stringify(ARTICLE)}, keep: true });
    const topology = await driver.up(experiment, { signal: new AbortController().signal, log: () => {} });
    await driver.down({ log: (line) => console.log(line) });
    console.log(JSON.stringify(topology));
  `;
  try {
    const child = await execa(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 });
    const lines = child.stdout.trim().split('\n');
    assert.match(lines[1] ?? '', /^lab kept: remove it with npm run capture -- --driver lab --clean$/);
    const topology = JSON.parse(lines.at(-1) ?? '{}') as Topology;
    assert.equal((await labNamespaces(runId)).length, 5, 'the kept lab (bridge, nodes, pod) outlived its capture');
    assert.ok(runProcesses(runId).length >= 4, 'nginx and the health-check servers outlived their capture');
    const worker = topology.nodes.find((n) => n.name === 'worker')!;
    const cp = topology.nodes.find((n) => n.name === 'control-plane')!;
    const nodePort = topology.services.find((s) => s.name === 's-local')!.nodePort;
    const curl = await execa('ip', ['netns', 'exec', `${LAB_PREFIX}${runId}.node.control-plane`, 'curl', '--silent', '--max-time', '3', `http://${worker.internalIP}:${nodePort}/`]);
    assert.equal(curl.stdout, `client=${cp.internalIP}`);
    const record = readRecords().runs.find((r) => r.runId === runId);
    assert.equal(record?.kept, true, 'the kept run is recorded as kept');
    assert.equal(record?.namespaces.length, 5);
    const logged: string[] = [];
    assert.deepEqual(await recoverDeadRuns((line) => logged.push(line), { onlyRuns: (id) => id === runId, leaveKept: true }), [], 'the next capture leaves a kept lab up');
    assert.deepEqual(logged, [`left lab run ${runId} up: it was kept with --keep (npm run capture -- --clean removes it)`]);
  } finally {
    const removed = await recoverDeadRuns(() => {}, { onlyRuns: (id) => id === runId });
    assert.ok(removed.includes(`dead lab run ${runId}: removed namespace ${LAB_PREFIX}${runId}.bridge`), removed.join('\n'));
    assert.ok(removed.some((line) => line.includes(': removed process ') && line.includes('nginx')), removed.join('\n'));
    assert.ok(!readRecords().runs.some((r) => r.runId === runId), 'its record is gone with it');
  }
  await assertNothingLeft(runId);
});

kernelTest('ip batches on the kernel: namespaces, their processes and their deletion as ip itself sees them; a failure names its command', async () => {
  const runId = newRunId('batch');
  const [a, b] = [`${LAB_PREFIX}${runId}.node.a`, `${LAB_PREFIX}${runId}.node.b`];
  const dir = mkdtempSync(join(tmpdir(), 'shice-labtest-batch-'));
  const signal = new AbortController().signal;
  let sleeper: number | undefined;
  try {
    const inner = { netns: b, commands: [['link', 'set', 'lo', 'up'], ['addr', 'add', '10.77.0.1/24', 'dev', 'lo'], ['route', 'add', '10.9.0.0/24', 'via', '9.9.9.9']] };
    writeFileSync(join(dir, 'b.ip'), batchInput(inner));
    const root = { netns: null, commands: [['netns', 'add', a], ['netns', 'add', b], ['netns', 'exec', b, 'ip', '-batch', join(dir, 'b.ip')], ['netns', 'add', `${b}-never`]] };
    await assert.rejects(runIpBatch(root, { signal, nested: new Map([[join(dir, 'b.ip'), inner]]) }), (error: unknown) => {
      assert.ok(error instanceof DriverError);
      assert.equal(error.message, `ip -n ${b} route add 10.9.0.0/24 via 9.9.9.9 failed (in ip -batch -): Error: Nexthop has invalid gateway.`);
      return true;
    });
    // ip stopped at the failing line: what came before it is done, what came after is not.
    const listed = netnsNames((await execa('ip', ['netns', 'list'])).stdout).filter((ns) => ns.includes(runId));
    assert.deepEqual(listed.sort(), [a, b]);
    assert.deepEqual((await listNamespaces()).filter((ns) => ns.includes(runId)), [a, b]);
    assert.match((await execa('ip', ['-n', b, '-brief', 'addr', 'show', 'lo'])).stdout, /10\.77\.0\.1\/24/);

    const child = execa('ip', ['netns', 'exec', b, 'sleep', '300'], { detached: true, cleanup: false, reject: false, stdio: 'ignore' });
    sleeper = child.pid;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pids = (name: string) => (execa('ip', ['netns', 'pids', name]).then((r) => r.stdout.split('\n').filter(Boolean).map(Number)));
    const found = namespaceProcesses([a, b, `${b}-never`]);
    assert.deepEqual(found.get(a), await pids(a));
    assert.deepEqual(found.get(b), await pids(b));
    assert.deepEqual(found.get(b), [sleeper]);
    assert.deepEqual(found.get(`${b}-never`), [], 'a namespace that does not exist holds no process');

    process.kill(sleeper!, 'SIGKILL');
    await child;
    assert.deepEqual(await deleteNamespaces([a, `${b}-never`, b]), [a, b], 'one that never existed is not reported as deleted');
    assert.deepEqual((await listNamespaces()).filter((ns) => ns.includes(runId)), []);
    assert.deepEqual(await deleteNamespaces([a]), [], 'deleting again is a no-op');
  } finally {
    if (sleeper !== undefined && isAlive(sleeper)) process.kill(sleeper, 'SIGKILL');
    for (const ns of [a, b]) await execa('ip', ['netns', 'del', ns], { reject: false });
    rmSync(dir, { recursive: true, force: true });
  }
});

kernelTest('recovery removes what a dead run recorded, and only that: processes in its namespaces, its recorded processes, namespaces, folders; live runs stay', async () => {
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
    for (const ns of [staleNs, unrecordedNs, liveNs]) await execa('ip', ['netns', 'add', ns]);
    const inside = execa('ip', ['netns', 'exec', staleNs, 'sleep', '300'], { detached: true, cleanup: false, reject: false, stdio: 'ignore' });
    // A process the run started outside any namespace (its namespace already gone), and one whose pid was reused.
    const outside = execa('sleep', ['301'], { detached: true, cleanup: false, reject: false, stdio: 'ignore' });
    const reused = execa('sleep', ['302'], { detached: true, cleanup: false, reject: false, stdio: 'ignore' });
    started.push(inside.pid!, outside.pid!, reused.pid!);
    await new Promise((resolve) => setTimeout(resolve, 100));
    mkdirSync(staleFolder);
    mkdirSync(liveFolder);
    recordRun({
      runId: stale,
      owner: { pid: 2 ** 22 + 1, startTime: '1' },
      namespaces: [staleNs, `${LAB_PREFIX}${stale}.never-created`],
      processes: [
        { pid: outside.pid!, startTime: processStartTime(outside.pid!), label: 'a recorded sleep' },
        { pid: reused.pid!, startTime: '1', label: 'an earlier process with this pid' },
      ],
      folders: [staleFolder],
    }, registry);
    recordRun({ runId: live, namespaces: [liveNs], processes: [], folders: [liveFolder] }, registry);

    const removed = await recoverDeadRuns(() => {}, { dir: registry, onlyRuns: (id) => id === stale || id === live });
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
    assert.deepEqual(readRecords(registry).runs.map((r) => r.runId), [live], 'the dead run\'s record is gone, the live one stays');
    // A run whose processes make namespaces themselves (a lab kubelet's pods) records its own prefix:
    // those go too; a prefix that is not the run's own is ignored.
    recordRun({ runId: stale, owner: { pid: 2 ** 22 + 1, startTime: '1' }, namespaces: [], namespacePrefix: `${LAB_PREFIX}${stale}.`, processes: [], folders: [] }, registry);
    recordRun({ runId: live, owner: { pid: 2 ** 22 + 1, startTime: '1' }, namespaces: [], namespacePrefix: `${LAB_PREFIX}`, processes: [], folders: [] }, registry);
    const second = await recoverDeadRuns(() => {}, { dir: registry, onlyRuns: (id) => id === stale || id === live });
    assert.deepEqual(second, [`dead lab run ${stale}: removed namespace ${unrecordedNs}`]);
    const after = netnsNames((await execa('ip', ['netns', 'list'])).stdout);
    assert.ok(!after.includes(unrecordedNs));
    assert.ok(after.includes(liveNs), 'a record claiming a prefix that is not its own removes nothing');
  } finally {
    for (const pid of started) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    for (const ns of [staleNs, unrecordedNs, liveNs]) await execa('ip', ['netns', 'del', ns], { reject: false });
    for (const dir of [liveFolder, staleFolder, registry]) rmSync(dir, { recursive: true, force: true });
  }
});

kernelTest("up() refuses a run whose namespaces or folder exist already, and down() leaves them alone", async () => {
  const runId = newRunId('taken');
  const ctx = { signal: new AbortController().signal, log: () => {} };
  const taken = `${LAB_PREFIX}${runId}.bridge`;
  try {
    await execa('ip', ['netns', 'add', taken]);
    const first = new LabDriver({ runId, articleDir: ARTICLE, keep: false });
    await assert.rejects(first.up(experiment, ctx), new RegExp(`^DriverError: lab run ${runId} already has namespaces \\(${taken.replaceAll('.', '\\.')}\\): remove them with npm run capture -- --driver lab --clean$`));
    await first.down(ctx);
    assert.deepEqual(await labNamespaces(runId), [taken]);
    await execa('ip', ['netns', 'del', taken]);

    mkdirSync(runFolder(runId));
    writeFileSync(join(runFolder(runId), 'marker'), 'not the lab’s');
    const second = new LabDriver({ runId, articleDir: ARTICLE, keep: false });
    await assert.rejects(second.up(experiment, ctx), /^DriverError: lab run folder .*EEXIST.*--driver lab --clean$/);
    await second.down(ctx);
    assert.ok(existsSync(join(runFolder(runId), 'marker')), 'a folder up() did not make stays');
  } finally {
    await execa('ip', ['netns', 'del', taken], { reject: false });
    rmSync(runFolder(runId), { recursive: true, force: true });
  }
  assert.deepEqual(await labNamespaces(runId), []);
});

kernelTest('the health-check server answers any path and method, and every answer reads the current state', async () => {
  const runId = newRunId('hc');
  const netns = `${LAB_PREFIX}${runId}.node.hc`;
  const dir = mkdtempSync(join(tmpdir(), 'shice-labtest-hc-'));
  const state = join(dir, 'state.json');
  const ready = join(dir, 'ready');
  const script = fileURLToPath(new URL('../../src/capture/lab/health-server.ts', import.meta.url));
  const port = '31999';
  let server: ReturnType<typeof execa> | undefined;
  const curl = (...args: string[]) => execa('ip', ['netns', 'exec', netns, 'curl', '--silent', ...args], { reject: false, stripFinalNewline: false });
  try {
    await execa('ip', ['netns', 'add', netns]);
    await execa('ip', ['-n', netns, 'link', 'set', 'lo', 'up']);
    writeHealthState(state, { localEndpoints: 2, serviceProxyHealthy: true });
    server = execa('ip', ['netns', 'exec', netns, process.execPath, script, '--port', port, '--namespace', 'default', '--name', 's-lb', '--state', state, '--ready', ready, '--log', join(dir, 'log')], { reject: false });
    for (let i = 0; i < 100 && !existsSync(ready); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(existsSync(ready), `the server did not get ready: ${existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : 'no log'}`);

    const post = await curl('--include', '--request', 'POST', '--data', 'ignored body', `http://127.0.0.1:${port}/any/path?x=1`);
    assert.deepEqual(statusAndCount(post.stdout), [200, 2]);
    assert.match(post.stdout, /\r\nX-Load-Balancing-Endpoint-Weight: 2\r\nDate: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT\r\nContent-Length: \d+\r\n\r\n\{/);

    const head = await curl('--head', `http://127.0.0.1:${port}/`);
    assert.match(head.stdout, /^HTTP\/1\.1 200 OK\r\n[\s\S]*Content-Length: \d+\r\n\r\n$/);

    // Two requests over one kept-alive connection.
    const twice = await curl('--output', '/dev/null', '--output', '/dev/null', '--write-out', '%{num_connects} ', `http://127.0.0.1:${port}/a`, `http://127.0.0.1:${port}/b`);
    assert.equal(twice.stdout, '1 0 ');

    writeHealthState(state, { localEndpoints: 0, serviceProxyHealthy: true });
    assert.deepEqual(statusAndCount((await curl('--include', `http://127.0.0.1:${port}/`)).stdout), [503, 0]);
    rmSync(state);
    const missing = await curl('--include', `http://127.0.0.1:${port}/`);
    assert.deepEqual(statusAndCount(missing.stdout), [503, 0]);
    assert.match(missing.stdout, /"serviceProxyHealthy": false\n\}$/);
    assert.match(readFileSync(join(dir, 'log'), 'utf8'), /state\.json: ENOENT/);
  } finally {
    server?.kill('SIGTERM');
    const result = server === undefined ? undefined : await server;
    await execa('ip', ['netns', 'del', netns], { reject: false });
    rmSync(dir, { recursive: true, force: true });
    if (result !== undefined) assert.equal(result.exitCode, 0, 'stops cleanly on SIGTERM');
  }
});
