// Writes one run into a staging folder beside the target and swaps it in only
// when the run is complete and valid. Until commit() the target is untouched;
// discard() removes everything the run wrote.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { z } from 'zod';
import { dump } from 'js-yaml';
import { runSchema, stepSchema, type RunSnapshot, type StepSnapshot } from '../../evidence/schema.ts';
import { formatIssues } from '../../evidence/issues.ts';
import { quoted } from '../../evidence/terminal-text.ts';
import { swapInTogether } from './swap-together.ts';

export interface Staging {
  readonly runId: string;
  readonly dir: string;
  readonly target: string;
  /** Where the target is set aside during the swap. */
  readonly previous: string;
  /** Whether the target is still what the capture may replace, asked right before the swap. */
  mayReplace(): boolean;
  writeStep(step: StepSnapshot): Promise<void>;
  writeRun(run: RunSnapshot): Promise<void>;
  /** Replaces `target` with the staged run (swapInTogether, one target); several are swapped together by swapInTogether itself. */
  commit(): Promise<void>;
  /** Removes the staging folder; the target stays as it was. */
  discard(): Promise<void>;
}

/** YAML meant for review in a diff: block scalars for output, no line folding, no anchors. */
export function toYaml(value: unknown): string {
  return dump(value, { lineWidth: -1, noRefs: true, sortKeys: false });
}

/** The names a capture of run `runId` uses beside `target`: its staging folder, the swap's set-aside, the target's lock. */
export function swapPaths(target: string, runId: string): { target: string; staging: string; previous: string; lock: string } {
  const parent = dirname(target);
  const name = basename(target);
  return {
    target,
    staging: join(parent, `.${name}.staging-${runId}`),
    previous: join(parent, `.${name}.previous-${runId}`),
    lock: join(parent, `.${name}.lock`),
  };
}

/** A snapshot that does not match the schema: one line naming the file and the field, not zod's JSON. */
export class SnapshotShapeError extends Error {
  override name = 'SnapshotShapeError';
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw new SnapshotShapeError(formatIssues(file, result.error.issues, schema).join('; '));
  return result.data;
}

/** `dir/name`, refused unless it is a file directly in `dir`: no name may lead the writer out of its folder. */
export function inside(dir: string, name: string): string {
  const path = resolve(dir, name);
  if (dirname(path) !== resolve(dir) || basename(path) !== name)
    throw new SnapshotShapeError(`${quoted(name.slice(0, 80))}: refused as a snapshot's file name: it would not be a file of ${basename(dir)}`);
  return path;
}

/**
 * Opens the run's staging folder beside `target`. `mayReplace` is asked again
 * right before the swap: the target is replaced only if it is still what the
 * capture may replace (target.ts).
 */
export async function openStaging(target: string, runId: string, mayReplace: () => boolean = () => true): Promise<Staging> {
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const { staging: dir, previous } = swapPaths(target, runId);
  await mkdir(dir);
  const stepIds: string[] = [];
  let done = false;

  const staging: Staging = {
    runId,
    dir,
    target,
    previous,
    mayReplace,
    async writeStep(step) {
      const checked = parsed(stepSchema, step, `${basename(dir)}/${String((step as { id?: unknown }).id).slice(0, 80)}.yaml`);
      await writeFile(inside(dir, `${checked.id}.yaml`), toYaml(checked));
      stepIds.push(checked.id);
    },
    async writeRun(run) {
      const checked = parsed(runSchema, run, `${basename(dir)}/run.yaml`);
      const missing = checked.steps.filter((id) => !stepIds.includes(id));
      if (missing.length) throw new Error(`run.yaml lists steps that were not written: ${missing.join(', ')}`);
      await writeFile(inside(dir, 'run.yaml'), toYaml(checked));
    },
    async commit() {
      if (done) throw new Error('this staging folder was already committed or discarded');
      await swapInTogether([staging]);
      done = true;
    },
    async discard() {
      if (done) return;
      done = true;
      await rm(dir, { recursive: true, force: true });
    },
  };
  return staging;
}
