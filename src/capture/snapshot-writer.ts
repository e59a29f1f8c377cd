// Writes one run into a staging folder beside the target and swaps it in only
// when the run is complete and valid. Until commit() the target is untouched;
// discard() removes everything the run wrote.
import { mkdir, rename, rm, writeFile, stat, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { dump } from 'js-yaml';
import { runSchema, stepSchema, type RunSnapshot, type StepSnapshot } from '../evidence/schema.ts';

export interface Staging {
  readonly dir: string;
  readonly target: string;
  writeStep(step: StepSnapshot): Promise<void>;
  writeRun(run: RunSnapshot): Promise<void>;
  /** Validates the staged run, then replaces `target` with it. */
  commit(): Promise<void>;
  /** Removes the staging folder; the target stays as it was. */
  discard(): Promise<void>;
}

/** YAML meant for review in a diff: block scalars for output, no line folding, no anchors. */
export function toYaml(value: unknown): string {
  return dump(value, { lineWidth: -1, noRefs: true, sortKeys: false });
}

const stagingPrefix = (target: string) => `.${basename(target)}.staging-`;
const previousPrefix = (target: string) => `.${basename(target)}.previous-`;

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export async function openStaging(target: string, runId: string): Promise<Staging> {
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  await recoverInterruptedSwap(target);
  const dir = join(parent, `${stagingPrefix(target)}${runId}`);
  await mkdir(dir);
  const stepIds: string[] = [];
  let done = false;

  return {
    dir,
    target,
    async writeStep(step) {
      const checked = stepSchema.parse(step);
      await writeFile(join(dir, `${checked.id}.yaml`), toYaml(checked));
      stepIds.push(checked.id);
    },
    async writeRun(run) {
      const checked = runSchema.parse(run);
      const missing = checked.steps.filter((id) => !stepIds.includes(id));
      if (missing.length) throw new Error(`run.yaml lists steps that were not written: ${missing.join(', ')}`);
      await writeFile(join(dir, 'run.yaml'), toYaml(checked));
    },
    async commit() {
      if (done) throw new Error('this staging folder was already committed or discarded');
      if (!(await exists(join(dir, 'run.yaml')))) throw new Error(`refusing to swap in ${dir}: it has no run.yaml`);
      const previous = join(parent, `${previousPrefix(target)}${runId}`);
      const hadTarget = await exists(target);
      if (hadTarget) await rename(target, previous);
      try {
        await rename(dir, target);
      } catch (error) {
        if (hadTarget) await rename(previous, target);
        throw error;
      }
      done = true;
      if (hadTarget) await rm(previous, { recursive: true, force: true });
    },
    async discard() {
      if (done) return;
      done = true;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A process killed between the two renames of commit() leaves the old run in a
 * `.previous-` folder and no target: put it back. Stale staging folders of
 * killed runs are removed. Both only ever match names this module makes.
 */
export async function recoverInterruptedSwap(target: string): Promise<void> {
  const parent = dirname(target);
  let entries: string[];
  try {
    entries = await readdir(parent);
  } catch {
    return;
  }
  const previous = entries.filter((e) => e.startsWith(previousPrefix(target))).sort();
  if (!(await exists(target)) && previous.length) {
    await rename(join(parent, previous.pop()!), target);
  }
  for (const name of [...previous, ...entries.filter((e) => e.startsWith(stagingPrefix(target)))]) {
    await rm(join(parent, name), { recursive: true, force: true });
  }
}
