// `npm run capture -- [slug...] [--driver kind|lab] [--out DIR] [--keep] [--dry-run] ...`
// The capture's CLI: the project it runs in, and the one call into src/capture/command/,
// which does the work and ends in one line and an exit code.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../src/capture/session/cli-args.ts';
import { ArticleFolderError } from '../src/authoring/load.ts';
import { PrerequisiteError } from '../src/capture/provider/node-provider.ts';
import { CAPTURE_STOP_WORDS } from '../src/capture/command/edge.ts';
import { runCommand } from '../src/capture/command/run-command.ts';
import { captureCommand } from '../src/capture/command/index.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

await runCommand(
  {
    words: CAPTURE_STOP_WORDS,
    // A usage mistake, a missing prerequisite or an article folder that is no folder: one line, exit 2.
    refusals: [UsageError, PrerequisiteError, ArticleFolderError],
    // Whatever was not foreseen still ends in one line, not a stack; the records let the next capture recover.
    unexpected: (message) => `unexpected error: ${message}`,
  },
  (interrupts) => captureCommand(process.argv.slice(2), { root, interrupts }),
);
