// Taking a kind run's cluster down, and what its create made besides: the node
// containers until docker lists none, the marker, the kind config and manifest
// copies, the kubeconfig once kind has pruned it, kind's network and an empty
// /lib/modules where they were not there before, and the host's kernel settings
// as they were. Also what a killed run left, found by its record (leftovers.ts).
import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { firstLine, seconds, sleep } from '../machine/process.ts';
import { DriverError } from '../provider/node-provider.ts';
import { forgetRecord } from '../recovery/run-registry.ts';
import { liveContainers, markerOf } from './cluster-containers.ts';
import * as cmd from './commands.ts';
import { leftText, readSysctls, undoSysctls, undoText, unjournalled, withClusterSettings } from './engine/host-state.ts';
import { isOwned, markerPath, removeMarker, writeMarker, type HostBefore } from './ownership.ts';
import { kindStatePaths, type KindPlace } from './settings.ts';

/** kind bind-mounts it into every node; docker creates it on the host when it is missing. */
export const LIB_MODULES = '/lib/modules';

export type { HostBefore };

/** What this run may do to the cluster, and what it has done: the lifecycle writes it, the teardown reads it. */
export interface ClusterClaim {
  /** This run may delete the cluster: it created it, or proved an earlier capture did. */
  owns: boolean;
  /** `kind create cluster` was started by this run (containers may exist even if it failed). */
  createStarted: boolean;
  /** This run wrote a record of its cluster in the run registry (real runs, with host). */
  recorded: boolean;
  done: boolean;
  before: HostBefore;
}

export const newClaim = (): ClusterClaim => ({
  owns: false,
  createStarted: false,
  recorded: false,
  done: false,
  before: { kindNetworkExisted: null, libModulesExisted: null, hostSysctls: null, hostJournal: null },
});

export class ClusterTeardown {
  private readonly place: KindPlace;
  private readonly target: cmd.KindTarget;
  private readonly claim: ClusterClaim;

  constructor(place: KindPlace, target: cmd.KindTarget, claim: ClusterClaim) {
    this.place = place;
    this.target = target;
    this.claim = claim;
  }

  /** down(): removes what this run made, returning it, one phrase each. Idempotent; runs without the abort signal, so cleanup also happens after Ctrl-C. */
  async teardown(log: (line: string) => void): Promise<string[]> {
    const { claim, place } = this;
    const { cluster } = this.target;
    // Nothing of ours exists (up() never ran, or refused a cluster it did not create).
    if (claim.done || !claim.owns) {
      claim.done = true;
      return [];
    }
    if (place.options.keep) {
      await this.recordContainersIfMissing();
      await this.keepHostBefore();
      log(`keeping kind cluster "${cluster}" (kubeconfig ${place.kubeconfig}); --reuse runs on it`);
      // Kept on purpose: no longer a leftover for the next capture or --clean to remove.
      if (claim.recorded) forgetRecord('kind', place.options.runId);
      claim.done = true;
      return [];
    }
    const removed: string[] = [];
    const marker = await markerOf(place.stateDir, cluster);
    let live = await liveContainers(place.tools, cluster);
    if (live.length > 0 && marker && marker.containers.length > 0 && !isOwned(marker, cluster, live)) {
      throw new DriverError(
        `kind cluster "${cluster}" now has containers this capture did not create (marker ${markerPath(place.stateDir, cluster)}); not deleting it`,
      );
    }
    if (live.length > 0 || claim.createStarted) {
      log(`deleting kind cluster "${cluster}"`);
      const gone = new Set(live.map((c) => c.name));
      const deleteMs = place.timeouts.deleteMs;
      const deleted = await place.tools.run(cmd.kindDeleteCluster(this.target), {
        what: `delete kind cluster "${cluster}"`,
        check: 'exit',
        timeoutMs: deleteMs,
      });
      // kind fails when a node it listed is deleted under it (a `kind delete` from another shell): what is left is removed below.
      const kindSaid = deleted.exitCode === 0 ? '' : `: ${firstLine(deleted.stderr) || `exit ${deleted.exitCode}`}`;
      // A `docker run` killed mid-request (an interrupted kind create) leaves docker creating its node: listed,
      // yet "No such container" to a delete until docker has copied the image's /var into the node's volume
      // (seconds). kind's delete says it deleted such a node all the same; it is removed once docker lets it.
      const deadline = performance.now() + deleteMs;
      for (live = await liveContainers(place.tools, cluster); live.length > 0; live = await liveContainers(place.tools, cluster)) {
        for (const c of live) gone.add(c.name);
        if (performance.now() > deadline)
          throw new DriverError(
            `could not delete kind cluster "${cluster}": docker still lists ${live.map((c) => c.name).join(', ')} ${seconds(deleteMs)} after kind's delete${kindSaid}`,
          );
        const ids = live.map((c) => c.id);
        await place.tools.run(cmd.dockerRemoveContainers(ids), { what: `remove the node containers of "${cluster}"`, check: 'exit' });
        await sleep(place.timeouts.pollMs);
      }
      if (gone.size > 0) removed.push(`kind cluster "${cluster}" (${[...gone].sort().join(', ')})`);
    }
    await removeMarker(place.stateDir, cluster);
    await this.removeStateFiles();
    removed.push(...(await this.restoreHost(log)));
    if (claim.recorded) forgetRecord('kind', place.options.runId);
    claim.done = true;
    return removed;
  }

  /**
   * kind's network and an empty /lib/modules where the create made them, and the undo of the
   * kernel settings the create changed (its journal), each only while it holds the value the
   * cluster set. Also run on its own for a killed run whose cluster is already gone. Throws
   * when an undo is not done, so that the run's record stays.
   */
  async restoreHost(log: (line: string) => void): Promise<string[]> {
    const { before } = this.claim;
    const removed: string[] = [];
    if (before.kindNetworkExisted === false) {
      const network = await this.removeKindNetwork(log);
      if (network) removed.push(network);
    }
    if (before.libModulesExisted === false && existsSync(LIB_MODULES) && readdirSync(LIB_MODULES).length === 0) {
      rmdirSync(LIB_MODULES);
      log(`removed the empty ${LIB_MODULES} that docker made for kind's node mounts`);
      removed.push(`the empty ${LIB_MODULES} docker made for kind's node mounts`);
    }
    // What the journal saw, and what a kind cluster is known to change that it had not seen yet (a kill -9 between two readings).
    const journal = before.hostSysctls !== null ? withClusterSettings(before.hostSysctls, readSysctls(), before.hostJournal ?? []) : before.hostJournal;
    if (journal !== null) {
      const { restored, left, failed } = undoSysctls(journal);
      if (restored.length > 0) {
        log(`undid what the cluster changed of this host's kernel settings: ${restored.map(undoText).join(', ')}`);
        removed.push(`the cluster's changes to this host's kernel settings (written back: ${restored.map(undoText).join(', ')})`);
      }
      for (const l of left) log(leftText(l));
      if (failed.length > 0) throw new DriverError(`could not write back ${failed.map(({ entry, error }) => `${undoText(entry)} (${error})`).join(', ')}`);
    }
    if (before.hostSysctls !== null) {
      // Seen, never written: no journal says the cluster made these.
      const other = unjournalled(before.hostSysctls, readSysctls(), journal ?? []);
      if (other.length > 0)
        log(
          `left as they are, not recorded as the cluster's changes (different from before its create): ${other.map((c) => `${c.name} ${c.before} -> ${c.after}`).join(', ')}`,
        );
    }
    return removed;
  }

  /** With --keep: the host as it was before the create goes into the marker, for the run that deletes the cluster. */
  private async keepHostBefore(): Promise<void> {
    const { before } = this.claim;
    const marker = await markerOf(this.place.stateDir, this.target.cluster);
    if (marker && Object.values(before).some((v) => v !== null)) await writeMarker(this.place.stateDir, { ...marker, hostBefore: before });
  }

  /** With --keep after an interrupted create, record what exists so a later --reuse or delete can prove ownership. */
  private async recordContainersIfMissing(): Promise<void> {
    const { stateDir, tools } = this.place;
    const marker = await markerOf(stateDir, this.target.cluster);
    if (!marker || marker.containers.length > 0 || !this.claim.createStarted) return;
    const live = await liveContainers(tools, this.target.cluster);
    if (live.length > 0) await writeMarker(stateDir, { ...marker, containers: live });
  }

  /**
   * The kind config and manifest copies of a deleted cluster, and the capture's kubeconfig
   * once kind's delete has pruned the last cluster from it: a capture leaves no kubeconfig behind.
   */
  private async removeStateFiles(): Promise<void> {
    const { stateDir } = this.place;
    const paths = kindStatePaths(stateDir, this.target.cluster);
    await rm(paths.config, { force: true });
    await rm(join(stateDir, `${this.target.cluster}.manifests`), { recursive: true, force: true });
    let text: string;
    try {
      text = await readFile(paths.kubeconfig, 'utf8');
    } catch {
      return;
    }
    const parsed = load(text) as { clusters?: unknown[] | null } | null;
    if (!parsed || !Array.isArray(parsed.clusters) || parsed.clusters.length === 0) await rm(paths.kubeconfig, { force: true });
  }

  /** kind's network, which this capture's create made: removed once no container is on it. Returns what it removed, or null. */
  private async removeKindNetwork(log: (line: string) => void): Promise<string | null> {
    const { tools } = this.place;
    const inspect = await tools.run(cmd.dockerNetworkInspect(cmd.KIND_NETWORK), { what: `inspect docker network "${cmd.KIND_NETWORK}"`, check: 'none' });
    if (inspect.exitCode !== 0) return null;
    const [id, count] = inspect.stdout.trim().split(' ');
    const attached = Number(count);
    if (attached > 0) {
      log(`leaving docker network "${cmd.KIND_NETWORK}": ${attached} container(s) still use it`);
      return null;
    }
    log(`removing docker network "${cmd.KIND_NETWORK}", which this capture's cluster created`);
    await tools.run(cmd.dockerNetworkRemove(cmd.KIND_NETWORK), { what: `remove docker network "${cmd.KIND_NETWORK}"` });
    // Docker names a network's bridge br-<the first 12 characters of its id>.
    return `docker network "${cmd.KIND_NETWORK}" and its bridge br-${(id ?? '').slice(0, 12)}`;
  }
}
