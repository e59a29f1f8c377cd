// The lab kubelet: the one stand-in of the lab, one process per node, run
// inside that node's network namespace. It does what kubelet, the container
// runtime and kindnetd do for the experiment and nothing more:
// - registers the Node (addresses, kubeadm's control-plane label and taint),
//   reports it Ready once the node has a podCIDR and renews its Lease;
// - programs routes to the other nodes' pod CIDRs, as kindnetd does;
// - runs the pods the scheduler binds here: a network namespace set up by the
//   real CNI plugins (ptp + host-local + portmap, kindnet's configuration),
//   the container's process (Debian's nginx for an nginx image) with the
//   ConfigMap files it mounts, its readiness probe, and its status;
// - on deletion, stops the container with the image's stop signal, tears the
//   network down through CNI and removes the pod from the API, as kubelet does.
//
//   node src/capture/lab/kubelet/main.ts --node NAME --ip IP --role ROLE
//     --kubeconfig FILE --kindnet-kubeconfig FILE --state DIR --run-folder DIR --netns-prefix PREFIX
//     --cni-bin DIR --ready FILE [--join-after FILE]
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { arch, release } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { NGINX_BINARY, nginxMainConfig, nginxPaths } from '../nginx.ts';
import { ApiClient, ApiError, readKubeconfig, type WatchEvent } from './api.ts';
import {
  configMapFiles,
  configMapNames,
  containerArgv,
  podHostname,
  kindnetConflist,
  labCanRun,
  leaseObject,
  LOOPBACK_CONF,
  microTime,
  nodeObject,
  nodeStatusPatch,
  pluginInput,
  podIPFromResult,
  podStatus,
  type Json,
  type PodStatusInput,
} from './objects.ts';

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    node: { type: 'string' },
    ip: { type: 'string' },
    role: { type: 'string' },
    kubeconfig: { type: 'string' },
    'kindnet-kubeconfig': { type: 'string' },
    state: { type: 'string' },
    'run-folder': { type: 'string' },
    'netns-prefix': { type: 'string' },
    'cni-bin': { type: 'string' },
    ready: { type: 'string' },
    'join-after': { type: 'string' },
  },
  strict: true,
});
for (const key of ['node', 'ip', 'role', 'kubeconfig', 'kindnet-kubeconfig', 'state', 'run-folder', 'netns-prefix', 'cni-bin', 'ready'] as const) {
  if (args[key] === undefined) {
    process.stderr.write(`lab kubelet: --${key} is required\n`);
    process.exit(2);
  }
}
const NODE = args.node as string;
const NODE_IP = args.ip as string;
const ROLE = args.role === 'control-plane' ? 'control-plane' : 'worker';
const STATE = args.state as string;
const RUN_FOLDER = args['run-folder'] as string;
const NETNS_PREFIX = args['netns-prefix'] as string;
const CNI_BIN = args['cni-bin'] as string;
const HEARTBEAT_MS = 10_000;
/** kubelet's default grace when a pod names none. */
const DEFAULT_GRACE_S = 30;
const MTU = 1500;

const api = new ApiClient(readKubeconfig(args.kubeconfig as string));
/** kindnetd's own identity: it lists every node, which a node may not. */
const kindnetApi = new ApiClient(readKubeconfig(args['kindnet-kubeconfig'] as string));
const stop = new AbortController();
const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const enc = encodeURIComponent;

/** Retries a call until it succeeds: the API server may not be up yet. */
async function retry<T>(what: string, call: () => Promise<T>, intervalMs = 100): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (stop.signal.aborted) throw error;
      if (attempt % 50 === 1) log(`${what}: ${(error as Error).message} (retrying)`);
      await sleep(intervalMs);
    }
  }
}

// --- the node --------------------------------------------------------------

let nodeUid = '';
let podCIDR: string | null = null;
let conflist: Json | null = null;

async function register(): Promise<void> {
  const node = nodeObject({ name: NODE, ip: NODE_IP, role: ROLE, kernel: release(), arch: arch() }, now());
  const created = await retry('register the node', async () => {
    const answer = await api.call('POST', '/api/v1/nodes', node);
    if (answer.status === 409) return api.must('GET', `/api/v1/nodes/${enc(NODE)}`);
    if (answer.status !== 201) throw new ApiError(`POST /api/v1/nodes: ${answer.status} ${JSON.stringify(answer.body)}`, answer.status);
    return answer.body as Json;
  });
  nodeUid = String((created.metadata as Json).uid);
  log(`registered node ${NODE} (${NODE_IP})`);
  writeFileSync(join(STATE, 'registered'), `${nodeUid}\n`);
  await retry('create the lease', async () => {
    const answer = await api.call('POST', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases`, leaseObject(NODE, nodeUid, new Date()));
    if (answer.status !== 201 && answer.status !== 409) throw new ApiError(`lease: ${answer.status} ${JSON.stringify(answer.body)}`, answer.status);
  });
}

async function heartbeat(ready: boolean): Promise<void> {
  await api.must('PATCH', `/api/v1/nodes/${enc(NODE)}/status`, nodeStatusPatch(ready, now()), 'application/strategic-merge-patch+json');
  await api.must(
    'PATCH',
    `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${enc(NODE)}`,
    { spec: { renewTime: microTime(new Date()) } },
    'application/merge-patch+json',
  );
}

/** kindnetd's routes: every other node's pod CIDR via that node's address. */
const routed = new Map<string, string>();
async function routeOtherNodes(node: Json): Promise<void> {
  const name = String((node.metadata as Json).name);
  const cidr = (node.spec as Json | undefined)?.podCIDR;
  const address = ((node.status as Json | undefined)?.addresses as { type: string; address: string }[] | undefined)?.find((a) => a.type === 'InternalIP')?.address;
  if (typeof cidr !== 'string' || address === undefined) return;
  if (name === NODE) {
    if (podCIDR === null) await becomeReady(cidr);
    return;
  }
  if (routed.get(cidr) === address) return;
  await run('ip', ['route', 'replace', cidr, 'via', address]);
  routed.set(cidr, address);
  log(`route ${cidr} via ${address} (${name})`);
}

/** With a podCIDR the network plugin can work: write its configuration, report Ready. */
async function becomeReady(cidr: string): Promise<void> {
  podCIDR = cidr;
  conflist = kindnetConflist(cidr, join(STATE, 'cni-ipam-state'), MTU);
  mkdirSync(join(STATE, 'cni'), { recursive: true });
  writeFileSync(join(STATE, 'cni', '10-kindnet.conflist'), `${JSON.stringify(conflist, null, 2)}\n`);
  await retry('report Ready', () => heartbeat(true));
  log(`podCIDR ${cidr}: CNI configured, node Ready`);
  writeFileSync(args.ready as string, `${process.pid}\n`);
  for (const pod of waiting.splice(0)) void syncPod(pod);
}

async function watchNodes(): Promise<void> {
  while (!stop.signal.aborted) {
    try {
      await kindnetApi.watch('/api/v1/nodes?watch=true', (event) => {
        if (event.type === 'ADDED' || event.type === 'MODIFIED') void routeOtherNodes(event.object).catch((e) => log(`route: ${(e as Error).message}`));
      }, stop.signal);
    } catch (error) {
      if (!stop.signal.aborted) log(`node watch: ${(error as Error).message}`);
      await sleep(200);
    }
  }
}

// --- pods ------------------------------------------------------------------

interface RunningPod {
  uid: string;
  namespace: string;
  name: string;
  netns: string;
  ip: string | null;
  pid: number | null;
  exited: Promise<void> | null;
  startedAt: string;
  ready: boolean;
  stopping: boolean;
  probe: NodeJS.Timeout | null;
}

const pods = new Map<string, RunningPod>();
/** Pods bound before the node had its network. */
const waiting: Json[] = [];
let nginxVersion: string | null = null;

const key = (pod: Json) => `${(pod.metadata as Json).namespace}/${(pod.metadata as Json).name}`;
const cniEnv = (command: string, p: { uid: string; netns: string; namespace: string; name: string }) => ({
  ...process.env,
  CNI_COMMAND: command,
  CNI_CONTAINERID: p.uid,
  CNI_NETNS: `/var/run/netns/${p.netns}`,
  CNI_IFNAME: 'eth0',
  CNI_PATH: CNI_BIN,
  CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${p.namespace};K8S_POD_NAME=${p.name};K8S_POD_INFRA_CONTAINER_ID=${p.uid}`,
});

/** Runs one CNI plugin with its config on stdin; resolves with its JSON result. */
function cni(command: 'ADD' | 'DEL', plugin: Json, pod: RunningPod, ifname = 'eth0'): Promise<Json> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(join(CNI_BIN, String(plugin.type)), [], { env: { ...cniEnv(command, pod), CNI_IFNAME: ifname } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`CNI ${plugin.type} ${command}: ${stdout.trim() || stderr.trim() || error.message}`));
      else resolvePromise(stdout.trim() === '' ? {} : (JSON.parse(stdout) as Json));
    });
    child.stdin?.end(JSON.stringify(plugin));
  });
}

async function setUpNetwork(pod: RunningPod): Promise<string> {
  await run('ip', ['netns', 'add', pod.netns]);
  await cni('ADD', LOOPBACK_CONF, pod, 'lo');
  let result: Json | null = null;
  for (const plugin of (conflist as Json).plugins as Json[]) result = await cni('ADD', pluginInput(conflist as Json, plugin, result), pod);
  return podIPFromResult(result as Json);
}

async function tearDownNetwork(pod: RunningPod): Promise<void> {
  const plugins = [...((conflist as Json).plugins as Json[])].reverse();
  for (const plugin of plugins) await cni('DEL', pluginInput(conflist as Json, plugin, null), pod).catch((e) => log((e as Error).message));
  await cni('DEL', LOOPBACK_CONF, pod, 'lo').catch((e) => log((e as Error).message));
  await run('ip', ['netns', 'del', pod.netns]).catch((e) => log(`ip netns del ${pod.netns}: ${(e as Error).message}`));
}

async function patchStatus(pod: RunningPod, input: Omit<PodStatusInput, 'hostIP' | 'now' | 'startTime'>): Promise<void> {
  const path = `/api/v1/namespaces/${enc(pod.namespace)}/pods/${enc(pod.name)}/status`;
  const answer = await api.call('PATCH', path, podStatus({ ...input, hostIP: NODE_IP, startTime: pod.startedAt, now: now() }), 'application/strategic-merge-patch+json');
  if (answer.status === 404) return;
  if (answer.status !== 200) throw new ApiError(`PATCH ${path}: ${answer.status} ${JSON.stringify(answer.body)}`, answer.status);
}

async function ranImage(): Promise<string> {
  if (nginxVersion === null) {
    const { stderr } = await run(NGINX_BINARY, ['-v']);
    nginxVersion = stderr.trim().replace(/^nginx version: nginx\//, '');
  }
  return `nginx-light ${nginxVersion} (Debian package, ${NGINX_BINARY})`;
}

function httpProbe(ip: string, port: number, path: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const req = get({ host: ip, port, path, timeout: timeoutMs, headers: { 'user-agent': 'kube-probe/1.37 (shice lab)' } }, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      resolvePromise(code >= 200 && code < 400);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolvePromise(false));
  });
}

async function startPod(object: Json): Promise<void> {
  const meta = object.metadata as Json;
  const spec = object.spec as Json;
  const container = (spec.containers as Json[])[0] as Json;
  const pod: RunningPod = {
    uid: String(meta.uid),
    namespace: String(meta.namespace),
    name: String(meta.name),
    netns: `${NETNS_PREFIX}pod.${meta.namespace}.${meta.name}`,
    ip: null,
    pid: null,
    exited: null,
    startedAt: now(),
    ready: false,
    stopping: false,
    probe: null,
  };
  pods.set(key(object), pod);
  const image = String(container.image);
  if (!labCanRun(image)) {
    log(`pod ${key(object)}: image ${image} cannot run in the lab`);
    await patchStatus(pod, {
      phase: 'Pending', podIP: null, ready: false,
      container: { name: String(container.name), image, pid: null, state: { waiting: { reason: 'LabCannotRunImage', message: `the shice lab runs nginx images only (as Debian's nginx), not ${image}` } } },
    });
    return;
  }
  pod.ip = await setUpNetwork(pod);
  log(`pod ${key(object)}: network ${pod.ip} in ${pod.netns}`);

  // The container's filesystem, as far as the process reads it: the ConfigMap files at their mount paths.
  const configMaps = new Map<string, Json>();
  for (const name of configMapNames(object)) configMaps.set(name, await api.must('GET', `/api/v1/namespaces/${enc(pod.namespace)}/configmaps/${enc(name)}`));
  const paths = nginxPaths(RUN_FOLDER, pod);
  mkdirSync(paths.root, { recursive: true });
  for (const file of configMapFiles(object, container, configMaps)) {
    const target = join(paths.rootfs, file.containerPath);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  writeFileSync(paths.config, nginxMainConfig(paths));
  const logFd = openSync(join(paths.root, 'container.log'), 'a');
  // Its own UTS namespace named after the pod, as a runtime gives it: nginx's $hostname is the pod's name.
  const [command, ...commandArgs] = containerArgv(pod.netns, podHostname(object), [NGINX_BINARY, '-p', paths.root, '-c', paths.config, '-e', paths.errorLog]);
  const child = spawn(command as string, commandArgs, {
    stdio: ['ignore', logFd, logFd],
  });
  pod.pid = child.pid ?? null;
  pod.exited = new Promise((resolvePromise) => child.on('exit', () => resolvePromise()));
  // A container that ends on its own is reported as kubelet reports it (the lab does not restart it).
  child.on('exit', (code, signal) => {
    if (pod.stopping) return;
    pod.stopping = true;
    if (pod.probe !== null) clearTimeout(pod.probe);
    const reason = code === 0 ? 'Completed' : 'Error';
    log(`pod ${key(object)}: nginx exited (${code ?? signal})`);
    void ranImage()
      .then((ran) => patchStatus(pod, {
        phase: 'Running', podIP: pod.ip, ready: false,
        container: { name: String(container.name), image: ran, pid: pod.pid, state: { terminated: { exitCode: code ?? 137, reason, startedAt: pod.startedAt, finishedAt: now() } } },
      }))
      .catch((e) => log(`status: ${(e as Error).message}`));
  });
  const startedAt = now();
  const ran = await ranImage();
  const running = { running: { startedAt } };
  log(`pod ${key(object)}: nginx pid ${pod.pid}`);
  await patchStatus(pod, { phase: 'Running', podIP: pod.ip, ready: false, container: { name: String(container.name), image: ran, pid: pod.pid, state: running } });

  // The readiness probe, as kubelet runs it: from the node, every periodSeconds.
  const probe = container.readinessProbe as { httpGet?: { path?: string; port?: number }; periodSeconds?: number; timeoutSeconds?: number; initialDelaySeconds?: number } | undefined;
  const report = async (ready: boolean) => {
    if (pod.ready === ready || pod.stopping) return;
    pod.ready = ready;
    log(`pod ${key(object)}: ready=${ready}`);
    await patchStatus(pod, { phase: 'Running', podIP: pod.ip, ready, container: { name: String(container.name), image: ran, pid: pod.pid, state: running } });
  };
  if (probe?.httpGet === undefined) {
    await report(true);
    return;
  }
  const port = Number(probe.httpGet.port ?? 80);
  const period = (probe.periodSeconds ?? 10) * 1000;
  const timeout = (probe.timeoutSeconds ?? 1) * 1000;
  const tick = async () => {
    if (pod.stopping) return;
    const ok = await httpProbe(pod.ip as string, port, probe.httpGet?.path ?? '/', timeout);
    await report(ok).catch((e) => log(`status: ${(e as Error).message}`));
    if (!pod.stopping) pod.probe = setTimeout(() => void tick(), ok && pod.ready ? period : Math.min(period, 100));
  };
  pod.probe = setTimeout(() => void tick(), (probe.initialDelaySeconds ?? 0) * 1000);
}

/** kubelet's kill: the image's stop signal (SIGQUIT for nginx), the grace period, then SIGKILL. */
async function stopPod(object: Json | null, pod: RunningPod): Promise<void> {
  if (pod.stopping) return;
  pod.stopping = true;
  if (pod.probe !== null) clearTimeout(pod.probe);
  const graceS = Number((object?.metadata as Json | undefined)?.deletionGracePeriodSeconds ?? DEFAULT_GRACE_S);
  const startedAt = pod.startedAt;
  if (pod.pid !== null && pod.exited !== null) {
    // The pid is `ip netns exec`'s, which execs unshare, sh and then nginx: the same process.
    try {
      process.kill(pod.pid, 'SIGQUIT');
    } catch {}
    const killed = await Promise.race([pod.exited.then(() => false), sleep(graceS * 1000).then(() => true)]);
    if (killed) {
      try {
        process.kill(pod.pid, 'SIGKILL');
      } catch {}
      await pod.exited;
    }
    log(`pod ${pod.namespace}/${pod.name}: container stopped`);
  }
  await patchStatus(pod, {
    phase: 'Running', podIP: pod.ip, ready: false,
    container: { name: 'nginx', image: await ranImage(), pid: pod.pid, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: now() } } },
  }).catch(() => {});
  await tearDownNetwork(pod);
  pods.delete(`${pod.namespace}/${pod.name}`);
  if (object !== null) {
    // The last word is kubelet's: with the pod stopped, it deletes the object for good.
    const answer = await api.call('DELETE', `/api/v1/namespaces/${enc(pod.namespace)}/pods/${enc(pod.name)}`, {
      apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: pod.uid },
    });
    log(`pod ${pod.namespace}/${pod.name}: deleted from the API (${answer.status})`);
  }
}

async function syncPod(object: Json): Promise<void> {
  const meta = object.metadata as Json;
  const running = pods.get(key(object));
  if (running !== undefined && running.uid !== String(meta.uid)) await stopPod(null, running);
  const current = pods.get(key(object));
  try {
    if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) {
      if (current !== undefined) await stopPod(object, current);
      else await api.call('DELETE', `/api/v1/namespaces/${enc(String(meta.namespace))}/pods/${enc(String(meta.name))}`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: meta.uid } });
      return;
    }
    if (current !== undefined) return;
    if (conflist === null) {
      waiting.push(object);
      return;
    }
    await startPod(object);
  } catch (error) {
    log(`pod ${key(object)}: ${(error as Error).message}`);
  }
}

function onPodEvent(event: WatchEvent): void {
  if (event.type === 'ERROR' || event.type === 'BOOKMARK') return;
  if (event.type === 'DELETED') {
    const pod = pods.get(key(event.object));
    if (pod !== undefined) void stopPod(null, pod);
    return;
  }
  void syncPod(event.object);
}

async function watchPods(): Promise<void> {
  const selector = enc(`spec.nodeName=${NODE}`);
  while (!stop.signal.aborted) {
    try {
      await api.watch(`/api/v1/pods?watch=true&fieldSelector=${selector}`, onPodEvent, stop.signal);
    } catch (error) {
      if (!stop.signal.aborted) log(`pod watch: ${(error as Error).message}`);
      await sleep(200);
    }
  }
}

// --- main ------------------------------------------------------------------

// Like kubelet, stopping leaves the pods running: the lab's teardown removes them with their namespaces.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    stop.abort();
    api.close();
    kindnetApi.close();
    process.exit(0);
  });
}

mkdirSync(STATE, { recursive: true });
if (existsSync(args.ready as string)) throw new Error(`${args.ready}: exists already`);
// A worker joins once the control-plane node is up (kubeadm join after kubeadm init): so the
// control-plane's node is the first the node IPAM controller sees, and gets the first podCIDR.
const joinAfter = args['join-after'];
if (joinAfter !== undefined) while (!existsSync(joinAfter)) await sleep(20);
await register();
void watchNodes();
void watchPods();
setInterval(() => void heartbeat(podCIDR !== null).catch((e) => log(`heartbeat: ${(e as Error).message}`)), HEARTBEAT_MS);
