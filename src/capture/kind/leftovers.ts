// What a killed kind run left, found only by its record in the run registry:
// the processes it still had running, then its cluster (only while the marker
// still names that run and the containers are the ones it recorded), kind's
// network and /lib/modules where its create made them, and the kernel settings.
import { HEADLINE_RELEASE } from '../../experiment/kubernetes.ts';
import { basename } from 'node:path';
import { firstLine, stopProcessesWithEnv } from '../machine/process.ts';
import { DriverError, type ProviderLeftovers } from '../provider/node-provider.ts';
import type { KindRunRecord } from '../recovery/run-registry.ts';
import { liveContainers, markerOf } from './cluster-containers.ts';
import { dockerVersion } from './commands.ts';
import { isOwned, markerPath } from './ownership.ts';
import { kindPlace, RUN_MARK, type KindPlace } from './settings.ts';
import { ClusterTeardown, newClaim, type HostBefore } from './teardown.ts';
import { dockerServerUp } from './tools.ts';

/** "kind create cluster …, 3× docker run": the processes a killed run had running, each kind once. */
export function processSummary(commands: string[]): string {
  const counts = new Map<string, number>();
  for (const c of commands) {
    const words = c.split(' ');
    words[0] = basename(words[0] ?? '');
    const what = words.slice(0, words[0] === 'kind' ? 3 : 2).join(' ');
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts].map(([what, n]) => (n === 1 ? what : `${n}× ${what}`)).join(', ');
}

/**
 * What a killed run of this id left, removed as its own down() would have: first every process
 * it had running (a `kind create` and its `docker run`s go on otherwise), then its cluster, only
 * while the marker still names this run and the containers are the ones it recorded, then kind's
 * network and /lib/modules where the run's create made them. Returns what it removed.
 */
export async function removeLeftovers(place: KindPlace, record: KindRunRecord): Promise<string[]> {
  const { cluster } = record;
  const { runId } = place.options;
  const removed: string[] = [];
  const stopped = await stopProcessesWithEnv(`${RUN_MARK}=${runId}`);
  if (stopped.length > 0) removed.push(`the ${stopped.length} process(es) it still had running (${processSummary(stopped)})`);
  const docker = await place.tools.run(dockerVersion(), { what: 'ask the Docker daemon', check: 'none' });
  if (docker.exitCode !== 0 || !dockerServerUp(docker.stdout)) {
    const said = removed.length > 0 ? `stopped ${removed[0]}, but ` : '';
    throw new DriverError(
      `${said}the Docker daemon does not answer (${firstLine(docker.stderr) || 'docker version printed no server'}), so its kind cluster "${cluster}" could not be looked for: start it (npm run kind:prepare) and run --clean again`,
    );
  }
  const marker = await markerOf(place.stateDir, cluster);
  const claim = newClaim();
  claim.before = hostBeforeOf(record);
  const teardown = new ClusterTeardown(place, { cluster, kubeconfig: place.kubeconfig }, claim);
  // A later capture recreated it, or it is gone (a kill -9 after the teardown removed the marker):
  // not this run's cluster to delete, but what its create changed of the host is still its to undo.
  // A setting left as someone else set it is said with the rest (recover.ts prints a "left" line as it is).
  const said: string[] = [];
  const log = (line: string) => {
    if (line.startsWith('left ')) said.push(line);
  };
  if (!marker || marker.runId !== runId) return [...removed, ...(await teardown.restoreHost(log)), ...said];
  const live = await liveContainers(place.tools, cluster);
  if (live.length > 0 && marker.containers.length > 0 && !isOwned(marker, cluster, live)) {
    throw new DriverError(
      `kind cluster "${cluster}" has containers run ${runId} did not create (marker ${markerPath(place.stateDir, cluster)}); not deleting it`,
    );
  }
  claim.owns = true;
  claim.createStarted = true;
  removed.push(...(await teardown.teardown(log)), ...said);
  return removed;
}

/** What a run's record says was there before its create, and the undo of what the create changed. */
export function hostBeforeOf(record: KindRunRecord): HostBefore {
  return {
    hostSysctls: record.hostSysctls ?? null,
    hostJournal: record.hostJournal ?? null,
    kindNetworkExisted: record.kindNetworkExisted ?? null,
    libModulesExisted: record.libModulesExisted ?? null,
  };
}

/** The kind driver's answer to the capture's recovery: the clusters its killed runs recorded, nothing else. */
export const kindLeftovers: ProviderLeftovers = {
  kind: 'kind',
  async remove(record) {
    if (record.kind !== 'kind') return [];
    const place = kindPlace({
      runId: record.runId,
      articleDir: record.root,
      // kind delete needs kind and docker only; the release picks kubectl's folder, which it does not run.
      kubernetes: HEADLINE_RELEASE,
      keep: false,
      reuse: false,
      loadImages: false,
      stateDir: record.stateDir,
      cwd: record.root,
      // Deleting needs no registry: only shice's own engine and tools, if kind:prepare set them up.
      host: { root: record.root, registryReachable: async () => false },
    });
    return removeLeftovers(place, record);
  },
  // A kind cluster without a record is not this checkout's to name: kind get clusters lists it.
  unrecorded: async () => [],
};
