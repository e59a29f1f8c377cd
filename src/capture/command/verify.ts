// `npm run verify`, below its CLI: the article and the folder of its own checked,
// what killed runs left recovered, the cluster read and refused in one line
// before anything is created (src/capture/session/verify.ts), then the run and
// a line per claim. Exit 0 when every checked claim held, 1 when one broke, 2
// when nothing could be checked.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { articleDir, listArticleSlugs, loadArticle } from '../../authoring/load.ts';
import { selectSlugs } from '../session/cli-args.ts';
import { parseVerifyArgs, VERIFY_USAGE } from '../session/verify-args.ts';
import { nodesFlag, planVerify, readCluster, verifyArticle, VerifyRefused } from '../session/verify.ts';
import { createReporter } from '../session/progress.ts';
import { CaptureAborted } from '../session/runner.ts';
import { makeRunId } from '../recovery/run-id.ts';
import { outFolderProblem } from '../snapshots/target.ts';
import { terminalSafe } from '../../evidence/terminal-text.ts';
import { fail, type CaptureContext } from './edge.ts';
import { recoverKilledRuns } from './providers.ts';

const say = (line: string) => process.stderr.write(`verify: ${line}\n`);

/** The verify command line, run: its exit code when it ends with a verdict. */
export async function verifyCommand(argv: readonly string[], ctx: CaptureContext): Promise<number> {
  const { root, interrupts } = ctx;
  const args = parseVerifyArgs([...argv]);
  if (args.help) {
    process.stdout.write(`${VERIFY_USAGE}\n`);
    return 0;
  }
  const [slug] = selectSlugs([args.slug], await listArticleSlugs(root));
  const article = await loadArticle(root, slug!);
  const runId = makeRunId(new Date());
  const out = resolve(args.out ?? `shice-verify/${args.slug}-${runId}`);
  const problem = outFolderProblem(out, resolve(root, 'content/articles'), root);
  if (problem) throw new VerifyRefused(`--out ${args.out ?? out}: ${problem}; choose a folder of your own`);
  // The run's folder is its own: nothing of the reader's is ever replaced by it.
  if (existsSync(out) && readdirSync(out).length > 0) throw new VerifyRefused(`--out ${args.out ?? out}: not empty; verify writes into a new or empty folder`);
  // A verify killed earlier left its namespace: its record names it, and it goes first.
  await recoverKilledRuns(say);
  const reading = await readCluster({ kubeconfig: args.kubeconfig, context: args.context }, interrupts.signal);
  const plan = planVerify({ article, reading, nodes: args.nodes, variant: args.variant, runId });
  process.stderr.write(
    `verify ${args.slug} (run ${runId}) on context ${reading.context}, Kubernetes ${reading.server}${plan.variant === null ? '' : `, variant ${plan.variant}`}\n`,
  );
  say(`nodes ${nodesFlag(plan.nodes)}${plan.chosen ? ' (chosen; --nodes names others)' : ''}; namespace ${plan.namespace}`);
  const reporter = createReporter(process.stderr);
  interrupts.running = true;
  try {
    const outcome = await verifyArticle({
      article,
      slug: args.slug,
      articleDir: articleDir(root, args.slug),
      root,
      reading,
      runId,
      nodes: args.nodes,
      variant: args.variant,
      out,
      agentImage: args.agentImage,
      standInImages: args.standInImages,
      keep: args.keep,
      signal: interrupts.signal,
      reporter,
      log: say,
    });
    reporter.close();
    process.stdout.write(`${terminalSafe(outcome.report.join('\n'))}\n`);
    const kept = existsSync(outcome.runDir) ? `raw output in ${relative(process.cwd(), outcome.runDir) || '.'}, report` : 'report';
    say(`${outcome.seconds.toFixed(1)} s; ${kept} in ${relative(process.cwd(), join(out, 'report.txt'))}`);
    if (outcome.verdicts.some((v) => v.verdict === 'broken')) return 1;
    // Nothing checked (the cluster refused the agents) is no verdict either way.
    return outcome.verdicts.some((v) => v.verdict === 'held') ? 0 : 2;
  } catch (error) {
    reporter.close();
    if (error instanceof CaptureAborted) fail('interrupted; the namespace was deleted', interrupts.exitCode());
    throw error;
  }
}
