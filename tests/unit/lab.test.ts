// The lab's pure pieces: its layout and network, the PKI and the components'
// flags, the Kubernetes binaries' build stamp, the lab kubelet's API objects,
// and the dry-run plan. Nothing here touches the kernel (tests/lab/ does).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { experiment074 as experiment } from '../support/articles.ts';
import { DriverError } from '../../src/capture/provider/node-provider.ts';
import { hostAddress } from '../../src/capture/lab/allocate.ts';
import {
  ADMIN_KUBECONFIG,
  apiserverArgv,
  controllerManagerArgv,
  etcdArgv,
  kubeProxyConfig,
  kubernetesServiceIP,
  schedulerArgv,
  type ControlPlaneInput,
} from '../../src/capture/lab/components.ts';
import { labDriver } from '../../src/capture/lab/index.ts';
import { Cluster } from '../../src/capture/kubernetes/cluster.ts';
import { symbolicTopologyView } from '../../src/experiment/symbolic-view.ts';
import { batchArgv, batchFailure, batchInput, ipArgv } from '../../src/capture/lab/ip-batch.ts';
import {
  buildStamp,
  builtKubeBinDir,
  chooseKubeBinDir,
  kubeBinProblem,
  KUBE_BIN_ENV,
  missingComponents,
  moduleFilesOf,
  versionLdflags,
} from '../../src/capture/machine/kube-bin.ts';
import {
  configMapFiles,
  containerArgv,
  kindnetConflist,
  podHostname,
  labCanRun,
  leaseObject,
  microTime,
  nodeObject,
  nodeStatusPatch,
  pluginInput,
  podIPFromResult,
  podStatus,
} from '../../src/capture/lab/kubelet/objects.ts';
import { buildLabLayout, LabLayoutError } from '../../src/capture/lab/layout.ts';
import { LAB_PREFIX, runFolder, runIdOfNamespace } from '../../src/capture/lab/names.ts';
import { labNetwork, namespaceBatches, namespacesBatch, networkCommands, networkScript } from '../../src/capture/lab/network.ts';
import { nginxMainConfig, nginxPaths } from '../../src/capture/lab/nginx.ts';
import { clientIdentities, kindnetRbac, kubeconfig, pkiPlan } from '../../src/capture/lab/pki.ts';
import { runTogether, settleAll } from '../../src/capture/lab/together.ts';
import { missingPrerequisite } from '../../src/capture/lab/tools.ts';
import { findProgram } from '../../src/capture/machine/kube-bin.ts';
import { HEADLINE_RELEASE, kubeRelease } from '../../src/experiment/kubernetes.ts';

const ARTICLE = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/', import.meta.url));
/** The lab's run of article 074 as the capture builds it, never brought up. */
const labRun = (runId: string, flags: Record<string, string> = {}) =>
  labDriver.create(experiment, { runId, kubernetes: HEADLINE_RELEASE, articleDir: ARTICLE, root: '.', keep: false, flags });

test("article 074's lab layout: kind's node names and addresses, interface names that fit in 15 characters", () => {
  const layout = buildLabLayout(experiment, 'unit-1');
  assert.deepEqual(
    layout.nodes.map((n) => [n.name, n.k8sName, n.role, n.internalIP, n.netns]),
    [
      ['control-plane', 'kx-main-control-plane', 'control-plane', '172.18.0.3', 'shice-lab-unit-1.node.control-plane'],
      ['worker', 'kx-main-worker', 'worker', '172.18.0.2', 'shice-lab-unit-1.node.worker'],
      ['worker2', 'kx-main-worker2', 'worker', '172.18.0.4', 'shice-lab-unit-1.node.worker2'],
    ],
  );
  for (const node of layout.nodes) assert.ok(node.bridgePort.length <= 15, node.bridgePort);
  assert.equal(layout.podNetnsPrefix, 'shice-lab-unit-1.');
  assert.equal(hostAddress('10.244.2.0/24', 1), '10.244.2.1');
  const twoControlPlanes = {
    ...experiment,
    cluster: { ...experiment.cluster, nodes: [...experiment.cluster.nodes, { name: 'cp2', role: 'control-plane' as const }] },
  };
  assert.throws(
    () => buildLabLayout(twoControlPlanes, 'unit-1'),
    (error: unknown) => error instanceof LabLayoutError && /exactly one control-plane node, got 2/.test(error.message),
  );
});

test('every network command stays inside a namespace of the run: none touches the root namespace', () => {
  const layout = buildLabLayout(experiment, 'unit-2');
  const prefix = `${LAB_PREFIX}unit-2.`;
  const network = labNetwork(layout, '172.18.0.0/16');
  const script = networkScript(network, (batch) => `/tmp/x/${batch.netns}.ip`);
  assert.deepEqual(batchArgv(script), ['ip', '-batch', '-']);
  for (const [verb, action, netns, ...rest] of [...namespacesBatch(network).commands, ...script.commands]) {
    assert.equal(verb, 'netns');
    assert.ok(['add', 'exec'].includes(action ?? ''), action);
    assert.ok(netns?.startsWith(prefix), `not confined to the run's namespaces: ${netns}`);
    if (rest[0] === 'ip') assert.deepEqual(rest, ['ip', '-batch', `/tmp/x/${netns}.ip`], 'a nested batch runs inside its own namespace');
  }
  for (const batch of namespaceBatches(network)) assert.ok(batch.netns?.startsWith(prefix), String(batch.netns));
  const lines = networkCommands(network).map((argv) => argv.join(' '));
  for (const argv of networkCommands(network)) {
    const [tool, a, b, c] = argv;
    assert.equal(tool, 'ip', argv.join(' '));
    const netns = a === '-n' ? b : a === 'netns' && ['add', 'exec'].includes(b ?? '') ? c : undefined;
    assert.ok(netns?.startsWith(prefix), `not confined to the run's namespaces: ${argv.join(' ')}`);
    if (argv.includes('peer')) assert.ok(argv[argv.indexOf('peer') + 4]?.startsWith(prefix), `veth peer outside the run: ${argv.join(' ')}`);
  }
  const worker = 'shice-lab-unit-2.node.worker';
  const bridgePort = layout.nodes.find((n) => n.name === 'worker')!.bridgePort;
  assert.ok(
    lines.indexOf(`ip -n shice-lab-unit-2.bridge link add ${bridgePort} type veth peer name eth0 netns ${worker}`) <
      lines.indexOf(`ip -n ${worker} addr add 172.18.0.2/16 dev eth0`),
  );
  assert.ok(lines.includes(`ip netns exec ${worker} sysctl -q -w net.ipv4.ip_forward=1`));
  // Routes to pod CIDRs and pod interfaces are not the network's: kindnetd's and CNI's (the lab kubelet's) once the API allocated them.
  assert.ok(!lines.some((l) => l.includes('10.244.')), lines.join('\n'));
});

test("the run's PKI: kubeadm's subjects, the API server's names and addresses, nothing but the run folder", () => {
  const plan = pkiPlan('/tmp/run/pki', { apiserverIPs: ['172.18.0.3', '10.96.0.1'], apiserverNames: ['kubernetes'], nodeNames: ['kx-main-worker'] });
  assert.equal(plan.first.length, 2, 'the CA and the ServiceAccount key come first');
  const all = [...plan.first, ...plan.then];
  for (const argv of all) {
    assert.equal(argv[0], 'openssl');
    for (const word of argv.filter((w) => w.startsWith('/') && !/^\/(CN|O)=/.test(w))) assert.ok(word.startsWith('/tmp/run/pki/'), word);
  }
  const subjects = all.filter((argv) => argv.includes('-subj')).map((argv) => argv[argv.indexOf('-subj') + 1]);
  assert.deepEqual(subjects, [
    '/CN=kubernetes',
    '/CN=kube-apiserver',
    '/O=system:masters/CN=kubernetes-admin',
    '/CN=system:kube-controller-manager',
    '/CN=system:kube-scheduler',
    '/CN=system:kube-proxy',
    '/CN=kindnet',
    '/O=system:nodes/CN=system:node:kx-main-worker',
  ]);
  const apiserver = all.find((argv) => argv.includes('/CN=kube-apiserver'))!;
  assert.ok(apiserver.includes('subjectAltName=IP:172.18.0.3,IP:10.96.0.1,DNS:kubernetes'));
  assert.ok(apiserver.includes('extendedKeyUsage=serverAuth'));
  assert.deepEqual(
    clientIdentities(['n1']).map((c) => c.file),
    ['admin', 'controller-manager', 'scheduler', 'kube-proxy', 'kindnet', 'kubelet-n1'],
  );
  assert.equal(plan.config.content, '[req]\nprompt = no\ndistinguished_name = dn\n[dn]\n');
  const config = kubeconfig({ cluster: 'kx-main', server: 'https://172.18.0.3:6443', user: 'kubernetes-admin', pkiRelative: '../pki', client: 'admin' });
  assert.match(config, /^ {4}certificate-authority: \.\.\/pki\/ca\.crt$/m);
  assert.match(config, /^ {4}client-key: \.\.\/pki\/admin\.key$/m);
  assert.match(config, /^current-context: kubernetes-admin@kx-main$/m);
  assert.match(kindnetRbac(), /resources: \[nodes\]\n {2}verbs: \[list, watch, get\]/);
});

test('the components listen inside the control-plane node only: etcd on its loopback, the API server on its address', () => {
  const input: ControlPlaneInput = {
    binDir: '/bin-dir',
    folder: '/tmp/run',
    clusterName: 'kx-main',
    nodeName: 'kx-main-control-plane',
    nodeIP: '172.18.0.3',
    podSubnet: '10.244.0.0/16',
    serviceSubnet: '10.96.0.0/16',
  };
  const etcd = etcdArgv(input);
  assert.equal(etcd[0], '/bin-dir/etcd');
  assert.ok(etcd.includes('--listen-client-urls=http://127.0.0.1:2379'));
  assert.ok(etcd.includes('--listen-peer-urls=http://127.0.0.1:2380'));
  assert.ok(etcd.includes('--listen-metrics-urls='));
  const apiserver = apiserverArgv(input);
  assert.ok(apiserver.includes('--bind-address=172.18.0.3') && apiserver.includes('--secure-port=6443'));
  assert.ok(apiserver.includes('--service-cluster-ip-range=10.96.0.0/16'));
  assert.ok(apiserver.includes('--authorization-mode=Node,RBAC'));
  const cm = controllerManagerArgv(input);
  for (const flag of ['--allocate-node-cidrs=true', '--cluster-cidr=10.244.0.0/16', '--controllers=*,bootstrapsigner,tokencleaner', '--bind-address=127.0.0.1'])
    assert.ok(cm.includes(flag), flag);
  assert.ok(schedulerArgv(input).includes('--bind-address=127.0.0.1'));
  for (const argv of [etcd, apiserver, cm, schedulerArgv(input)]) {
    assert.ok(!argv.some((a) => a.includes('0.0.0.0')), `listens on every address: ${argv.join(' ')}`);
  }
  assert.equal(kubernetesServiceIP('10.96.0.0/16'), '10.96.0.1');
  const proxy = kubeProxyConfig({ mode: 'iptables', podSubnet: '10.244.0.0/16', kubeconfig: '/tmp/run/kubeconfig/kube-proxy.conf' });
  assert.match(proxy, /^mode: iptables$/m);
  assert.match(proxy, /^clusterCIDR: 10\.244\.0\.0\/16$/m);
  assert.match(proxy, /^ {2}maxPerCore: 0$/m);
  assert.match(proxy, /^iptables:\n {2}minSyncPeriod: 1s$/m);
  assert.doesNotMatch(proxy, /tcpBeLiberal/);
  assert.match(kubeProxyConfig({ mode: 'nftables', podSubnet: '10.244.0.0/16', kubeconfig: 'k' }), /^ {2}tcpBeLiberal: true$/m);
  assert.equal(ADMIN_KUBECONFIG, 'kubeconfig/admin.conf', 'relative: no folder of this machine in a step');
});

test('the Kubernetes binaries: a stamp that changes with what the build depends on, the release version linked in, one line for what is missing', () => {
  const files = { 'go.mod': 'module m', 'go.sum': 'x', 'main.go': 'package main' };
  const headline = HEADLINE_RELEASE;
  const older = kubeRelease('v1.34');
  const stamp = buildStamp(files, 'go1.26.8', headline);
  assert.equal(buildStamp({ 'main.go': 'package main', 'go.sum': 'x', 'go.mod': 'module m' }, 'go1.26.8', headline), stamp, 'file order does not matter');
  assert.notEqual(buildStamp({ ...files, 'go.sum': 'y' }, 'go1.26.8', headline), stamp);
  assert.notEqual(buildStamp(files, 'go1.27.3', headline), stamp);
  assert.notEqual(buildStamp(files, 'go1.26.8', older), stamp, 'each release its own stamp');
  assert.notEqual(builtKubeBinDir(older), builtKubeBinDir(headline), 'each release its own folder');
  assert.deepEqual(moduleFilesOf(older), ['v1.34.mod', 'v1.34.sum', 'main.go']);
  assert.deepEqual(moduleFilesOf(headline), ['go.mod', 'go.sum', 'main.go']);
  const flags = versionLdflags('v1.37.2', '2026-12-02T00:00:00Z');
  assert.match(flags, /-X k8s\.io\/component-base\/version\.gitVersion=v1\.37\.2/);
  assert.match(flags, /-X k8s\.io\/client-go\/pkg\/version\.gitMinor=37/);
  assert.match(flags, /-X k8s\.io\/component-base\/version\.gitCommit= /);
  assert.throws(() => versionLdflags('1.37', 'd'), /expected vMAJOR\.MINOR\.PATCH/);
  assert.deepEqual(chooseKubeBinDir('/opt/k8s', { [KUBE_BIN_ENV]: '/env' }, headline), { dir: '/opt/k8s', from: 'option', release: headline });
  assert.deepEqual(chooseKubeBinDir(null, { [KUBE_BIN_ENV]: '/env' }, headline), { dir: '/env', from: 'environment', release: headline });
  assert.equal(chooseKubeBinDir(null, {}, headline).from, 'built');
  assert.equal(chooseKubeBinDir(null, {}, older).dir, builtKubeBinDir(older));
  const missing = missingComponents('/opt/k8s', (path) => !path.endsWith('/etcd') && !path.endsWith('/kube-proxy'));
  assert.deepEqual(missing, ['etcd', 'kube-proxy']);
  assert.equal(
    kubeBinProblem({ dir: '/opt/k8s', from: 'option', release: headline }, missing),
    'the lab driver needs etcd, kube-proxy in /opt/k8s (from --kube-bin): put the official v1.37.2 binaries there, or drop the option and run npm run lab:build',
  );
  assert.match(
    kubeBinProblem(chooseKubeBinDir(null, {}, headline), ['kubectl']) ?? '',
    /^the lab driver needs kubectl in .*\(built by npm run lab:build\): run npm run lab:build \(needs Go\)/,
  );
  assert.match(
    kubeBinProblem(chooseKubeBinDir(null, {}, older), ['kubectl']) ?? '',
    /^the lab driver needs kubectl in .*\/v1\.34\.4\/bin \(built by npm run lab:build -- --k8s v1\.34\): run npm run lab:build -- --k8s v1\.34 \(needs Go\)/,
  );
  assert.equal(kubeBinProblem({ dir: '/x', from: 'environment', release: headline }, []), null);
});

test("the lab kubelet's Node: kubelet's labels, kubeadm's taint on the control-plane, NotReady until it has a network", () => {
  const resources = { cpu: '2', memory: '24683584Ki', pods: '110', 'ephemeral-storage': '1000Ki' };
  const worker = nodeObject({ name: 'kx-main-worker', ip: '172.18.0.2', role: 'worker', kernel: '6.18', arch: 'x64', resources }, 'T');
  const cp = nodeObject({ name: 'kx-main-control-plane', ip: '172.18.0.3', role: 'control-plane', kernel: '6.18', arch: 'x64', resources }, 'T');
  const labels = (worker.metadata as { labels: Record<string, string> }).labels;
  assert.equal(labels['kubernetes.io/hostname'], 'kx-main-worker');
  assert.equal(labels['kubernetes.io/arch'], 'amd64');
  assert.ok(
    !('node-role.kubernetes.io/control-plane' in (cp.metadata as { labels: Record<string, string> }).labels),
    'NodeRestriction forbids a node to set its role',
  );
  assert.deepEqual((cp.spec as { taints: unknown[] }).taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
  assert.deepEqual(worker.spec, {});
  const status = worker.status as {
    addresses: unknown[];
    capacity: unknown;
    allocatable: unknown;
    conditions: { type: string; status: string }[];
    nodeInfo: { kubeletVersion: string };
  };
  assert.deepEqual([status.capacity, status.allocatable], [resources, resources], 'the capacity it was given, nothing reserved');
  assert.deepEqual(status.addresses[0], { type: 'InternalIP', address: '172.18.0.2' });
  assert.equal(status.conditions.find((c) => c.type === 'Ready')?.status, 'False');
  assert.equal(status.nodeInfo.kubeletVersion, 'shice-lab-kubelet', 'it does not pass for kubelet');
  const ready = nodeStatusPatch(true, 'T') as { status: { conditions: { type: string; status: string }[] } };
  assert.equal(ready.status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(microTime(new Date('2026-12-02T17:00:00.123Z')), '2026-12-02T17:00:00.123000Z');
  assert.equal((leaseObject('n', 'uid-1', new Date(0)).spec as { holderIdentity: string }).holderIdentity, 'n');
});

test("the lab kubelet's pods: kindnet's CNI chain, the address from the CNI result, the ConfigMap files, the status it reports", () => {
  const list = kindnetConflist('10.244.1.0/24', '/run/x/ipam', 1500);
  const [ptp, portmap] = list.plugins as Record<string, unknown>[];
  assert.deepEqual(ptp, {
    type: 'ptp',
    ipMasq: false,
    ipam: { type: 'host-local', dataDir: '/run/x/ipam', routes: [{ dst: '0.0.0.0/0' }], ranges: [[{ subnet: '10.244.1.0/24' }]] },
    mtu: 1500,
  });
  assert.deepEqual(pluginInput(list, portmap!, { ips: [] }), {
    type: 'portmap',
    capabilities: { portMappings: true },
    name: 'kindnet',
    cniVersion: '0.3.1',
    prevResult: { ips: [] },
  });
  // ptp's answer (containernetworking-plugins 1.1.1) on this kernel.
  const result = {
    cniVersion: '0.3.1',
    interfaces: [
      { name: 'veth1', mac: 'aa' },
      { name: 'eth0', sandbox: '/var/run/netns/p' },
    ],
    ips: [{ version: '4', interface: 1, address: '10.244.1.2/24', gateway: '10.244.1.1' }],
    routes: [{ dst: '0.0.0.0/0' }],
    dns: {},
  };
  assert.equal(podIPFromResult(result), '10.244.1.2');
  assert.throws(() => podIPFromResult({ ips: [] }), /field ips: expected an IPv4 address/);
  const pod = {
    spec: {
      volumes: [
        { name: 'conf', configMap: { name: 'backend-nginx' } },
        { name: 'token', projected: {} },
      ],
    },
  };
  const container = {
    volumeMounts: [
      { name: 'conf', mountPath: '/etc/nginx/conf.d' },
      { name: 'token', mountPath: '/var/run/secrets' },
    ],
  };
  const files = configMapFiles(pod, container, new Map([['backend-nginx', { data: { 'default.conf': 'server {}' } }]]));
  assert.deepEqual(files, [{ containerPath: '/etc/nginx/conf.d/default.conf', content: 'server {}' }]);
  assert.ok(labCanRun('nginx:1.27-alpine') && labCanRun('docker.io/library/nginx@sha256:abc') && labCanRun('nginx'));
  assert.ok(!labCanRun('httpd:2.4') && !labCanRun('nginx-exporter:1'));
  const status = podStatus({
    phase: 'Running',
    podIP: '10.244.1.2',
    hostIP: '172.18.0.2',
    startTime: 'S',
    ready: true,
    now: 'N',
    container: {
      name: 'nginx',
      image: '/usr/sbin/nginx (nginx version: nginx/1.22.1; Debian package nginx 1.22.1-9+deb12u11)',
      pid: 42,
      state: { running: { startedAt: 'S' } },
    },
  }) as {
    status: { podIP: string; conditions: { type: string; status: string }[]; containerStatuses: { image: string; ready: boolean; containerID: string }[] };
  };
  assert.equal(status.status.podIP, '10.244.1.2');
  assert.equal(status.status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(
    status.status.containerStatuses[0]?.image,
    '/usr/sbin/nginx (nginx version: nginx/1.22.1; Debian package nginx 1.22.1-9+deb12u11)',
    'the image that really ran',
  );
  assert.equal(status.status.containerStatuses[0]?.containerID, 'shice-lab://42');
});

test("the lab kubelet's containers: a UTS namespace whose hostname is the pod's, the pod's data never in a script", () => {
  assert.equal(podHostname({ metadata: { name: 'web-7c9d8-x2k4p' }, spec: {} }), 'web-7c9d8-x2k4p');
  assert.equal(podHostname({ metadata: { name: 'web-x' }, spec: { hostname: 'alpha' } }), 'alpha', 'spec.hostname wins, as kubelet has it');
  assert.equal(podHostname({ metadata: { name: `${'a'.repeat(62)}-b` }, spec: {} }), 'a'.repeat(62), 'cut to a DNS label, no trailing dash');
  const argv = containerArgv('ns1', 'web-x', ['/usr/sbin/nginx', '-c', 'a b;c']);
  assert.deepEqual(argv.slice(0, 6), ['ip', 'netns', 'exec', 'ns1', 'unshare', '--uts']);
  assert.deepEqual(argv.slice(-4), ['web-x', '/usr/sbin/nginx', '-c', 'a b;c'], 'hostname and argv are positional arguments');
  assert.throws(() => containerArgv('ns1', '$(reboot)', ['x']), /hostname "\$\(reboot\)": expected a DNS name/);
  // Real output: the same argv without the network namespace, under unshare on this kernel (root only).
  if (process.getuid?.() === 0) {
    const run = spawnSync(argv[4]!, [...argv.slice(5, -3), 'hostname'], { encoding: 'utf8' });
    assert.equal(run.stdout, 'web-x\n', run.stderr);
  }
});

test("a batch refuses words ip's batch reader would split or cut, and a failure names the command it stopped at", () => {
  const batch = {
    netns: 'shice-lab-u.node.worker',
    commands: [
      ['link', 'set', 'lo', 'up'],
      ['addr', 'add', '10.1.0.1/24', 'dev', 'lo'],
      ['route', 'add', '10.9.0.0/24', 'via', '9.9.9.9'],
    ],
  };
  assert.deepEqual(ipArgv(null, ['netns', 'add', 'a']), ['ip', 'netns', 'add', 'a']);
  assert.throws(
    () => batchInput({ netns: 'x', commands: [['link', 'set', 'a b', 'up']] }),
    /^Error: ip batch for x: "link set a b up": expected words without spaces, quotes, backslashes or #, got "a b"$/,
  );
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
  const root = {
    netns: null,
    commands: [
      ['netns', 'add', 'n1'],
      ['netns', 'exec', 'n1', 'ip', '-batch', '/run/n1.ip'],
      ['netns', 'exec', 'n1', 'sysctl', '-q', '-w', 'net.ipv4.nosuch=1'],
    ],
  };
  const inner = {
    netns: 'n1',
    commands: [
      ['link', 'set', 'lo', 'up'],
      ['link', 'set', 'nosuch', 'up'],
    ],
  };
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
      signal.addEventListener(
        'abort',
        () =>
          setTimeout(() => {
            events.push(`${name} stopped: ${(signal.reason as Error).message}`);
            reject(signal.reason);
          }, 5),
        { once: true },
      );
    });
  const failing = async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    events.push('etcd failed');
    throw new DriverError('etcd exited at start');
  };
  await assert.rejects(runTogether([waitForAbort('pki'), failing, waitForAbort('net')], new AbortController().signal), /^DriverError: etcd exited at start$/);
  assert.deepEqual(
    events,
    ['etcd failed', 'pki stopped: etcd exited at start', 'net stopped: etcd exited at start'],
    'the error comes after every task has stopped',
  );
  const outside = new AbortController();
  const running = runTogether([waitForAbort('a'), waitForAbort('b')], outside.signal);
  outside.abort(new Error('Ctrl-C'));
  await assert.rejects(running, /^Error: Ctrl-C$/);
  const settled: string[] = [];
  const slow = new Promise<void>((resolve) =>
    setTimeout(() => {
      settled.push('slow');
      resolve();
    }, 20),
  );
  await assert.rejects(settleAll([Promise.reject(new Error('first')), slow, Promise.reject(new Error('second'))]), /^Error: first$/);
  assert.deepEqual(settled, ['slow'], 'settleAll waits for everything before it throws');
});

test('prerequisites: one line naming what is missing and the Debian package', () => {
  const linuxRoot = { platform: 'linux' as const, uid: 0, pathVariable: '/usr/bin' };
  assert.match(missingPrerequisite({ ...linuxRoot, platform: 'darwin' }, () => '/x') ?? '', /needs Linux .*this is darwin: use --driver kind$/);
  assert.match(missingPrerequisite({ ...linuxRoot, uid: 1000 }, () => '/x') ?? '', /^the lab driver needs root/);
  const missing = missingPrerequisite(linuxRoot, (program) =>
    ['conntrack', '/usr/lib/cni/ptp', '/usr/lib/cni/portmap'].includes(program) ? null : `/usr/bin/${program}`,
  );
  assert.equal(
    missing,
    'the lab driver needs conntrack (Debian package conntrack), /usr/lib/cni/ptp (Debian package containernetworking-plugins), /usr/lib/cni/portmap (Debian package containernetworking-plugins): apt-get install conntrack containernetworking-plugins',
  );
  assert.equal(
    missingPrerequisite(linuxRoot, (p) => `/usr/bin/${p}`),
    null,
  );
  assert.equal(findProgram('surely-not-a-program-here', '/usr/bin:/bin'), null);
});

test('plan(): the whole bring-up and teardown as argvs for a dry run, without touching anything', () => {
  const run = labRun('plan-1', { 'kube-bin': '/opt/k8s' });
  const driver = run.provider;
  const own = driver.plan();
  // The cluster's plan: the lab's own bring-up, then the cluster's API calls, the steps and the lab's teardown.
  const { setup, steps, teardown } = new Cluster(run, experiment, { articleDir: ARTICLE }).plan(symbolicTopologyView);
  assert.deepEqual(setup.slice(0, own.setup.length), own.setup);
  assert.deepEqual(teardown, own.teardown);
  const lines = setup.map((argv) => argv.join(' '));
  const cp = 'ip netns exec shice-lab-plan-1.node.control-plane';
  const at = (prefix: string) => {
    const index = lines.findIndex((l) => l.startsWith(prefix));
    assert.ok(index >= 0, `missing: ${prefix}\n${lines.join('\n')}`);
    return index;
  };
  assert.ok(at('ip netns add shice-lab-plan-1.bridge') < at('openssl req'));
  assert.ok(at(`${cp} /opt/k8s/etcd `) < at(`${cp} /opt/k8s/kube-apiserver `));
  assert.ok(at(`${cp} /opt/k8s/kube-apiserver `) < at(`${cp} /opt/k8s/kube-controller-manager `));
  assert.ok(
    at('nsenter --net=/var/run/netns/shice-lab-plan-1.node.worker -- env NODE_COMPILE_CACHE=') <
      at('ip netns exec shice-lab-plan-1.node.worker /opt/k8s/kube-proxy --config='),
  );
  assert.ok(
    at(`${cp} kubectl --kubeconfig kubeconfig/admin.conf apply -f `) <
      at(`${cp} kubectl --kubeconfig kubeconfig/admin.conf wait --for=condition=Ready node --all`),
  );
  assert.ok(
    at('ip netns exec shice-lab-plan-1.node.worker /opt/k8s/kube-proxy --config=') < at(`${cp} kubectl --kubeconfig kubeconfig/admin.conf apply -f ${ARTICLE}`),
    "the article's manifests once the nodes are up",
  );
  assert.deepEqual(teardown.at(-1), ['rm', '-rf', runFolder('plan-1')]);
  const deleted = teardown.filter((argv) => argv[1] === 'netns' && argv[2] === 'del' && !argv[3]!.startsWith('<')).map((argv) => argv[3]);
  const added = setup.filter((argv) => argv[1] === 'netns' && argv[2] === 'add').map((argv) => argv[3]);
  assert.deepEqual([...deleted].sort(), [...added].sort());
  assert.deepEqual(steps.find((s) => s.step.kind === 'delete-pod')!.argvs[0], [
    'ip',
    'netns',
    'exec',
    'shice-lab-plan-1.node.control-plane',
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
  assert.deepEqual(driver.nodeArgv('worker2', ['conntrack', '-L']), ['ip', 'netns', 'exec', 'shice-lab-plan-1.node.worker2', 'conntrack', '-L']);
  assert.throws(() => driver.nodeArgv('worker3', ['true']), /lab: no node "worker3" \(nodes: control-plane, worker, worker2\)/);
  assert.equal(existsSync(runFolder('plan-1')), false);
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
  assert.throws(() => labRun('bad id'), /lab run id: expected letters, digits and dashes, got "bad id"/);
});
