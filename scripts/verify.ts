// `npm run verify -- <slug> --kubeconfig FILE [--context NAME] [--nodes ...] [--variant MODE] [--out DIR]`
// An article's experiment on a cluster the reader already has. The verify's CLI:
// the project it runs in, and the one call into src/capture/command/verify.ts.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArticleFolderError } from '../src/authoring/load.ts';
import { UsageError } from '../src/capture/session/cli-args.ts';
import { VerifyRefused } from '../src/capture/session/verify.ts';
import { PrerequisiteError } from '../src/capture/provider/node-provider.ts';
import { VERIFY_STOP_WORDS } from '../src/capture/command/edge.ts';
import { runCommand } from '../src/capture/command/run-command.ts';
import { verifyCommand } from '../src/capture/command/verify.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

await runCommand(
  {
    words: VERIFY_STOP_WORDS,
    // Refused before anything was created: one line, exit 2.
    refusals: [UsageError, VerifyRefused, PrerequisiteError, ArticleFolderError],
    unexpected: (message) => message,
  },
  (interrupts) => verifyCommand(process.argv.slice(2), { root, interrupts }),
);
