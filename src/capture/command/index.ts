// `npm run capture`, below its CLI: the arguments read, then the one command they
// name (a capture, --accept, --clean, --compare or --dry-run). Every way it ends
// without success is a CommandFailure (edge.ts), said by runCommand.
import { parseCaptureArgs, selectSlugs, USAGE } from '../session/cli-args.ts';
import { listArticleSlugs } from '../../authoring/load.ts';
import type { CaptureContext } from './edge.ts';
import { loadPlans } from './plans.ts';
import { accept } from './accept.ts';
import { clean } from './clean.ts';
import { compare } from './compare.ts';
import { printPlans } from './dry-run.ts';
import { capture } from './capture.ts';

/** The capture's command line, run: its exit code when it ends well. */
export async function captureCommand(argv: readonly string[], ctx: CaptureContext): Promise<number> {
  const args = parseCaptureArgs([...argv]);
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.accept !== null) await accept(args.accept, ctx);
  else if (args.clean) await clean();
  else {
    const plans = await loadPlans(ctx.root, selectSlugs(args.slugs, await listArticleSlugs(ctx.root)), args);
    if (args.compare) await compare(args.compare, plans, ctx.root);
    else if (args.dryRun) await printPlans(args, plans, ctx.root);
    else await capture(args, plans, ctx);
  }
  return 0;
}
