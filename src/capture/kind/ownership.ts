// Which kind clusters the capture may touch. A cluster is the capture's own only
// when the marker it wrote in its state folder names the cluster and lists exactly
// the node containers that exist now (docker container ids are unique, so a
// foreign cluster that later took the same name does not match).
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SysctlUndo, Sysctls } from './engine/host-state.ts';

export interface ContainerRef {
  id: string;
  name: string;
}

export interface OwnerMarker {
  createdBy: 'shice';
  cluster: string;
  runId: string;
  createdAt: string;
  /** The article whose run created it: only that article's runs reuse it (their earlier objects are what earlier-run.ts removes). Absent in markers older than the field. */
  slug?: string;
  /** Empty while `kind create cluster` runs; filled once it has finished. */
  containers: ContainerRef[];
  /** Written by --keep: the host as it was before the create, for the run that deletes the cluster to put back. */
  hostBefore?: HostBefore;
}

/** What was there before a capture's create; null: it created nothing, or not ours to know. */
export interface HostBefore {
  /** Whether docker's network `kind` was there. */
  kindNetworkExisted: boolean | null;
  /** Whether /lib/modules was there before kind's node mounts (which docker creates when missing). */
  libModulesExisted: boolean | null;
  /** The host's kernel settings before the create; null: not this machine's kernel. */
  hostSysctls: Sysctls | null;
  /** What the create changed of them (the undo after the cluster is deleted); null: nothing journalled. */
  hostJournal: SysctlUndo[] | null;
}

export const markerPath = (stateDir: string, cluster: string): string => join(stateDir, `${cluster}.owner.json`);

export function parseMarker(text: string, file: string): OwnerMarker {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message})`);
  }
  const m = data as Partial<OwnerMarker> | null;
  if (!m || typeof m !== 'object') throw new Error(`${file}: expected an object`);
  if (m.createdBy !== 'shice') throw new Error(`${file}: field createdBy: expected "shice"`);
  for (const field of ['cluster', 'runId', 'createdAt'] as const) {
    if (typeof m[field] !== 'string' || m[field] === '') throw new Error(`${file}: field ${field}: expected a non-empty string`);
  }
  if (m.slug !== undefined && (typeof m.slug !== 'string' || m.slug === '')) throw new Error(`${file}: field slug: expected a non-empty string`);
  if (!Array.isArray(m.containers) || !m.containers.every((c) => typeof c?.id === 'string' && typeof c?.name === 'string')) {
    throw new Error(`${file}: field containers: expected a list of {id, name}`);
  }
  const before = m.hostBefore as Partial<Record<keyof HostBefore, unknown>> | undefined;
  const nullOr = (v: unknown, t: 'boolean' | 'object') => v === null || typeof v === t;
  if (
    before !== undefined &&
    (typeof before !== 'object' ||
      before === null ||
      !nullOr(before.kindNetworkExisted, 'boolean') ||
      !nullOr(before.libModulesExisted, 'boolean') ||
      !nullOr(before.hostSysctls, 'object') ||
      !(before.hostJournal === null || Array.isArray(before.hostJournal)))
  ) {
    throw new Error(`${file}: field hostBefore: expected kindNetworkExisted, libModulesExisted, hostSysctls and hostJournal, each null or set`);
  }
  return m as OwnerMarker;
}

export async function readMarker(stateDir: string, cluster: string): Promise<OwnerMarker | null> {
  const file = markerPath(stateDir, cluster);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseMarker(text, file);
}

/** Written whole to a temporary name and renamed, so a crash never leaves half a marker. */
export async function writeMarker(stateDir: string, marker: OwnerMarker): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  const file = markerPath(stateDir, marker.cluster);
  await writeFile(`${file}.tmp`, `${JSON.stringify(marker, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}

export async function removeMarker(stateDir: string, cluster: string): Promise<void> {
  await rm(markerPath(stateDir, cluster), { force: true });
}

/** True only when the marker proves the live containers are the ones the capture created. */
export function isOwned(marker: OwnerMarker | null, cluster: string, live: ContainerRef[]): boolean {
  if (!marker || marker.cluster !== cluster || marker.containers.length === 0 || live.length === 0) return false;
  const ids = (refs: ContainerRef[]) =>
    refs
      .map((c) => c.id)
      .sort()
      .join(',');
  return ids(marker.containers) === ids(live);
}

export type ClusterAction = { action: 'create' } | { action: 'reuse' } | { action: 'recreate'; why?: string } | { action: 'refuse'; reason: string };

/**
 * What up() does about a cluster of the experiment's name. A kept cluster is reused only by a run of the
 * article that created it (`keptFor`, from its marker): another article's objects are not this run's to know. Pure.
 */
export function decideClusterAction(input: {
  cluster: string;
  exists: boolean;
  owned: boolean;
  reuse: boolean;
  markerFile: string;
  slug: string;
  keptFor: string | undefined;
}): ClusterAction {
  if (!input.exists) return { action: 'create' };
  if (!input.owned) {
    return {
      action: 'refuse',
      reason:
        `a kind cluster named "${input.cluster}" already exists and was not created by this capture ` +
        `(no marker matching its containers in ${input.markerFile}); refusing to reuse or delete it: ` +
        `delete it yourself (kind delete cluster --name ${input.cluster}) or change experiment.cluster.name in article.ts`,
    };
  }
  if (!input.reuse) return { action: 'recreate' };
  if (input.keptFor !== input.slug)
    return { action: 'recreate', why: `it was kept by a run of ${input.keptFor ?? 'an article its marker does not name'}, not of ${input.slug}` };
  return { action: 'reuse' };
}
