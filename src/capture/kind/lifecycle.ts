// A kind run's cluster from finding to deleting: a cluster of the experiment's
// name is looked for, and ownership decides whether it is reused, recreated,
// refused, or created fresh. Before `kind create` the run writes its record and
// the ownership marker (so a kill -9 leaves something --clean can find and
// prove), and reads what the create may change on the host; after it, the
// marker lists the node containers. The teardown (teardown.ts) undoes it all.
import { existsSync, mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { ProviderContext } from '../provider/node-provider.ts';
import { DriverError, PrerequisiteError } from '../provider/node-provider.ts';
import { recordKindRun } from '../recovery/run-registry.ts';
import { liveContainers, markerOf } from './cluster-containers.ts';
import * as cmd from './commands.ts';
import { renderKindConfig } from './config.ts';
import { journalChanges, readSysctls } from './engine/host-state.ts';
import { decideClusterAction, isOwned, removeMarker, writeMarker } from './ownership.ts';
import { KIND_MARKS } from './phases.ts';
import { kindStatePaths, type KindScope } from './settings.ts';
import { ClusterTeardown, LIB_MODULES, newClaim, type ClusterClaim } from './teardown.ts';
import { parseKindClusters } from './tool-output.ts';

export class KindClusterLifecycle {
  private readonly scope: KindScope;
  private readonly claim: ClusterClaim = newClaim();
  private readonly teardown: ClusterTeardown;

  constructor(scope: KindScope) {
    this.scope = scope;
    this.teardown = new ClusterTeardown(scope, scope.target, this.claim);
  }

  /** The argv of the create this run would start (the node image as chosen so far). */
  createArgv(): string[] {
    const { target, state, stateDir, options } = this.scope;
    return cmd.kindCreateCluster(target, kindStatePaths(stateDir, target.cluster).config, state.nodeImage.name ?? options.image, !state.setup.cniStandIn);
  }

  /** A cluster of the experiment's name, the capture's own: reused, recreated or created; any other refused. */
  async bringUp(ctx: ProviderContext): Promise<void> {
    const { target, tools, stateDir, timeouts, options } = this.scope;
    const { cluster } = target;
    mkdirSync(stateDir, { recursive: true });
    ctx.log(`looking for an existing kind cluster "${cluster}"`);
    const clusters = parseKindClusters((await tools.run(cmd.kindGetClusters(), { what: 'list kind clusters', ctx })).stdout);
    const exists = clusters.includes(cluster);
    let owned = false;
    let marker: Awaited<ReturnType<typeof markerOf>> = null;
    if (exists) {
      const live = await liveContainers(tools, cluster, ctx);
      marker = await markerOf(stateDir, cluster);
      owned = isOwned(marker, cluster, live);
    }
    const decision = decideClusterAction({
      cluster,
      exists,
      owned,
      reuse: options.reuse,
      markerFile: kindStatePaths(stateDir, cluster).marker,
      slug: this.scope.experiment.slug,
      keptFor: marker?.slug,
    });
    // Refused like a target that is not the capture's: exit 2, nothing touched.
    if (decision.action === 'refuse') throw new PrerequisiteError(decision.reason);
    // A kept cluster's marker holds the host as it was before its create: whoever deletes it puts that back.
    if ((decision.action === 'reuse' || decision.action === 'recreate') && marker?.hostBefore) this.claim.before = { ...marker.hostBefore };
    if (decision.action === 'reuse') {
      this.claim.owns = true;
      ctx.log(`reusing kind cluster "${cluster}", created by an earlier capture`);
    }
    if (decision.action === 'recreate') {
      this.claim.owns = true;
      ctx.log(`deleting kind cluster "${cluster}" left by an earlier capture, to start fresh${decision.why ? ` (not reused: ${decision.why})` : ''}`);
      await tools.run(cmd.kindDeleteCluster(target), { what: `delete kind cluster "${cluster}"`, timeoutMs: timeouts.deleteMs, ctx });
      await removeMarker(stateDir, cluster);
    }
    if (decision.action === 'create' && options.reuse) ctx.log(`no kind cluster "${cluster}" to reuse: creating one`);
    if (decision.action === 'create' || decision.action === 'recreate') await this.create(ctx);
  }

  /** down(), returning what it removed, one phrase each. */
  down(log: (line: string) => void): Promise<string[]> {
    return this.teardown.teardown(log);
  }

  private async create(ctx: ProviderContext): Promise<void> {
    const { target, tools, stateDir, options, experiment, state, engine } = this.scope;
    const { cluster } = target;
    const { before } = this.claim;
    if (options.host) {
      // kind leaves its network behind; the capture removes it afterwards only if it was not there before.
      if (before.kindNetworkExisted === null) {
        const network = await tools.run(cmd.dockerNetworkInspect(cmd.KIND_NETWORK), { what: `inspect docker network "${cmd.KIND_NETWORK}"`, check: 'none' });
        before.kindNetworkExisted = network.exitCode === 0;
      }
      // kind mounts the host's /lib/modules into every node; with shice's own engine that host is this machine.
      if (engine !== null) before.libModulesExisted ??= existsSync(LIB_MODULES);
      // Privileged nodes write kernel settings that are not namespaced (kubelet's kernel.panic, systemd's fs.file-max): the host's own.
      // After a kept cluster was deleted to start afresh, its settings are still there: the host before it is the one to keep.
      if (engine !== null) before.hostSysctls ??= readSysctls();
    }
    await writeFile(kindStatePaths(stateDir, cluster).config, renderKindConfig(experiment.cluster, options.runId, state.setup));
    // The record and the marker exist before kind starts: after a kill -9, the next capture or
    // --clean finds the cluster by them (leftovers.ts) and the marker proves it is this run's.
    if (before.hostSysctls) before.hostJournal ??= [];
    const record = () => {
      if (options.host)
        recordKindRun({
          runId: options.runId,
          cluster,
          stateDir,
          root: options.host.root,
          ...(before.hostSysctls ? { hostSysctls: before.hostSysctls, hostJournal: before.hostJournal ?? [] } : {}),
          ...(before.kindNetworkExisted === null ? {} : { kindNetworkExisted: before.kindNetworkExisted }),
          ...(before.libModulesExisted === null ? {} : { libModulesExisted: before.libModulesExisted }),
        });
    };
    record();
    this.claim.recorded = options.host !== undefined;
    const marker = { createdBy: 'shice' as const, cluster, runId: options.runId, createdAt: new Date().toISOString(), slug: experiment.slug, containers: [] };
    await writeMarker(stateDir, marker);
    this.claim.createStarted = true;
    this.claim.owns = true;
    const nodes = experiment.cluster.nodes.length;
    const image = state.nodeImage.name ?? "kind's default node image";
    ctx.log(`${KIND_MARKS.create} "${cluster}" (${nodes} node${nodes === 1 ? '' : 's'}, ${image}; this takes a minute or two)`);
    // What the create changes of the host's kernel settings is journalled in the record as it is
    // seen (every 2 s while kind runs, and once it is done): a kill -9 leaves the undo on disk.
    const journal = () => {
      if (!before.hostSysctls || !before.hostJournal) return;
      const next = journalChanges(before.hostSysctls, readSysctls(), before.hostJournal);
      if (JSON.stringify(next) === JSON.stringify(before.hostJournal)) return;
      before.hostJournal = next;
      record();
    };
    const watch = before.hostSysctls ? setInterval(journal, 2000) : null;
    try {
      await tools.run(this.createArgv(), { what: `create kind cluster "${cluster}"`, timeoutMs: this.scope.timeouts.createMs, ctx });
    } finally {
      if (watch) clearInterval(watch);
      journal();
    }
    const live = await liveContainers(tools, cluster, ctx);
    if (live.length === 0)
      throw new DriverError(`kind create cluster reported success, but docker lists no containers labelled ${cmd.KIND_CLUSTER_LABEL}=${cluster}`);
    await writeMarker(stateDir, { ...marker, createdAt: new Date().toISOString(), containers: live });
  }
}
