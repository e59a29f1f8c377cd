// Runs a capture judged and did not swap in (judge-run.ts), kept aside where
// no build looks: `.shice/kept/<run id>/` (git-ignored; SHICE_KEPT_RUNS points
// elsewhere), one folder per variant named as its target is, beside kept.json,
// which says whose run it is, why it was kept and where it would go. An author
// who finds a broken claim to be a real finding swaps it in with
// `npm run capture -- --accept <run id or folder>`.
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { displayPath } from '../../evidence/errors.ts';
import { formatIssues } from '../../evidence/issues.ts';

export const KEPT_MANIFEST = 'kept.json';

export function keptRunsDir(): string {
  return process.env.SHICE_KEPT_RUNS || fileURLToPath(new URL('../../../.shice/kept', import.meta.url));
}

const runId = z.string().regex(/^[0-9A-Za-z-]+$/);

export const keptManifestSchema = z.strictObject({
  schema: z.literal(1),
  slug: z.string().regex(/^[0-9a-z-]+$/),
  /** Why the run was not swapped in: a claim broke (it may be accepted), or a fact could not be derived (it may not). */
  reason: z.enum(['claims', 'facts']),
  keptAt: z.string(),
  runs: z
    .array(
      z.strictObject({
        variant: z.string().nullable(),
        runId,
        /** The snapshots folder the run would replace, absolute. */
        target: z.string().startsWith('/'),
        /** The run's folder inside the kept folder: its target's name. */
        folder: z.string().regex(/^[^/.][^/]*$/),
      }),
    )
    .min(1),
});

export type KeptManifest = z.infer<typeof keptManifestSchema>;

export class KeptRunError extends Error {
  override name = 'KeptRunError';
}

/** A folder moved into place, or copied when it lies on another file system (an --out on tmpfs). */
function move(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    cpSync(from, to, { recursive: true, errorOnExist: true, force: false });
    rmSync(from, { recursive: true, force: true });
  }
}

/**
 * Moves each run's staged folder into `<base>/<first run id>/` beside its
 * manifest, written first: a kill half-way leaves a manifest naming what is
 * missing, never a run nobody can find. Returns the kept folder.
 */
export function keepAside(base: string, manifest: KeptManifest, stagedOf: (runId: string) => string): string {
  const checked = keptManifestSchema.parse(manifest);
  const dir = join(base, checked.runs[0]!.runId);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, KEPT_MANIFEST), `${JSON.stringify(checked, null, 2)}\n`, { flag: 'wx' });
  for (const run of checked.runs) move(stagedOf(run.runId), join(dir, run.folder));
  return dir;
}

/** The kept folder `ref` names: a path to it, or a run id under `base`. */
export function keptFolder(ref: string, base: string): string {
  if (isAbsolute(ref) || ref.includes('/') || ref.startsWith('.')) return resolve(ref);
  return join(base, ref);
}

/** A kept folder's manifest, checked, with every run's folder present; one line naming the file and the field otherwise. */
export function readKept(dir: string): { dir: string; manifest: KeptManifest } {
  const file = join(dir, KEPT_MANIFEST);
  const shown = displayPath(file);
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    throw new KeptRunError(`${displayPath(dir)}: no kept run here (no ${KEPT_MANIFEST}); expected a folder a capture kept aside, or its run id`);
  }
  if (!stat.isFile() || stat.nlink !== 1) throw new KeptRunError(`${shown}: expected a regular file with one link, as the capture writes it`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new KeptRunError(`${shown}: not JSON (${(error as Error).message}); expected the manifest a capture writes`);
  }
  const result = keptManifestSchema.safeParse(data, { reportInput: true });
  if (!result.success) throw new KeptRunError(formatIssues(shown, result.error.issues, keptManifestSchema)[0]!);
  for (const run of result.data.runs) {
    if (!existsSync(join(dir, run.folder)))
      throw new KeptRunError(`${shown}: field "runs": names ${run.folder}, but ${displayPath(join(dir, run.folder))} does not exist`);
  }
  return { dir, manifest: result.data };
}

/** Run ids of the kept folders under `base`, oldest first. */
export function listKept(base: string): string[] {
  try {
    return readdirSync(base)
      .filter((name) => existsSync(join(base, name, KEPT_MANIFEST)))
      .sort();
  } catch {
    return [];
  }
}

/** The folder a run's target gets inside a kept folder. */
export function keptFolderName(target: string): string {
  return basename(target);
}
