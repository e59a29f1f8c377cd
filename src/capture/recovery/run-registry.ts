// The records a run keeps about itself, so that after a kill -9 the next
// capture or `--clean` finds what it left by its records, never by guessing
// from names. One JSON file per record in the registry folder, written
// (atomically: temp file + rename) before the thing it names is created:
//
//   .shice/runs/<runId>.capture.json   a capture: target, staging, previous, lock
//   .shice/runs/<runId>.lab.json       a lab run: namespaces, processes, folders
//   .shice/runs/<runId>.kind.json      a kind run: the cluster it created, its state folder
//   .shice/runs/<runId>.existing.json  a verify run: the namespace it created, and the kubeconfig and context it used
//
// `.shice/` is the project's git-ignored state folder; SHICE_RUN_REGISTRY
// points elsewhere. A record stays while its owner lives; a record whose owner
// (pid + start time) is gone belongs to a dead run.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { processStartTime, stillRunning } from '../machine/process-identity.ts';
import { DRIVER_NAMES, type DriverName } from '../../experiment/drivers.ts';

export function registryDir(): string {
  return process.env.SHICE_RUN_REGISTRY || fileURLToPath(new URL('../../../.shice/runs', import.meta.url));
}

const runId = z.string().regex(/^[0-9A-Za-z-]+$/);
const owner = z.strictObject({ pid: z.number().int().positive(), startTime: z.string().min(1) });
const absolute = z.string().startsWith('/');

export const captureRecordSchema = z.strictObject({
  kind: z.literal('capture'),
  runId,
  slug: z.string().min(1),
  owner,
  startedAt: z.string(),
  /** The snapshots folder the run replaces. */
  target: absolute,
  /** Where it stages the run, and where the swap sets the target aside. */
  staging: absolute,
  previous: absolute,
  lock: absolute,
});

export const processRecordSchema = z.strictObject({
  pid: z.number().int().positive(),
  /** /proc/<pid>/stat start time; null when the process was already gone when recorded. */
  startTime: z.string().nullable(),
  label: z.string(),
});

export const runRecordSchema = z.strictObject({
  kind: z.literal('lab'),
  runId,
  owner,
  /** Every network namespace the run creates, by exact name, recorded before it is created. */
  namespaces: z.array(z.string().min(1)),
  /**
   * Namespaces that processes of the run create themselves (a lab kubelet's pod
   * namespaces) start with this: it must be the run's own prefix,
   * `shice-lab-<runId>.`, or it is ignored.
   */
  namespacePrefix: z.string().min(1).optional(),
  /** Processes the run started (every process inside its namespaces is stopped as well). */
  processes: z.array(processRecordSchema),
  /** Folders the run created (its run folder under the temp folder). */
  folders: z.array(absolute),
  /** Left up on purpose (--keep): only `--clean` removes it, not the next capture. */
  kept: z.boolean().optional(),
});

export const kindRunRecordSchema = z.strictObject({
  kind: z.literal('kind'),
  runId,
  owner,
  /** The kind cluster the run created (recorded before `kind create cluster` starts). */
  cluster: z.string().min(1),
  /** The capture's kind state folder: its ownership marker proves the cluster is the run's. */
  stateDir: absolute,
  /** The project root, whose .shice/ holds the engine and tools kind:prepare set up. */
  root: absolute,
  /** The host's kernel settings before the cluster was created (with shice's own engine, whose nodes share this kernel). */
  hostSysctls: z.record(z.string(), z.string()).optional(),
  /**
   * What the create changed of them, journalled while it runs and once it is done (setting,
   * value before, value the cluster set): the undo when the cluster is removed, each setting
   * written back only while it still holds the value the cluster set. The record is forgotten
   * only once every entry is undone.
   */
  hostJournal: z.array(z.strictObject({ name: z.string().min(1), before: z.string(), set: z.string() })).optional(),
  /** Whether docker's `kind` network and /lib/modules were there before the create: what did not exist is removed with the cluster. */
  kindNetworkExisted: z.boolean().optional(),
  libModulesExisted: z.boolean().optional(),
  kept: z.boolean().optional(),
});

export const existingRunRecordSchema = z.strictObject({
  kind: z.literal('existing'),
  runId,
  owner,
  /** The user's kubeconfig and the context the run used: the record names them, recovery reaches the cluster by them. */
  kubeconfig: absolute,
  context: z.string().min(1),
  /** The namespace the run creates (recorded before it is created); everything it made is in it. */
  namespace: z.string().regex(/^shice-verify-[0-9a-z-]+$/),
  kept: z.boolean().optional(),
});

export type CaptureRecord = z.infer<typeof captureRecordSchema>;
/** A lab run's record (the name predates the kind provider's). */
export type RunRecord = z.infer<typeof runRecordSchema>;
export type KindRunRecord = z.infer<typeof kindRunRecordSchema>;
export type ExistingRunRecord = z.infer<typeof existingRunRecordSchema>;
/** What any provider's run records about itself. */
export type ProviderRecord = RunRecord | KindRunRecord | ExistingRunRecord;
export type ProcessRecord = z.infer<typeof processRecordSchema>;
export type Owner = z.infer<typeof owner>;
type AnyRecord = CaptureRecord | ProviderRecord;

/** This process as an owner: its pid and the kernel's start time of it. */
export function currentOwner(): Owner {
  return { pid: process.pid, startTime: processStartTime(process.pid) ?? 'unknown' };
}

/** Whether the owner still runs: the same pid with the same start time (a reused pid is another process). */
export function ownerAlive(o: Owner): boolean {
  return stillRunning(o);
}

function fileOf(kind: AnyRecord['kind'], id: string, dir: string): string {
  return join(dir, `${id}.${kind}.json`);
}

function write(record: AnyRecord, dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = fileOf(record.kind, record.runId, dir);
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`);
  // On disk before what it names is done (a journal before its change): the file, then its rename.
  syncPath(temp);
  renameSync(temp, file);
  syncPath(dir);
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes (or rewrites) a capture's record. */
export function recordCapture(record: CaptureRecord, dir: string = registryDir()): void {
  write(captureRecordSchema.parse(record), dir);
}

/**
 * Writes (or rewrites) a lab run's record: call it before creating anything
 * it lists, and again whenever the list grows; the last write is what a
 * recovery after kill -9 finds.
 */
export function recordRun(record: Omit<RunRecord, 'kind' | 'owner'> & { owner?: Owner }, dir: string = registryDir()): void {
  write(runRecordSchema.parse({ kind: 'lab', owner: record.owner ?? currentOwner(), ...record }), dir);
}

/** Writes (or rewrites) a kind run's record: before its cluster is created, again when it is kept. */
export function recordKindRun(record: Omit<KindRunRecord, 'kind' | 'owner'> & { owner?: Owner }, dir: string = registryDir()): void {
  write(kindRunRecordSchema.parse({ kind: 'kind', owner: record.owner ?? currentOwner(), ...record }), dir);
}

/** Writes a verify run's record: before its namespace is created. */
export function recordExistingRun(record: Omit<ExistingRunRecord, 'kind' | 'owner'> & { owner?: Owner }, dir: string = registryDir()): void {
  write(existingRunRecordSchema.parse({ kind: 'existing', owner: record.owner ?? currentOwner(), ...record }), dir);
}

/** Removes a record once everything it names is gone. */
export function forgetRecord(kind: AnyRecord['kind'], id: string, dir: string = registryDir()): void {
  rmSync(fileOf(kind, id, dir), { force: true });
}

/** A lab run's record is removed once the run has taken everything down. */
export function forgetRun(id: string, dir: string = registryDir()): void {
  forgetRecord('lab', id, dir);
}

export interface Records {
  captures: CaptureRecord[];
  runs: ProviderRecord[];
  /** Files of the registry that are not a valid record: named, never acted on. */
  unreadable: string[];
}

/** Each driver's record, by its name: a driver added to experiment/drivers.ts does not compile until its record is here. */
const PROVIDER_RECORDS: Record<DriverName, z.ZodType<ProviderRecord>> = { lab: runRecordSchema, kind: kindRunRecordSchema, existing: existingRunRecordSchema };

/** A record's file: `<runId>.capture.json`, or `<runId>.<driver>.json` for each driver (experiment/drivers.ts). */
const RECORD_FILE = new RegExp(`\\.(capture|${DRIVER_NAMES.join('|')})\\.json$`);

/** Every record of the registry, validated. */
export function readRecords(dir: string = registryDir()): Records {
  const found: Records = { captures: [], runs: [], unreadable: [] };
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return found;
  }
  for (const name of names) {
    const kind = RECORD_FILE.exec(name)?.[1];
    if (kind === undefined) continue;
    try {
      const data: unknown = JSON.parse(readFileSync(join(dir, name), 'utf8'));
      if (kind === 'capture') found.captures.push(captureRecordSchema.parse(data));
      else found.runs.push(PROVIDER_RECORDS[kind as DriverName].parse(data));
    } catch {
      found.unreadable.push(join(dir, name));
    }
  }
  return found;
}
