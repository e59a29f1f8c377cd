// What the kind tests share: a test that runs only where a real kind cluster
// can (and fails on CI where it cannot), the engine and images kind:prepare
// makes (started here when none answers, stopped again by whoever started it),
// and a reading of everything a run could leave behind on the host.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, type TestContext } from 'node:test';
import { execa } from 'execa';
import { engineEnv, findEngine, readMachineBaseline, stopEngine, type Engine } from '../../src/capture/kind/engine/engine.ts';
import { FORWARDING_SYSCTLS, readSysctls, writeSysctl } from '../../src/capture/kind/engine/host-state.ts';
import { prepare } from '../../src/capture/kind/prepare.ts';
import { processStartTime } from '../../src/capture/machine/process-identity.ts';
import { kindPathDirs } from '../../src/capture/kind/prepare.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';
import { articleDir, loadArticle } from '../../src/authoring/load.ts';
import { createKindRun, kindStatePaths } from '../../src/capture/kind/index.ts';
import { makeRunId } from '../../src/capture/recovery/run-id.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const onCI = process.env.CI === 'true';

/** Why a real kind cluster cannot be made here, or null. */
export function kindUnavailable(): string | null {
  if (process.platform !== 'linux') return `kind:prepare starts a Docker engine only on Linux, this is ${process.platform}`;
  if (process.getuid?.() !== 0) return 'starting a Docker engine and building images needs root';
  const path = (process.env.PATH ?? '').split(':');
  if (!path.some((dir) => existsSync(join(dir, 'dockerd'))) && !path.some((dir) => existsSync(join(dir, 'docker')))) {
    return 'no Docker: apt-get install docker.io containerd runc debootstrap jq';
  }
  return null;
}

export const unavailable = kindUnavailable();

/** A test on a real kind cluster: skipped off CI where one cannot run, failed on CI. */
export function kindTest(name: string, body: (t: TestContext) => Promise<void>): void {
  const skip = unavailable !== null && !onCI ? `kind prerequisites missing: ${unavailable}` : false;
  test(name, { skip, timeout: 20 * 60_000 }, async (t) => {
    if (unavailable !== null) assert.fail(`CI=true and a kind cluster cannot run here: ${unavailable}`);
    await body(t);
  });
}

export interface KindHost {
  engine: Engine;
  env: NodeJS.ProcessEnv;
  startedEngine: boolean;
}

/** The engine and images, as `npm run kind:prepare` leaves them (quick when they are up to date). */
export async function prepareKind(log: (line: string) => void): Promise<KindHost> {
  const done = await prepare({ root: ROOT, buildImages: true, releases: [HEADLINE_RELEASE] }, { signal: new AbortController().signal, log });
  const path = [...kindPathDirs(HEADLINE_RELEASE), process.env.PATH ?? ''].join(':');
  return { engine: done.engine, startedEngine: done.startedEngine, env: { ...engineEnv(done.engine, process.env), PATH: path } };
}

export async function stopKindIfStarted(host: KindHost | null): Promise<void> {
  if (host?.startedEngine) await stopEngine();
}

export async function answeringEngine(): Promise<Engine | null> {
  return findEngine();
}

/**
 * Before the suite starts an engine: IPv4 and IPv6 forwarding as shice first found
 * this machine (its baseline), where an earlier run of an older shice left them on;
 * with no baseline yet, on CI, off, as on a fresh machine. Returns what it set.
 */
export function forwardingAsFirstFound(onCI: boolean): string[] {
  const baseline = readMachineBaseline();
  const now = readSysctls();
  const set: string[] = [];
  for (const name of FORWARDING_SYSCTLS) {
    const wanted = baseline?.sysctls[name] ?? (onCI ? '0' : null);
    if (wanted === null || now[name] === wanted) continue;
    writeSysctl(name, wanted);
    set.push(`${name} ${now[name]} -> ${wanted} (${baseline ? "shice's baseline of this machine" : 'CI, no baseline yet'})`);
  }
  return set;
}

/** `npm run kind:prepare -- --stop` as a user runs it. */
export function stopEngineCli(): Promise<CaptureRun> {
  return runScript('scripts/kind-prepare.ts', ['--stop'], process.env);
}

/** Lines of a command's output, [] when it fails (a tool that is absent has nothing to show). */
async function lines(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const run = await execa(argv[0]!, argv.slice(1), { env, reject: false });
  return run.exitCode === 0 ? run.stdout.split('\n').filter(Boolean) : [];
}

/**
 * Everything of the host a run could change: the root namespace's links, addresses, routes (IPv4 and IPv6,
 * every table) and rules (counters left out), the kernel's settings, /lib/modules and the mounts.
 */
export async function rootNamespace(): Promise<Record<string, string[]>> {
  const counters = (l: string) => l.replace(/\[\d+:\d+\]/g, '[]');
  const routes = (await lines(['ip', 'route', 'show', 'table', 'all'])).concat(await lines(['ip', '-6', 'route', 'show', 'table', 'all'])).sort();
  return {
    links: (await lines(['ip', '-o', 'link', 'show'])).map((l) => l.replace(/^\d+: /, '').split(':')[0]!).sort(),
    addresses: (await lines(['ip', '-o', 'address', 'show'])).map((l) => l.replace(/^\d+: /, '').replace(/\s+valid_lft.*$/, '')).sort(),
    routes,
    iptables: (await lines(['iptables-save'])).filter((l) => !l.startsWith('#')).map(counters),
    nftables: await lines(['nft', 'list', 'ruleset']),
    sysctls: Object.entries(readSysctls()).map(([name, value]) => `${name} = ${value}`),
    libModules: [String(existsSync('/lib/modules'))],
    mounts: readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[4] ?? '')
      .filter(Boolean)
      .sort(),
  };
}

/** What the engine holds that a run makes: containers, networks, volumes. */
export async function dockerObjects(env: NodeJS.ProcessEnv): Promise<Record<string, string[]>> {
  return {
    containers: await lines(['docker', 'ps', '--all', '--quiet', '--no-trunc'], env),
    networks: (await lines(['docker', 'network', 'ls', '--format', '{{.Name}}'], env)).sort(),
    volumes: await lines(['docker', 'volume', 'ls', '--quiet'], env),
  };
}

/** Processes of a Docker engine and of kind's nodes, by name: dockerd, containerd and its shims, docker-proxy. */
export function engineProcesses(): string[] {
  const names = ['dockerd', 'containerd', 'containerd-shim', 'containerd-shim-runc-v2', 'docker-proxy'];
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .flatMap((pid) => {
      try {
        const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        // A zombie (no start time) is an ended process its parent has not reaped yet.
        return names.some((n) => comm.startsWith(n.slice(0, 15))) && processStartTime(Number(pid)) !== null ? [`${pid} ${comm}`] : [];
      } catch {
        return [];
      }
    })
    .sort();
}

/** The capture's own kubeconfig and kind state, which must be gone after a run. */
export function kindStateFiles(): string[] {
  const dir = join(ROOT, '.shice/kind');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name === 'kubeconfig' || name.endsWith('.kind-config.yaml') || name.endsWith('.owner.json') || name.endsWith('.manifests'))
    .sort();
}

export interface CaptureRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run capture` as a user runs it (the CLI, on the project's Node), with `onLine` seeing
 * each line of either stream as it comes (progress goes to stderr); resolves when the process ends.
 */
export function runCaptureCli(args: string[], env: NodeJS.ProcessEnv, onLine: (line: string) => void = () => {}): Promise<CaptureRun> {
  return runScript('scripts/capture.ts', args, env, onLine);
}

/** A script of the project at `root` (a copy, say), run with this Node in that folder, as `npm run` runs it. */
export function runScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void = () => {},
  root: string = ROOT,
): Promise<CaptureRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, script), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const text = { stdout: '', stderr: '' };
    const pending = { stdout: '', stderr: '' };
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream].setEncoding('utf8').on('data', (chunk: string) => {
        text[stream] += chunk;
        const parts = (pending[stream] + chunk).split('\n');
        pending[stream] = parts.pop()!;
        for (const line of parts) onLine(line);
      });
    }
    child.on('close', (code) => resolve({ code, ...text }));
  });
}

/** A kind cluster the capture did not create, as a reader might have one: its own name, state folder and kubeconfig. */
export interface ClusterOfItsOwn {
  kubeconfig: string;
  context: string;
  /** Deletes the cluster (and puts the host back as the kind driver does). */
  down(): Promise<void>;
}

/**
 * Three nodes as 074's experiment declares them, brought up by the kind driver's provider (the project's engine, kind
 * binary and node image, the kindnetd stand-in) under `name`, with nothing applied in them: the cluster, not a run.
 */
export async function clusterOfItsOwn(host: KindHost, name: string, stateDir: string, log: (line: string) => void): Promise<ClusterOfItsOwn> {
  const slug = '074-external-traffic-policy';
  const article = await loadArticle(ROOT, slug);
  const experiment = { ...article.experiment!, cluster: { ...article.experiment!.cluster, name } };
  const env = { ...host.env };
  const run = createKindRun(experiment, {
    runId: makeRunId(new Date()),
    articleDir: articleDir(ROOT, slug),
    keep: false,
    reuse: false,
    loadImages: false,
    kubernetes: HEADLINE_RELEASE,
    stateDir,
    cwd: ROOT,
    env,
    host: { root: ROOT, registryReachable: async () => false },
  });
  const ctx = { signal: new AbortController().signal, log };
  await run.provider.preflight();
  try {
    await run.provider.up(ctx);
  } catch (error) {
    await run.provider.down({ log });
    throw error;
  }
  return { kubeconfig: kindStatePaths(stateDir, name).kubeconfig, context: `kind-${name}`, down: () => run.provider.down({ log }) };
}

/**
 * Every object of a cluster that a run could create or change, one line each: its kind, namespace and name,
 * and a digest of what it declares (its metadata's labels and annotations, and everything but its status).
 * Events and leases, which the cluster writes all the time, are left out.
 */
export async function clusterObjects(kubeconfig: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const kubectl = (...args: string[]) => execa('kubectl', ['--kubeconfig', kubeconfig, ...args], { env });
  const churn = /^(events(\.events\.k8s\.io)?|leases\.coordination\.k8s\.io|componentstatuses)$/;
  const kinds = (await kubectl('api-resources', '--verbs=list', '-o', 'name')).stdout.split('\n').filter((k) => k && !churn.test(k));
  const list = JSON.parse((await kubectl('get', kinds.join(','), '--all-namespaces', '-o', 'json')).stdout) as { items: Array<Record<string, unknown>> };
  return list.items
    .map((item) => {
      const {
        status: _status,
        metadata,
        ...declared
      } = item as { status?: unknown; metadata: { namespace?: string; name: string; labels?: unknown; annotations?: unknown } };
      const digest = createHash('sha256')
        .update(JSON.stringify({ labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {}, declared }))
        .digest('hex')
        .slice(0, 16);
      return `${String(item.kind)} ${metadata.namespace ?? '-'}/${metadata.name} ${digest}`;
    })
    .sort();
}
