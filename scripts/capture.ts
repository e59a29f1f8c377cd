// `npm run capture -- [slug...] [--driver kind|lab] [--out DIR] [--keep] [--dry-run] ...`
// The capture's entry: its arguments, and the command they name. The commands and
// what they share at the I/O edge (failures, exit codes, signals) are in scripts/capture/.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCaptureArgs, selectSlugs, UsageError, USAGE } from '../src/capture/session/cli-args.ts';
import { ArticleFolderError, listArticleSlugs } from '../src/authoring/load.ts';
import { PrerequisiteError } from '../src/capture/provider/node-provider.ts';
import { fail, ignoreClosedPipes, Interrupts, type CaptureContext } from './capture/edge.ts';
import { loadPlans } from './capture/articles.ts';
import { accept } from './capture/accept.ts';
import { clean } from './capture/clean.ts';
import { compare } from './capture/compare.ts';
import { printPlans } from './capture/dry-run.ts';
import { capture } from './capture/capture.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

// Signals, from the first line on: until a run is under way there is nothing to clean up,
// and a signal ends the capture at once with 130 (SIGINT) or 143 (SIGTERM).
const ctx: CaptureContext = { root, interrupts: new Interrupts().listen() };
ignoreClosedPipes();

/** A usage mistake, a missing prerequisite or an article folder that is no folder: one line, exit 2. */
async function refusing<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof UsageError || error instanceof PrerequisiteError || error instanceof ArticleFolderError) fail(error.message, 2);
    throw error;
  }
}

async function main(): Promise<void> {
  const args = await refusing(() => parseCaptureArgs(process.argv.slice(2)));
  if (args.help) return void process.stdout.write(`${USAGE}\n`);
  const kept = args.accept;
  if (kept !== null) return refusing(() => accept(kept, ctx));
  if (args.clean) return refusing(clean);
  const slugs = await refusing(async () => selectSlugs(args.slugs, await listArticleSlugs(root)));
  const plans = await loadPlans(root, slugs, args);
  if (args.compare) return compare(args.compare, plans, root);
  if (args.dryRun) return printPlans(args, plans, root);
  return capture(args, plans, ctx);
}

try {
  await main();
} catch (error) {
  // Whatever was not foreseen still ends in one line, not a stack; the records let the next capture recover.
  fail(`unexpected error: ${(error as Error).message ?? String(error)}`, 1);
}
