// The swap of several staged runs into their targets (a capture's variants, a
// merge's runs), all or none of them. Every target is judged again and every
// staged run checked complete before the first rename; then a journal naming
// every target is written beside each (before anything it names is moved), and
// the targets are swapped one by one. A failure midway puts back every target
// already swapped, in reverse, and says so; a kill -9 midway is settled by
// recovery from the journal (settleJournal): finished for every target while
// the journal says "swapping", undone for every target once it says "undoing".
// No target is ever left new beside another left old.
import { existsSync, lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { displayPath } from '../../evidence/errors.ts';

/** What the swap needs of a staged run (snapshot-writer.ts's Staging). */
export interface StagedRun {
  readonly runId: string;
  readonly dir: string;
  readonly target: string;
  readonly previous: string;
  /** Whether the target is still what the capture may replace (target.ts), asked right before the swap. */
  mayReplace(): boolean;
}

interface Entry {
  runId: string;
  target: string;
  staging: string;
  previous: string;
  /** Whether the target existed: undoing a swap into a new folder removes it. */
  hadTarget: boolean;
}

interface Journal {
  journal: 'shice-swap';
  state: 'swapping' | 'undoing';
  entries: Entry[];
}

/**
 * The swap did not happen, or not whole. `settled`: every target is as it was and nothing of the
 * swap is left but the staged runs (the caller discards them); otherwise the journal stays for
 * recovery and the message says which targets hold what.
 */
export class SwapTogetherError extends Error {
  override name = 'SwapTogetherError';
  readonly settled: boolean;
  constructor(message: string, settled: boolean) {
    super(message);
    this.settled = settled;
  }
}

/** The journal of run `runId`'s swap, beside its target. */
export const journalPath = (target: string, runId: string): string => join(dirname(target), `.${basename(target)}.swap-${runId}`);

const exists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

const isDir = (path: string): boolean => {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The journal written beside every target, each through a new file renamed into place. */
function writeJournals(entries: readonly Entry[], state: Journal['state']): void {
  const text = `${JSON.stringify({ journal: 'shice-swap', state, entries: [...entries] } satisfies Journal)}\n`;
  for (const entry of entries) {
    const file = journalPath(entry.target, entry.runId);
    writeFileSync(`${file}.t`, text, { flush: true });
    renameSync(`${file}.t`, file);
  }
}

function removeJournals(entries: readonly Entry[]): void {
  for (const entry of entries) rmSync(journalPath(entry.target, entry.runId), { force: true });
}

/**
 * For the fault tests only: SHICE_TEST_PAUSE_IN_SWAP=1 stops between a target's two renames (the
 * first target's), =between-targets once the first target is swapped and before the next; either
 * says so, so a test can kill the swap exactly there.
 */
async function pauseForTests(where: '1' | 'between-targets'): Promise<void> {
  if (process.env.SHICE_TEST_PAUSE_IN_SWAP !== where) return;
  process.stderr.write(
    where === '1' ? 'swap: paused between the two renames (SHICE_TEST_PAUSE_IN_SWAP)\n' : 'swap: paused between two targets (SHICE_TEST_PAUSE_IN_SWAP)\n',
  );
  // A timer holds the event loop: the process waits here until it is killed.
  await new Promise(() => setInterval(() => {}, 60_000));
}

/** Puts one target back as it was before the swap; its new run goes back to its staging folder. Idempotent. */
function undoEntry(entry: Entry): void {
  const swapped = !exists(entry.staging) && exists(entry.target) && (!entry.hadTarget || isDir(entry.previous));
  if (swapped) renameSync(entry.target, entry.staging);
  if (entry.hadTarget && !exists(entry.target) && isDir(entry.previous)) renameSync(entry.previous, entry.target);
}

/** Finishes one target's swap. Idempotent; a state it cannot read is a line, not a guess. */
function finishEntry(entry: Entry): string | null {
  if (!exists(entry.staging)) return null;
  if (exists(entry.target)) {
    if (exists(entry.previous)) return `${entry.target}: both it and the folder set aside for it exist; left as they are`;
    renameSync(entry.target, entry.previous);
  }
  renameSync(entry.staging, entry.target);
  return null;
}

/**
 * Swaps every staged run into its target, or none: judged again first, then journaled, then
 * renamed; a failure midway puts back the targets already swapped. Resolves once every target
 * holds its new run and nothing of the swap is left beside them.
 */
export async function swapInTogether(staged: readonly StagedRun[]): Promise<void> {
  const shown = (path: string) => displayPath(path);
  // Every target judged again, every staged run complete: a refusal here renames nothing.
  const refused: string[] = [];
  for (const s of staged) {
    if (!existsSync(join(s.dir, 'run.yaml'))) refused.push(`${shown(s.dir)} has no run.yaml`);
    else if (!s.mayReplace()) refused.push(`${shown(s.target)} no longer holds only a snapshot folder of this article`);
  }
  if (refused.length)
    throw new SwapTogetherError(`refusing to swap in: ${refused.join('; ')}; nothing was swapped in, all ${staged.length} target(s) as they were`, true);

  const entries: Entry[] = staged.map((s) => ({ runId: s.runId, target: s.target, staging: s.dir, previous: s.previous, hadTarget: exists(s.target) }));
  writeJournals(entries, 'swapping');
  let done = 0;
  try {
    for (const [i, entry] of entries.entries()) {
      if (i > 0) await pauseForTests('between-targets');
      if (entry.hadTarget) renameSync(entry.target, entry.previous);
      if (i === 0 && entry.hadTarget) await pauseForTests('1');
      renameSync(entry.staging, entry.target);
      done += 1;
    }
  } catch (error) {
    const failed = entries[done]!;
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    writeJournals(entries, 'undoing');
    const notBack: string[] = [];
    for (const entry of entries.slice(0, done + 1).reverse()) {
      try {
        undoEntry(entry);
      } catch (undoError) {
        notBack.push(`${shown(entry.target)} (${(undoError as NodeJS.ErrnoException).code ?? (undoError as Error).message})`);
      }
    }
    if (notBack.length)
      throw new SwapTogetherError(
        `${shown(failed.target)}: could not be swapped in (${why}); putting back the targets swapped before it failed for ${notBack.join(', ')}: the journal beside each target stays, and the next capture or --clean undoes the swap`,
        false,
      );
    removeJournals(entries);
    throw new SwapTogetherError(
      `${shown(failed.target)}: could not be swapped in (${why}); ${done ? `the ${done} target(s) swapped before it were put back, so ` : ''}nothing was swapped in, all ${entries.length} target(s) as they were`,
      true,
    );
  }
  // Every target holds its new run: what was set aside goes, then the journals.
  for (const entry of entries) if (entry.hadTarget) rmSync(entry.previous, { recursive: true, force: true });
  removeJournals(entries);
}

/**
 * Recovery of a dead swap from its journal (beside `target`, of run `runId`): every target
 * finished while it says "swapping", every target put back once it says "undoing"; then the
 * set-aside and staging folders and the journals are removed. One line per action; null when there
 * is no journal there (the single swap's own rules apply).
 */
export function settleJournal(target: string, runId: string): string[] | null {
  const file = journalPath(target, runId);
  if (!exists(file)) return null;
  let journal: Journal;
  try {
    journal = JSON.parse(readFileSync(file, 'utf8')) as Journal;
    if (journal.journal !== 'shice-swap' || !Array.isArray(journal.entries)) throw new Error('not a swap journal');
  } catch (error) {
    return [`left ${file} alone: it is not a readable swap journal (${(error as Error).message})`];
  }
  const lines: string[] = [];
  const runs = `run ${journal.entries.map((e) => e.runId).join(', run ')} (${journal.entries.length} target(s) together)`;
  const targets = journal.entries.map((e) => e.target).join(', ');
  if (journal.state === 'swapping') {
    const problems = journal.entries.map(finishEntry).filter((p): p is string => p !== null);
    // What cannot be read is left as it is, journal included, for a person to look at.
    if (problems.length) return [`could not finish the interrupted swap of ${runs}: ${problems.join('; ')}`];
    lines.push(`finished the interrupted swap of ${runs}: ${targets} now hold the new runs`);
  } else {
    for (const entry of [...journal.entries].reverse()) undoEntry(entry);
    lines.push(`undid the interrupted swap of ${runs}: ${targets} hold the previous snapshots again`);
  }
  for (const entry of journal.entries) {
    if (isDir(entry.previous)) rmSync(entry.previous, { recursive: true, force: true });
    if (isDir(entry.staging)) rmSync(entry.staging, { recursive: true, force: true });
  }
  removeJournals(journal.entries);
  return lines;
}
