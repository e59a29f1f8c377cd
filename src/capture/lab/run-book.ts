// The bookkeeping of one lab run: what it made (its folder, its namespaces,
// its processes) and its record in the run registry, written before each
// thing exists, so that a kill -9 at any moment leaves nothing a later
// capture or --clean cannot find; and the teardown that removes it all, or
// the lines that say what a kept run left up.
import { mkdirSync, rmSync } from 'node:fs';
import { DriverError } from '../provider/node-provider.ts';
import { forgetRun, recordRun } from '../recovery/run-registry.ts';
import { LabDaemons } from './daemons.ts';
import { deleteNamespaces, listNamespaces, stopNamespaceProcesses } from './leftovers.ts';
import { assertRunId, runFolder, runNamespacePrefix } from './names.ts';
import { claimNetnsMount, releaseNetnsMount } from './netns-mount.ts';

export class LabRunBook {
  readonly runId: string;
  readonly folder: string;
  readonly daemons: LabDaemons;
  /** Namespaces this run created, in creation order (the pods' are found by the run's prefix). */
  private namespaces: string[] = [];
  private folderCreated = false;
  private finished = false;

  constructor(runId: string) {
    assertRunId(runId);
    this.runId = runId;
    this.folder = runFolder(runId);
    this.daemons = new LabDaemons(this.folder, () => {
      if (!this.finished && this.folderCreated) this.record();
    });
  }

  /** Whether down() has run to its end (or kept the run): nothing may start any more. */
  get done(): boolean {
    return this.finished;
  }

  /** The run's own namespaces and folder, refused when any exists already; recorded from before the folder is made. */
  async claim(): Promise<void> {
    const prefix = runNamespacePrefix(this.runId);
    const existing = (await listNamespaces()).filter((ns) => ns.startsWith(prefix));
    if (existing.length > 0) {
      throw new DriverError(`lab run ${this.runId} already has namespaces (${existing.join(', ')}): remove them with npm run capture -- --driver lab --clean`);
    }
    this.record(); // before anything exists: a kill -9 from here on is recoverable
    try {
      mkdirSync(this.folder, { mode: 0o700 });
      this.folderCreated = true;
    } catch (error) {
      throw new DriverError(
        `lab run folder ${this.folder}: ${error instanceof Error ? error.message : String(error)}: remove it with npm run capture -- --driver lab --clean`,
      );
    }
    this.record();
  }

  /** Namespaces about to be created, recorded before they exist: an interrupted `ip netns add` may still have created one. */
  async addNamespaces(names: readonly string[]): Promise<void> {
    if (this.namespaces.length === 0) await claimNetnsMount(this.runId);
    this.namespaces.push(...names);
    this.record();
  }

  /** The run's record (run-registry.ts): what a later capture or --clean removes if this one is killed. */
  private record(kept = false): void {
    recordRun({
      runId: this.runId,
      ...(kept ? { kept } : {}),
      namespaces: this.namespaces,
      // The pods' namespaces are the lab kubelets' to make: they carry the run's prefix.
      namespacePrefix: runNamespacePrefix(this.runId),
      processes: this.daemons.recorded(),
      folders: [this.folder],
    });
  }

  private madeSomething(): boolean {
    return this.folderCreated || this.namespaces.length > 0 || this.daemons.count > 0;
  }

  /**
   * Removes everything the run made, or with `keep`, records it as kept and says how to reach
   * it (`reach`: the kubectl line for its API server). Idempotent; safe after a partial start.
   */
  async down(ctx: { log: (line: string) => void }, keep: { reach: string } | null): Promise<void> {
    if (this.finished) return;
    if (!this.madeSomething()) {
      this.finished = true;
      forgetRun(this.runId);
      return;
    }
    if (keep !== null) this.keep(ctx, keep.reach);
    else await this.tearDown(ctx);
  }

  private keep(ctx: { log: (line: string) => void }, reach: string): void {
    this.record(true);
    this.finished = true;
    this.daemons.release();
    const pids = this.daemons.described();
    ctx.log(`lab kept: namespaces ${this.namespaces.join(', ') || 'none'}; processes ${pids.join(', ') || 'none'}; files in ${this.folder}`);
    ctx.log(`lab kept: kubectl: ${reach}`);
    ctx.log('lab kept: remove it with npm run capture -- --driver lab --clean');
  }

  /** The processes (node agents first, etcd last), whatever else runs in the run's namespaces, the namespaces, the folder, the record. */
  private async tearDown(ctx: { log: (line: string) => void }): Promise<void> {
    const start = performance.now();
    let processes = await this.daemons.stopAll();
    // Pods' namespaces were made by the lab kubelets: they carry the run's prefix.
    const prefix = runNamespacePrefix(this.runId);
    const made = (await listNamespaces()).filter((ns) => ns.startsWith(prefix) && !this.namespaces.includes(ns));
    const all = [...new Set([...made, ...[...this.namespaces].reverse()])];
    try {
      // Whatever else still runs in there (the pods' nginx, a process that ignored its signal).
      processes += (await stopNamespaceProcesses(all)).length;
      await deleteNamespaces(all);
    } finally {
      const left = new Set(await listNamespaces());
      this.namespaces = this.namespaces.filter((ns) => left.has(ns));
    }
    if (this.folderCreated) rmSync(this.folder, { recursive: true, force: true });
    const unmounted = await releaseNetnsMount(this.runId);
    this.finished = true;
    forgetRun(this.runId); // all it recorded is gone
    ctx.log(`lab down: ${all.length} namespaces and ${processes} processes removed in ${Math.round(performance.now() - start)} ms`);
    if (unmounted !== null) ctx.log(`lab down: removed ${unmounted}`);
  }
}
