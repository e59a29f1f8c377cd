// The lab kubelet: the one stand-in of the lab, one process per node, run
// inside that node's network namespace. It does what three pieces of a kind
// node do for the experiment and nothing more, each in a module of its own:
// kubelet (node-agent.ts), the container runtime (runtime.ts) and kindnetd
// (kindnet.ts). This file reads the arguments, gives them the real I/O and
// writes what they decided (decisions.ts) to <state>/decisions.json.
//
//   node src/capture/lab/kubelet/main.ts --node NAME --ip IP --role ROLE
//     --kubeconfig FILE --kindnet-kubeconfig FILE --state DIR --run-folder DIR --netns-prefix PREFIX
//     --cni-bin DIR --ready FILE [--join-after FILE]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { arch, release } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { runJudged, runOrThrow } from '../../machine/checked-run.ts';
import { startDaemon } from '../../machine/process.ts';
import { DriverError } from '../../provider/node-provider.ts';
import { ApiClient, keepWatching, readKubeconfig } from './api.ts';
import { systemClock } from './clock.ts';
import { imagesReplaced, standInDecisions } from './decisions.ts';
import { Kindnet } from './kindnet.ts';
import { nodeResources, readMachineCapacity } from './machine.ts';
import { NodeAgent } from './node-agent.ts';
import { LabRuntime, type RuntimeIO, type WhatRan } from './runtime.ts';

/** A command of the node (ip, dpkg-query, nginx -v): local and quick, bounded all the same. */
const COMMAND_TIMEOUT_MS = 30_000;
/** One CNI plugin call: ptp and host-local set up a veth, an address and routes. */
const CNI_TIMEOUT_MS = 60_000;
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
const STATE = args.state as string;
const READY = args.ready as string;

const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
const writeFile = (path: string, content: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
};
const stop = new AbortController();
const api = new ApiClient(readKubeconfig(args.kubeconfig as string));
/** kindnetd's own identity: it lists every node, which a node may not. */
const kindnetApi = new ApiClient(readKubeconfig(args['kindnet-kubeconfig'] as string));

/** A CNI plugin's answer: its result on stdout, or its error (the CNI spec's error JSON is on stdout too). */
async function runCniPlugin(path: string, env: Record<string, string>, stdin: string): Promise<string> {
  const what = `run the CNI plugin ${basename(path)} (${env.CNI_COMMAND})`;
  const run = await runJudged([path], { env: { ...process.env, ...env }, input: stdin, timeoutMs: CNI_TIMEOUT_MS }, what);
  if (run.exitCode !== 0) throw new DriverError(`CNI ${path} ${env.CNI_COMMAND}: ${run.stdout.trim() || run.stderr.trim() || `exit ${run.exitCode}`}`);
  return run.stdout;
}

const runtimeIO: RuntimeIO = {
  run: (argv) => runOrThrow(argv, { timeoutMs: COMMAND_TIMEOUT_MS }, `run ${argv[0]}`),
  cniPlugin: runCniPlugin,
  spawn: async (argv, logFile) => {
    mkdirSync(dirname(logFile), { recursive: true });
    const container = await startDaemon(`container of ${basename(dirname(logFile))}`, argv, logFile);
    return { pid: container.pid, exited: container.ended };
  },
  kill: (pid, signal) => process.kill(pid, signal),
  writeFile,
  sleep: systemClock.sleep,
  log,
};

function httpProbe(ip: string, port: number, path: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: ip, port, path, timeout: timeoutMs, headers: { 'user-agent': 'kube-probe/1.37 (shice lab)' } }, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      resolve(code >= 200 && code < 400);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

mkdirSync(STATE, { recursive: true });
if (existsSync(READY)) throw new Error(`${READY}: exists already`);
const capacity = readMachineCapacity(STATE);
const runtime = new LabRuntime({
  io: runtimeIO,
  runFolder: args['run-folder'] as string,
  netnsPrefix: args['netns-prefix'] as string,
  cniBin: args['cni-bin'] as string,
});
let whatRan: WhatRan | null = null;
const writeDecisions = () => {
  const decisions = standInDecisions({ capacity, mtu: kindnet.mtu, whatRan, pods: agent.podsSeen, stops: agent.stops });
  const report = { node: NODE, decisions, imagesReplaced: imagesReplaced(agent.podsSeen) };
  writeFile(join(STATE, 'decisions.json'), `${JSON.stringify(report, null, 2)}\n`);
};
const agent: NodeAgent = new NodeAgent({
  node: {
    name: NODE,
    ip: NODE_IP,
    role: args.role === 'control-plane' ? 'control-plane' : 'worker',
    kernel: release(),
    arch: arch(),
    resources: nodeResources(capacity),
  },
  api,
  runtime: {
    runSandbox: (pod, conflist) => runtime.runSandbox(pod, conflist),
    removeSandbox: (pod, conflist) => runtime.removeSandbox(pod, conflist),
    startContainer: (pod, sandbox, hostname, files) => runtime.startContainer(pod, sandbox, hostname, files),
    stopContainer: (container, grace) => runtime.stopContainer(container, grace),
    whatRan: async () => (whatRan = await runtime.whatRan()),
  },
  clock: systemClock,
  io: {
    markRegistered: (uid) => writeFileSync(join(STATE, 'registered'), `${uid}\n`),
    markReady: () => {
      writeDecisions(); // before the ready file: the lab driver may read them once it sees it
      writeFileSync(READY, `${process.pid}\n`);
    },
    httpProbe,
    decided: writeDecisions,
    log,
  },
  signal: stop.signal,
});
const kindnet: Kindnet = new Kindnet({
  nodeName: NODE,
  nodeIP: NODE_IP,
  stateDir: STATE,
  io: { run: runtimeIO.run, writeFile, log },
  onConfigured: (conflist) => agent.networkReady(conflist),
});

// Like kubelet, stopping leaves the pods running: the lab's teardown removes them with their namespaces.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    stop.abort();
    agent.stop();
    api.close();
    kindnetApi.close();
    process.exit(0);
  });
}

// A worker joins once the control-plane node is up (kubeadm join after kubeadm init): so the
// control-plane's node is the first the node IPAM controller sees, and gets the first podCIDR.
const joinAfter = args['join-after'];
if (joinAfter !== undefined) while (!existsSync(joinAfter)) await systemClock.sleep(20);
await agent.register();
writeDecisions();
void keepWatching(kindnetApi, '/api/v1/nodes?watch=true', (event) => void kindnet.onEvent(event).catch((e) => log(`kindnet: ${(e as Error).message}`)), {
  signal: stop.signal,
  sleep: systemClock.sleep,
  log,
  what: 'node watch',
});
void agent.watchPods();
