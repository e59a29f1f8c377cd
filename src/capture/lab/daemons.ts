// The lab's long-running processes (etcd, the API server, the controllers,
// the lab kubelets, kube-proxy): started through the one process runner
// (process.ts), each logged into the run folder, watched for an early exit,
// and stopped in the reverse order of starting, the node agents first.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DaemonError, isAlive, readLogTail, startDaemon, stopProcess, waitUntil, type Daemon } from '../machine/process.ts';
import { processStartTime } from '../machine/process-identity.ts';
import { DriverError } from '../provider/node-provider.ts';
import { settleAll } from './together.ts';

const STOP_GRACE_MS = 5_000;

/** What the lab's processes are to its teardown: node agents (kubelets, kube-proxy) go first, side by side; the control plane after, etcd last. */
export type DaemonRole = 'control-plane' | 'node-agent';

interface Running {
  daemon: Daemon;
  role: DaemonRole;
  /** Its place in the start order: the control plane stops in the reverse of it. */
  order: number;
}

/** A process as the run's record names it: a later --clean stops it only while its start time matches. */
export interface RecordedProcess {
  pid: number;
  startTime: string | null;
  label: string;
}

export class LabDaemons {
  private readonly folder: string;
  /** Called whenever the set of running processes changes: the run's record follows it. */
  private readonly changed: () => void;
  private readonly running = new Map<string, Running>();
  private started = 0;
  private stopping = false;
  /** The first of the processes that exited while the lab was up: every wait checks it. */
  private died: { label: string; code: number | null; log: string } | null = null;

  constructor(folder: string, changed: () => void) {
    this.folder = folder;
    this.changed = changed;
  }

  logFile(label: string): string {
    mkdirSync(join(this.folder, 'logs'), { recursive: true });
    return join(this.folder, 'logs', `${label.replaceAll(' ', '.')}.log`);
  }

  /** Starts `argv` as `label`, its output into the run's logs/; a process that cannot start fails the run as the lab's other failures do. */
  async start(label: string, argv: string[], role: DaemonRole): Promise<Daemon> {
    let daemon: Daemon;
    try {
      daemon = await startDaemon(label, argv, this.logFile(label));
    } catch (error) {
      throw error instanceof DaemonError ? new DriverError(error.message) : error;
    }
    this.running.set(label, { daemon, role, order: this.started++ });
    this.changed();
    // A component that dies at start says why in its log; the waits notice it through this.
    void daemon.exited.then((code) => {
      if (!this.stopping && this.running.has(label)) this.died ??= { label, code, log: daemon.logFile };
    });
    return daemon;
  }

  /** Throws, naming the component and the end of its log, when one of the lab's processes has exited. */
  checkAlive(): void {
    if (this.died === null) return;
    const { label, code, log } = this.died;
    throw new DriverError(`lab: ${label} exited (${code === null ? 'killed by a signal' : `code ${code}`}): ${readLogTail(log, 3) || 'no log'}`);
  }

  /**
   * What died since the start: each process is asked of the kernel itself (its exit event may not
   * have arrived yet), and named with the end of its log.
   */
  async problems(): Promise<string[]> {
    const gone = [...this.running.values()].filter((r) => !isAlive(r.daemon.pid));
    if (this.died === null && gone.length === 0) return [];
    // The kernel knows first; the exit event, which says how it ended, follows within moments.
    if (this.died === null) await waitUntil(() => this.died !== null, 1_000, 20);
    try {
      this.checkAlive();
    } catch (error) {
      return [(error as Error).message];
    }
    return gone.map((r) => `lab: ${r.daemon.label} is gone: ${readLogTail(r.daemon.logFile, 3) || 'no log'}`);
  }

  get count(): number {
    return this.running.size;
  }

  /** The running processes as the run's record keeps them. */
  recorded(): RecordedProcess[] {
    return [...this.running.values()].map((r) => ({ pid: r.daemon.pid, startTime: processStartTime(r.daemon.pid), label: r.daemon.label }));
  }

  /** "pid (label)" of each, for the lines that say what a kept lab left running. */
  described(): string[] {
    return [...this.running.values()].map((r) => `${r.daemon.pid} (${r.daemon.label})`);
  }

  /** Leaves every process running from here on: their exits are no longer a failure of the run. */
  release(): void {
    this.stopping = true;
  }

  /** Stops every process: the node agents side by side (so nothing re-creates what goes), then the control plane one by one, etcd last. Returns how many. */
  async stopAll(): Promise<number> {
    this.stopping = true;
    const newestFirst = [...this.running.entries()].sort((a, b) => b[1].order - a[1].order);
    const agents = newestFirst.filter(([, r]) => r.role === 'node-agent');
    const controlPlane = newestFirst.filter(([, r]) => r.role === 'control-plane');
    await settleAll(agents.map(([label]) => this.stop(label)));
    for (const [label] of controlPlane) await this.stop(label);
    return agents.length + controlPlane.length;
  }

  private async stop(label: string): Promise<void> {
    const running = this.running.get(label);
    if (running === undefined) return;
    await stopProcess(running.daemon.pid, 'SIGTERM', STOP_GRACE_MS, running.daemon.exited);
    this.running.delete(label);
    this.changed();
  }
}
