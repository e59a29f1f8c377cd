// The kubelet part of the lab kubelet: it registers the Node (kubeadm's
// control-plane taint, the machine's capacity), keeps its Lease and status
// fresh, reports Ready once kindnet configured the node's network, and runs
// the pods the scheduler binds here: it asks the runtime for their sandbox and
// container, probes their readiness as kubelet does, reports their status,
// and on deletion stops them and removes them from the API.
import { ApiError, keepWatching, type KubeApi, type WatchEvent } from './api.ts';
import type { Clock } from './clock.ts';
import {
  configMapFiles,
  configMapNames,
  labCanRun,
  leaseObject,
  microTime,
  nodeObject,
  nodeStatusPatch,
  podHostname,
  podStatus,
  type Json,
  type NodeIdentity,
  type PodStatusInput,
} from './objects.ts';
import { readinessProbeOf, ReadinessProber, type ReadinessProbe } from './probe.ts';
import { gracePeriodSeconds, whatRanImage, type ContainerProcess, type Exit, type LabRuntime, type PodRef, type Sandbox } from './runtime.ts';
import { constants } from 'node:os';

/** kubelet's nodeStatusUpdateFrequency and its Lease renewal (a quarter of leaseDurationSeconds 40): both 10 s by default. */
export const HEARTBEAT_MS = 10_000;

/** What the node agent saw of a pod it started and of a stop it performed: decisions.ts names them as the stand-in's. */
export interface PodObservation {
  /** namespace/name */
  pod: string;
  hostname: string;
  probe: ReadinessProbe | null;
  /** The image the pod's spec names: what the lab ran in its place is the runtime's whatRan. */
  image: string;
}

export interface StopObservation {
  pod: string;
  signal: string;
  graceSeconds: number;
  killed: boolean;
  /** From the stop signal to the process's exit, as the lab kubelet timed it. */
  exitedInMs: number;
}
/** How often a call to an API that is not up yet is tried again. */
const RETRY_MS = 100;

export type PodRuntime = Pick<LabRuntime, 'runSandbox' | 'removeSandbox' | 'startContainer' | 'stopContainer' | 'whatRan'>;

export interface AgentIO {
  /** The node is registered (the lab driver waits for this). */
  markRegistered(uid: string): void;
  /** The node reported Ready (the lab driver waits for this). */
  markReady(): void;
  /** One HTTP readiness probe: true for a status from 200 to 399 within the timeout. */
  httpProbe(ip: string, port: number, path: string, timeoutMs: number): Promise<boolean>;
  /** What the agent decided changed (a pod started or stopped). */
  decided(): void;
  log(line: string): void;
}

interface PodRecord {
  ref: PodRef;
  containerName: string;
  startedAt: string;
  sandbox: Sandbox | null;
  process: ContainerProcess | null;
  image: string;
  running: { running: { startedAt: string } } | null;
  /** How the container's process ended, once it has. */
  exit: Exit | null;
  /** No more status but the last: the pod is being stopped, or its process ended. */
  stopping: boolean;
  /** The stop under way, once one began. */
  stopped: Promise<void> | null;
  deleted: boolean;
  prober: ReadinessProber | null;
}

const enc = encodeURIComponent;
const keyOf = (meta: Json) => `${meta.namespace}/${meta.name}`;

/** A process's exit as the container status's exitCode: its code, or 128 + the signal's number. */
export function exitCodeOf(exit: Exit): number {
  if (exit.code !== null) return exit.code;
  const number = exit.signal === null ? undefined : (constants.signals as Record<string, number>)[exit.signal];
  return 128 + (number ?? constants.signals.SIGKILL);
}

export class NodeAgent {
  private readonly node: NodeIdentity;
  private readonly api: KubeApi;
  private readonly runtime: PodRuntime;
  private readonly clock: Clock;
  private readonly io: AgentIO;
  private readonly signal: AbortSignal;
  private readonly pods = new Map<string, PodRecord>();
  /** Pods bound before the node had its network. */
  private waiting: Json[] = [];
  private conflist: Json | null = null;
  private stopHeartbeat: (() => void) | null = null;
  /** What the agent decided for each pod it ran, and how each stop went. */
  readonly podsSeen: PodObservation[] = [];
  readonly stops: StopObservation[] = [];

  constructor(options: { node: NodeIdentity; api: KubeApi; runtime: PodRuntime; clock: Clock; io: AgentIO; signal: AbortSignal }) {
    this.node = options.node;
    this.api = options.api;
    this.runtime = options.runtime;
    this.clock = options.clock;
    this.io = options.io;
    this.signal = options.signal;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** Retries a call until it succeeds: the API server may not be up yet. */
  private async retry<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (this.signal.aborted) throw error;
        if (attempt % 50 === 1) this.io.log(`${what}: ${(error as Error).message} (retrying)`);
        await this.clock.sleep(RETRY_MS);
      }
    }
  }

  /** POST the Node (or take the one registered before), then its Lease; heartbeats from then on. */
  async register(): Promise<string> {
    const created = await this.retry('register the node', async () => {
      const answer = await this.api.call('POST', '/api/v1/nodes', nodeObject(this.node, this.now()));
      if (answer.status === 409) return this.api.must('GET', `/api/v1/nodes/${enc(this.node.name)}`);
      if (answer.status !== 201) throw new ApiError(`POST /api/v1/nodes: ${answer.status} ${JSON.stringify(answer.body)}`, answer.status);
      return answer.body as Json;
    });
    const uid = String((created.metadata as Json).uid);
    this.io.log(`registered node ${this.node.name} (${this.node.ip})`);
    this.io.markRegistered(uid);
    await this.retry('create the lease', async () => {
      const lease = leaseObject(this.node.name, uid, this.clock.now());
      const answer = await this.api.call('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease);
      if (answer.status !== 201 && answer.status !== 409) throw new ApiError(`lease: ${answer.status} ${JSON.stringify(answer.body)}`, answer.status);
    });
    this.stopHeartbeat ??= this.clock.every(HEARTBEAT_MS, () => void this.heartbeat().catch((e) => this.io.log(`heartbeat: ${(e as Error).message}`)));
    return uid;
  }

  /** The Node's conditions (Ready once the network is) and the Lease's renewTime. */
  async heartbeat(): Promise<void> {
    await this.api.must(
      'PATCH',
      `/api/v1/nodes/${enc(this.node.name)}/status`,
      nodeStatusPatch(this.conflist !== null, this.now()),
      'application/strategic-merge-patch+json',
    );
    await this.api.must(
      'PATCH',
      `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${enc(this.node.name)}`,
      { spec: { renewTime: microTime(this.clock.now()) } },
      'application/merge-patch+json',
    );
  }

  /** kindnet wrote the CNI conflist: the runtime's network is ready, so is the node; pods that waited start. */
  async networkReady(conflist: Json): Promise<void> {
    this.conflist = conflist;
    await this.retry('report Ready', () => this.heartbeat());
    this.io.log('node Ready');
    this.io.markReady();
    const waiting = this.waiting;
    this.waiting = [];
    await Promise.all(waiting.map((pod) => this.syncPod(pod)));
  }

  /** Watches the pods bound to this node until the signal aborts. */
  watchPods(): Promise<void> {
    const selector = enc(`spec.nodeName=${this.node.name}`);
    return keepWatching(this.api, `/api/v1/pods?watch=true&fieldSelector=${selector}`, (event) => void this.onPodEvent(event), {
      signal: this.signal,
      sleep: (ms) => this.clock.sleep(ms),
      log: (line) => this.io.log(line),
      what: 'pod watch',
    });
  }

  /** Ends the heartbeats and the probes; like kubelet, leaves the pods running. */
  stop(): void {
    this.stopHeartbeat?.();
    this.stopHeartbeat = null;
    for (const pod of this.pods.values()) pod.prober?.stop();
  }

  onPodEvent(event: WatchEvent): Promise<void> {
    if (event.type === 'ERROR' || event.type === 'BOOKMARK') return Promise.resolve();
    if (event.type === 'DELETED') {
      const pod = this.pods.get(keyOf(event.object.metadata as Json));
      return pod === undefined ? Promise.resolve() : this.stopPod(null, pod);
    }
    return this.syncPod(event.object);
  }

  async syncPod(object: Json): Promise<void> {
    const meta = object.metadata as Json;
    const key = keyOf(meta);
    try {
      const previous = this.pods.get(key);
      // A pod of the same name with another uid: the old one goes first.
      if (previous !== undefined && previous.ref.uid !== String(meta.uid)) await this.stopPod(null, previous);
      const current = this.pods.get(key);
      if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) {
        if (current !== undefined) await this.stopPod(object, current);
        else await this.deleteFromApi({ uid: String(meta.uid), namespace: String(meta.namespace), name: String(meta.name) });
        return;
      }
      if (current !== undefined) return;
      if (this.conflist === null) {
        this.waiting.push(object);
        return;
      }
      await this.startPod(object);
    } catch (error) {
      this.io.log(`pod ${key}: ${(error as Error).message}`);
    }
  }

  private async patchStatus(
    pod: PodRecord,
    input: Omit<PodStatusInput, 'hostIP' | 'now' | 'startTime' | 'container'> & { state: PodStatusInput['container']['state'] },
  ): Promise<void> {
    const path = `/api/v1/namespaces/${enc(pod.ref.namespace)}/pods/${enc(pod.ref.name)}/status`;
    const status = podStatus({
      phase: input.phase,
      podIP: input.podIP,
      ready: input.ready,
      hostIP: this.node.ip,
      startTime: pod.startedAt,
      now: this.now(),
      container: { name: pod.containerName, image: pod.image, pid: pod.process?.pid ?? null, state: input.state },
    });
    const answer = await this.api.call('PATCH', path, status, 'application/strategic-merge-patch+json');
    if (answer.status === 404) return;
    if (answer.status !== 200) throw new ApiError(`PATCH ${path}: ${answer.status} ${JSON.stringify(answer.body)}`, answer.status);
  }

  private async startPod(object: Json): Promise<void> {
    const meta = object.metadata as Json;
    const container = ((object.spec as Json).containers as Json[])[0] as Json;
    const ref: PodRef = { uid: String(meta.uid), namespace: String(meta.namespace), name: String(meta.name) };
    const key = keyOf(meta);
    const pod: PodRecord = {
      ref,
      containerName: String(container.name),
      startedAt: this.now(),
      sandbox: null,
      process: null,
      image: String(container.image),
      running: null,
      exit: null,
      stopping: false,
      stopped: null,
      deleted: false,
      prober: null,
    };
    this.pods.set(key, pod);
    if (!labCanRun(pod.image)) {
      this.io.log(`pod ${key}: image ${pod.image} cannot run in the lab`);
      const message = `the shice lab runs nginx images only (as Debian's nginx), not ${pod.image}`;
      await this.patchStatus(pod, { phase: 'Pending', podIP: null, ready: false, state: { waiting: { reason: 'LabCannotRunImage', message } } });
      return;
    }
    const probe = readinessProbeOf(container, `pod ${key}, container ${pod.containerName}`);
    const hostname = podHostname(object);
    pod.sandbox = await this.runtime.runSandbox(ref, this.conflist as Json);
    this.io.log(`pod ${key}: network ${pod.sandbox.ip} in ${pod.sandbox.netns}`);
    const configMaps = new Map<string, Json>();
    for (const name of configMapNames(object))
      configMaps.set(name, await this.api.must('GET', `/api/v1/namespaces/${enc(ref.namespace)}/configmaps/${enc(name)}`));
    const process = await this.runtime.startContainer(ref, pod.sandbox, hostname, configMapFiles(object, container, configMaps));
    pod.process = process;
    const containerStartedAt = this.clock.now();
    pod.running = { running: { startedAt: containerStartedAt.toISOString() } };
    void process.exited.then((exit) => this.onContainerExit(pod, exit));
    const declaredImage = pod.image;
    pod.image = whatRanImage(await this.runtime.whatRan());
    this.podsSeen.push({ pod: key, hostname, probe, image: declaredImage });
    this.io.decided();
    this.io.log(`pod ${key}: nginx pid ${process.pid}`);
    await this.patchStatus(pod, { phase: 'Running', podIP: pod.sandbox.ip, ready: false, state: pod.running });
    if (probe === null) {
      await this.reportReady(pod, true);
      return;
    }
    pod.prober = new ReadinessProber({
      probe,
      startedAt: containerStartedAt,
      clock: this.clock,
      check: (p: ReadinessProbe) => this.io.httpProbe((pod.sandbox as Sandbox).ip, p.port, p.path, p.timeoutSeconds * 1000),
      onChange: (ready) => this.reportReady(pod, ready).catch((e) => this.io.log(`status: ${(e as Error).message}`)),
    });
    if (!pod.stopping) pod.prober.start();
  }

  private async reportReady(pod: PodRecord, ready: boolean): Promise<void> {
    if (pod.stopping || pod.running === null) return;
    this.io.log(`pod ${pod.ref.namespace}/${pod.ref.name}: ready=${ready}`);
    await this.patchStatus(pod, { phase: 'Running', podIP: pod.sandbox?.ip ?? null, ready, state: pod.running });
  }

  /** A container that ends on its own is reported as kubelet reports it; the lab does not restart it. */
  private async onContainerExit(pod: PodRecord, exit: Exit): Promise<void> {
    pod.exit = exit;
    if (pod.stopping) return;
    pod.stopping = true;
    pod.prober?.stop();
    this.io.log(`pod ${pod.ref.namespace}/${pod.ref.name}: nginx exited (${exit.code ?? exit.signal})`);
    await this.patchStatus(pod, { phase: 'Running', podIP: pod.sandbox?.ip ?? null, ready: false, state: this.terminated(pod, exit) }).catch((e) =>
      this.io.log(`status: ${(e as Error).message}`),
    );
  }

  private terminated(pod: PodRecord, exit: Exit): PodStatusInput['container']['state'] {
    const exitCode = exitCodeOf(exit);
    return {
      terminated: {
        exitCode,
        reason: exitCode === 0 ? 'Completed' : 'Error',
        startedAt: pod.running?.running.startedAt ?? pod.startedAt,
        finishedAt: this.now(),
      },
    };
  }

  /**
   * kubelet's kill, the sandbox's teardown, then (for a pod being deleted) the
   * object's removal. Called again while it runs, it waits for the same stop.
   */
  private async stopPod(object: Json | null, pod: PodRecord): Promise<void> {
    pod.stopped ??= this.stopAndTearDown(object, pod);
    await pod.stopped;
    if (object !== null && !pod.deleted) {
      pod.deleted = true;
      await this.deleteFromApi(pod.ref);
    }
  }

  private async stopAndTearDown(object: Json | null, pod: PodRecord): Promise<void> {
    pod.stopping = true;
    pod.prober?.stop();
    const name = `${pod.ref.namespace}/${pod.ref.name}`;
    if (pod.process !== null && pod.exit === null) {
      const graceSeconds = gracePeriodSeconds(object);
      const since = performance.now();
      const stopped = await this.runtime.stopContainer(pod.process, graceSeconds);
      this.stops.push({ pod: name, signal: stopped.signal, graceSeconds, killed: stopped.killed, exitedInMs: Math.round(performance.now() - since) });
      this.io.decided();
      this.io.log(`pod ${name}: container stopped (${stopped.signal}${stopped.killed ? ', then SIGKILL' : ''})`);
      await this.patchStatus(pod, { phase: 'Running', podIP: pod.sandbox?.ip ?? null, ready: false, state: this.terminated(pod, stopped.exit) }).catch((e) =>
        this.io.log(`status: ${(e as Error).message}`),
      );
    }
    if (pod.sandbox !== null && this.conflist !== null) await this.runtime.removeSandbox(pod.ref, this.conflist);
    if (this.pods.get(name) === pod) this.pods.delete(name);
  }

  /** The last word is kubelet's: with the pod stopped, it deletes the object for good. */
  private async deleteFromApi(ref: PodRef): Promise<void> {
    const answer = await this.api.call('DELETE', `/api/v1/namespaces/${enc(ref.namespace)}/pods/${enc(ref.name)}`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: ref.uid },
    });
    this.io.log(`pod ${ref.namespace}/${ref.name}: deleted from the API (${answer.status})`);
  }
}
