// The Docker engine the kind driver talks to. A daemon that already answers is
// used as it is and never stopped or reconfigured. Where none answers (a Linux
// machine with Debian's docker.io installed but no daemon running), shice
// starts one of its own: its own data root, exec root, socket, pid file and log
// in the machine's cache (docker/), so it can never collide with a system
// daemon, its images outlive a clone, and it writes no iptables rules into the
// host's root namespace. Only that daemon is ever stopped, and stopping it
// removes what it added to the host and restores what it changed there.
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrerequisiteError } from '../../provider/node-provider.ts';
import { processStartTime, stillRunning } from '../../machine/process-identity.ts';
import { DaemonError, runTool, sleep, startDaemon, type Daemon } from '../../machine/process.ts';
import { parseDockerVersion } from '../tool-output.ts';
import { MACHINE_CACHE } from '../../machine/machine-cache.ts';
import {
  journalChanges,
  driftFromBaseline,
  leftText,
  procSysctls,
  readSysctls,
  routeChanges,
  routeLines,
  sysctlChanges,
  undoAction,
  undoSysctls,
  undoText,
  type HostNetwork,
  type SysctlUndo,
  type Sysctls,
} from './host-state.ts';

/** Where shice's own daemon keeps everything. */
export const ENGINE_DIR = join(MACHINE_CACHE, 'docker');

/** The runtime dockerd is given where the host cannot grant CAP_SYS_RESOURCE. */
export const ADAPTED_RUNTIME = 'shice-runc';
/**
 * The wrapper's source in this checkout. dockerd never runs it from here: the engine is the
 * machine's, not a clone's, so the wrapper it runs is a copy in the engine's folder of the cache
 * (installRuntimeWrapper), named by its content, which a deleted or changed clone cannot take away.
 */
export const RUNTIME_WRAPPER = fileURLToPath(new URL('./runc-without-sys-resource.sh', import.meta.url));

/** CAP_SYS_RESOURCE's bit in the capability sets (linux/capability.h). */
const CAP_SYS_RESOURCE = 24n;

export interface EnginePaths {
  dir: string;
  dataRoot: string;
  execRoot: string;
  socket: string;
  pidFile: string;
  log: string;
  record: string;
  /** The host's network as it was before shice's engine first started on this machine. */
  baseline: string;
  /** The runtime wrapper dockerd runs: in the cache, named by the SHA-256 of its text, so every clone with the same wrapper names the same file. */
  runtimeWrapper: string;
}

/** Where the wrapper of this text lives in the engine's folder `dir`. */
export function runtimeWrapperPath(dir: string, text: string): string {
  return join(dir, 'runtime', `runc-without-sys-resource-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.sh`);
}

export function enginePaths(dir: string = ENGINE_DIR): EnginePaths {
  return {
    runtimeWrapper: runtimeWrapperPath(dir, readFileSync(RUNTIME_WRAPPER, 'utf8')),
    dir,
    dataRoot: join(dir, 'data'),
    execRoot: join(dir, 'run'),
    socket: join(dir, 'docker.sock'),
    pidFile: join(dir, 'dockerd.pid'),
    log: join(dir, 'dockerd.log'),
    record: join(dir, 'engine.json'),
    baseline: join(dir, 'host-before-first-start.json'),
  };
}

/** How the host's privileged containers had to be adapted, said in provenance; null when they need nothing. */
export interface RuntimeAdaptation {
  /** The capability the host's bounding set lacks. */
  missingCapability: 'CAP_SYS_RESOURCE';
  /** One line for logs and run.yaml. */
  summary: string;
}

/** Reads CapBnd from /proc/self/status text: the adaptation this host needs, or null. */
export function runtimeAdaptation(procStatus: string): RuntimeAdaptation | null {
  const match = /^CapBnd:\s*([0-9a-f]+)$/m.exec(procStatus);
  if (match === null) return null;
  const bounding = BigInt(`0x${match[1]}`);
  if ((bounding >> CAP_SYS_RESOURCE) & 1n) return null;
  return {
    missingCapability: 'CAP_SYS_RESOURCE',
    summary:
      "the host's capability bounding set lacks CAP_SYS_RESOURCE, so dockerd runs privileged containers through shice's runc wrapper, which removes that one capability from them; inside the nodes containerd restricts oom_score_adj",
  };
}

/** What shice recorded about the daemon it started. */
export interface EngineRecord {
  pid: number;
  startTime: string | null;
  socket: string;
  startedAt: string;
  adaptation: RuntimeAdaptation | null;
  /** Host state before the daemon ran, so that stopping it removes exactly what it added. */
  before: { docker0: boolean; sysctls?: Sysctls; routes?: string[] };
  /**
   * The kernel settings the daemon's start changed (forwarding), journalled once it answers:
   * what --stop undoes, each only while it still holds the value the daemon set. An engine's
   * undo that failed is carried into the next start's journal.
   */
  journal?: SysctlUndo[];
}

/** dockerd's own change, for a record written before journals were: forwarding turned on, nothing else. */
const FORWARDING = /^net\.ipv[46]\.(ip_forward|conf\.(all|default)\.forwarding)$/;

/** The journal --stop undoes: the record's, or for a record without one, forwarding turned on from 0 (dockerd's known change). */
export function engineJournal(record: EngineRecord, now: Sysctls): SysctlUndo[] {
  if (record.journal) return record.journal;
  if (!record.before.sysctls) return [];
  return sysctlChanges(record.before.sysctls, now)
    .filter((c) => FORWARDING.test(c.name) && c.before === '0' && c.after === '1')
    .map((c) => ({ name: c.name, before: c.before, set: c.after }));
}

/**
 * A start's reading before, with what an earlier engine's journal left undone put back: a
 * setting that still holds that engine's value was the project's change, not the host's, so the
 * new engine's journal carries it on (with the host's value before) instead of taking it for the host's.
 */
export function carryJournal(reading: Sysctls, old: readonly SysctlUndo[]): { before: Sysctls; journal: SysctlUndo[] } {
  const carried = old.filter((e) => undoAction(e, reading[e.name]) === 'undo');
  const before = { ...reading };
  for (const e of carried) before[e.name] = e.before;
  return { before, journal: carried };
}

export function dockerdArgv(paths: EnginePaths, adaptation: RuntimeAdaptation | null): string[] {
  return [
    'dockerd',
    '--data-root',
    paths.dataRoot,
    '--exec-root',
    paths.execRoot,
    '--pidfile',
    paths.pidFile,
    '--host',
    `unix://${paths.socket}`,
    // No rules in the host's root namespace: the kind nodes share one bridge and need no NAT from the host.
    '--iptables=false',
    '--ip6tables=false',
    ...(adaptation ? ['--add-runtime', `${ADAPTED_RUNTIME}=${paths.runtimeWrapper}`, '--default-runtime', ADAPTED_RUNTIME] : []),
  ];
}

/**
 * Puts this checkout's wrapper where paths.runtimeWrapper names it (executable, written beside it
 * and renamed into place), unless that file already holds it; never removes another: an engine
 * started by another clone may run it.
 */
export function installRuntimeWrapper(paths: EnginePaths): string {
  const text = readFileSync(RUNTIME_WRAPPER, 'utf8');
  const target = paths.runtimeWrapper;
  let current: string | null = null;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // not installed yet
  }
  if (current !== text) {
    mkdirSync(join(target, '..'), { recursive: true });
    const partial = `${target}.partial-${process.pid}`;
    writeFileSync(partial, text, { mode: 0o755 });
    chmodSync(partial, 0o755);
    renameSync(partial, target);
  }
  return target;
}

/** The engine a capture uses: shice's own (with its record) or one that already answered. */
export interface Engine {
  own: boolean;
  /** DOCKER_HOST for every docker and kind call; null keeps the caller's environment's choice. */
  dockerHost: string | null;
  serverVersion: string;
  record: EngineRecord | null;
}

/** The environment docker and kind must run with to reach `engine`. */
export function engineEnv(engine: Engine, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return engine.dockerHost === null ? env : { ...env, DOCKER_HOST: engine.dockerHost };
}

function readRecord(paths: EnginePaths): EngineRecord | null {
  if (!existsSync(paths.record)) return null;
  try {
    const record = JSON.parse(readFileSync(paths.record, 'utf8')) as EngineRecord;
    if (typeof record.pid !== 'number' || typeof record.socket !== 'string') throw new Error('pid and socket expected');
    return record;
  } catch (error) {
    throw new PrerequisiteError(
      `${paths.record}: not a record of shice's Docker engine (${(error as Error).message}); remove it after stopping that dockerd by hand`,
    );
  }
}

async function serverVersion(env: NodeJS.ProcessEnv): Promise<string | null> {
  const run = await runTool(['docker', 'version', '--format', '{{json .}}'], { env, timeoutMs: 20_000 });
  if (run.missing || run.exitCode !== 0) return null;
  try {
    return parseDockerVersion(run.stdout).server?.version ?? null;
  } catch {
    return null;
  }
}

/** The record of shice's own daemon when that daemon still runs; null otherwise. */
export function ownEngineRecord(): EngineRecord | null {
  const record = readRecord(enginePaths());
  return record !== null && stillRunning(record) ? record : null;
}

/** shice's own daemon if it runs, else a daemon the environment already reaches, else null. */
export async function findEngine(env: NodeJS.ProcessEnv = process.env): Promise<Engine | null> {
  const record = ownEngineRecord();
  if (record !== null) {
    const dockerHost = `unix://${record.socket}`;
    const version = await serverVersion({ ...env, DOCKER_HOST: dockerHost });
    if (version !== null) return { own: true, dockerHost, serverVersion: version, record };
  }
  const version = await serverVersion(env);
  return version === null ? null : { own: false, dockerHost: null, serverVersion: version, record: null };
}

/** The pid of a dockerd process on this machine (a zombie is no daemon), or null. */
function runningDockerd(): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'dockerd' && processStartTime(Number(entry)) !== null) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/** Mount points at or below `dir`, deepest first, from this process's mount table. */
export function mountsUnder(dir: string, mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): string[] {
  const points = mountinfo
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((p): p is string => p !== undefined && (p === dir || p.startsWith(`${dir}/`)));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

const linkExists = (name: string): boolean => existsSync(`/sys/class/net/${name}`);

/** The root namespace's network settings and routes, now. */
export async function readHostNetwork(env: NodeJS.ProcessEnv = process.env): Promise<HostNetwork> {
  const routes: string[] = [];
  for (const family of ['-4', '-6']) {
    const run = await runTool(['ip', family, 'route', 'show', 'table', 'all'], { env, timeoutMs: 20_000 });
    if (run.missing || run.exitCode !== 0)
      throw new PrerequisiteError(`ip ${family} route show table all failed: ${run.stderr.trim() || 'ip is missing (apt-get install iproute2)'}`);
    routes.push(...routeLines(run.stdout));
  }
  return { sysctls: readSysctls(), routes: [...new Set(routes)].sort() };
}

export interface MachineBaseline extends HostNetwork {
  recordedAt: string;
}

/** The host's network as it was before shice's engine first started here, or null when it never has. */
export function readMachineBaseline(paths: EnginePaths = enginePaths()): MachineBaseline | null {
  if (!existsSync(paths.baseline)) return null;
  try {
    const baseline = JSON.parse(readFileSync(paths.baseline, 'utf8')) as MachineBaseline;
    if (typeof baseline.sysctls !== 'object' || !Array.isArray(baseline.routes)) throw new Error('sysctls and routes expected');
    return baseline;
  } catch (error) {
    throw new PrerequisiteError(`${paths.baseline}: not shice's record of this host before its engine first started (${(error as Error).message})`);
  }
}

/**
 * Starts shice's own dockerd and waits until it answers. Called only when no daemon
 * answers; refuses when a record says an earlier one of ours still runs.
 */
export async function startEngine(log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<Engine> {
  const paths = enginePaths();
  if (process.platform !== 'linux') throw new PrerequisiteError(`shice starts a Docker engine only on Linux; on ${process.platform} start Docker Desktop`);
  if (process.getuid?.() !== 0) throw new PrerequisiteError('no Docker daemon answers, and starting one needs root: run as root, or start Docker yourself');
  const old = readRecord(paths);
  if (old !== null && stillRunning(old)) {
    throw new PrerequisiteError(
      `shice's dockerd (pid ${old.pid}) runs but does not answer on ${old.socket}: see ${paths.log}, then npm run kind:prepare -- --stop`,
    );
  }
  if (Buffer.byteLength(paths.socket) > 100) {
    throw new PrerequisiteError(
      `the engine's socket path ${paths.socket} is longer than a unix socket allows (about 100 bytes): clone the project to a shorter path`,
    );
  }
  // Two daemons would both claim docker0 and hand out the same subnets: never start a second one.
  const other = runningDockerd();
  if (other !== null) {
    throw new PrerequisiteError(
      `a dockerd (pid ${other}) already runs on this machine but does not answer here: set DOCKER_HOST to its socket, or stop it (another clone's engine stops with npm run kind:prepare -- --stop there)`,
    );
  }
  const probe = await runTool(['dockerd', '--version'], { env, timeoutMs: 20_000 });
  if (probe.missing)
    throw new PrerequisiteError('no Docker daemon answers and dockerd is not installed: apt-get install docker.io containerd runc (or install Docker Engine)');
  const adaptation = runtimeAdaptation(readFileSync('/proc/self/status', 'utf8'));
  if (adaptation) {
    const jq = await runTool(['jq', '--version'], { env, timeoutMs: 20_000 });
    if (jq.missing) throw new PrerequisiteError('this host lacks CAP_SYS_RESOURCE and the runtime wrapper that adapts to it needs jq: apt-get install jq');
  }
  mkdirSync(paths.dir, { recursive: true });
  if (adaptation) installRuntimeWrapper(paths);
  rmSync(paths.socket, { force: true });
  // Read before dockerd can change anything: what --stop writes back, and, the first time on this machine, the baseline.
  const network = await readHostNetwork(env);
  if (readMachineBaseline(paths) === null) writeJsonAtomically(paths.baseline, { recordedAt: new Date().toISOString(), ...network });
  // A dead engine whose --stop could not undo all it changed: its changes are not this host's "before".
  const carried = carryJournal(network.sysctls, old ? engineJournal(old, network.sysctls) : []);
  const before = { docker0: linkExists('docker0'), sysctls: carried.before, routes: network.routes };
  let daemon: Daemon;
  try {
    // Detached, its output appended to the log: it outlives this process, as a daemon does.
    daemon = await startDaemon('dockerd', dockerdArgv(paths, adaptation), paths.log, { env });
  } catch (error) {
    if (error instanceof DaemonError) throw new PrerequisiteError(`dockerd did not start: see ${paths.log}`);
    throw error;
  }
  const { pid } = daemon;
  let exited: string | null = null;
  void daemon.ended.then(({ code, signal }) => {
    exited = signal ?? `exit ${code}`;
  });
  const record: EngineRecord = {
    pid,
    startTime: processStartTime(pid),
    socket: paths.socket,
    startedAt: new Date().toISOString(),
    adaptation,
    before,
    journal: carried.journal,
  };
  writeJsonAtomically(paths.record, record);
  log(`kind:prepare: started shice's own dockerd (pid ${pid}, data root ${paths.dataRoot}, log ${paths.log})`);
  if (adaptation) log(`kind:prepare: runtime adapted: ${adaptation.summary}`);

  const dockerHost = `unix://${paths.socket}`;
  const deadline = performance.now() + 60_000;
  for (;;) {
    const version = await serverVersion({ ...env, DOCKER_HOST: dockerHost });
    if (version !== null) {
      // What its start changed (forwarding), journalled before anything could undo it.
      record.journal = journalChanges(before.sysctls, readSysctls(), record.journal);
      writeJsonAtomically(paths.record, record);
      return { own: true, dockerHost, serverVersion: version, record };
    }
    if (exited !== null || performance.now() > deadline) {
      const tail = readFileSync(paths.log, 'utf8').trim().split('\n').slice(-3).join(' | ');
      if (exited === null) process.kill(pid, 'SIGTERM');
      rmSync(paths.record, { force: true });
      throw new PrerequisiteError(`dockerd ${exited ? `ended (${exited})` : 'did not answer within 60 s'}: ${tail}`);
    }
    await sleep(250);
  }
}

/**
 * Stops shice's own daemon (never another): its networks first, so their bridges go,
 * then dockerd, then the docker0 bridge if it was not there before the daemon started.
 * Images stay in the data root for the next start. Returns what it did, one line each.
 */
export async function stopEngine(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const paths = enginePaths();
  const record = readRecord(paths);
  if (record === null) return ["no Docker engine of shice's is recorded: nothing to stop"];
  const done: string[] = [];
  if (stillRunning(record)) {
    const own = { ...env, DOCKER_HOST: `unix://${record.socket}` };
    const running = await runTool(['docker', 'ps', '--quiet'], { env: own, timeoutMs: 20_000 });
    if (running.exitCode === 0 && running.stdout.trim() !== '') {
      done.push(`stopping containers still running in shice's engine: ${running.stdout.trim().split('\n').length}`);
    }
    const networks = await runTool(['docker', 'network', 'ls', '--filter', 'type=custom', '--quiet'], { env: own, timeoutMs: 20_000 });
    for (const id of networks.exitCode === 0 ? networks.stdout.split('\n').filter(Boolean) : []) {
      const removed = await runTool(['docker', 'network', 'rm', id], { env: own, timeoutMs: 30_000 });
      if (removed.exitCode === 0) done.push(`removed docker network ${id}`);
    }
    process.kill(record.pid, 'SIGTERM');
    const deadline = performance.now() + 60_000;
    while (stillRunning(record) && performance.now() < deadline) await sleep(200);
    if (stillRunning(record)) {
      process.kill(record.pid, 'SIGKILL');
      done.push(`dockerd (pid ${record.pid}) did not stop within 60 s: killed`);
    } else {
      done.push(`stopped shice's dockerd (pid ${record.pid})`);
    }
  } else {
    done.push(`shice's dockerd (pid ${record.pid}) no longer runs`);
  }
  // dockerd bind-mounts the host's network namespace at <exec root>/netns/default and leaves it mounted.
  for (const mount of mountsUnder(paths.dir)) {
    const unmounted = await runTool(['umount', mount], { env, timeoutMs: 20_000 });
    if (unmounted.exitCode === 0) done.push(`unmounted ${mount}`);
    else done.push(`could not unmount ${mount}: ${unmounted.stderr.trim()}`);
  }
  if (!record.before.docker0 && linkExists('docker0')) {
    const removed = await runTool(['ip', 'link', 'delete', 'docker0'], { env, timeoutMs: 20_000 });
    if (removed.exitCode === 0) done.push('removed the docker0 bridge it had created');
  }
  // dockerd turned on forwarding at its start: undone where it still holds the value dockerd set.
  const { restored, left, failed } = undoSysctls(engineJournal(record, readSysctls()), procSysctls);
  for (const entry of restored) done.push(`restored ${undoText(entry)}, as before the engine started`);
  for (const l of left) done.push(leftText(l));
  for (const { entry, error } of failed) done.push(`could not restore ${undoText(entry)}: ${error}`);
  if (record.before.routes) {
    const { added, removed } = routeChanges(record.before.routes, (await readHostNetwork(env)).routes);
    if (added.length + removed.length > 0)
      done.push(`the routing tables differ from before the engine started: ${[...added.map((r) => `+ ${r}`), ...removed.map((r) => `- ${r}`)].join('; ')}`);
  }
  // What no journal covers, against the host as shice first found it: said, never written.
  const baseline = readMachineBaseline(paths);
  if (baseline) for (const line of driftFromBaseline(baseline.sysctls, readSysctls())) done.push(line);
  rmSync(paths.socket, { force: true });
  if (failed.length > 0) {
    // The record stays, so that the next --stop tries again and the next start carries the undo on.
    done.push(`${paths.record} stays: its undo is not done (npm run kind:prepare -- --stop again once the setting can be written)`);
    return done;
  }
  rmSync(paths.record, { force: true });
  return done;
}

/** Writes a file beside `file`, flushes it to disk, renames it into place and flushes the folder: a journal survives a power cut. */
export function writeJsonAtomically(file: string, value: unknown): void {
  const partial = `${file}.partial`;
  writeFileSync(partial, `${JSON.stringify(value, null, 2)}\n`);
  const fd = openSync(partial, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, file);
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
