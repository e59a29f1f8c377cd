// `npm run verify -- <slug> --kubeconfig FILE [--context NAME] [--nodes ...] [--variant MODE] [--out DIR]`
// An article's experiment on a cluster the reader already has: the cluster read
// and refused in one line before anything is created, then the run, then a line
// per claim. The work is src/capture/session/verify.ts's; this is its edge.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArticleFolderError, articleDir, listArticleSlugs, loadArticle } from '../src/authoring/load.ts';
import { selectSlugs, UsageError } from '../src/capture/session/cli-args.ts';
import { parseVerifyArgs, VERIFY_USAGE } from '../src/capture/session/verify-args.ts';
import { nodesFlag, planVerify, readCluster, verifyArticle, VerifyRefused } from '../src/capture/session/verify.ts';
import { createReporter } from '../src/capture/session/progress.ts';
import { CaptureAborted } from '../src/capture/session/runner.ts';
import { PROVIDER_LEFTOVERS } from '../src/capture/session/drivers.ts';
import { recoverDeadRuns } from '../src/capture/recovery/recover.ts';
import { makeRunId } from '../src/capture/recovery/run-id.ts';
import { outFolderProblem } from '../src/capture/snapshots/target.ts';
import { PrerequisiteError } from '../src/capture/provider/node-provider.ts';
import { clip } from '../src/capture/machine/clip.ts';
import { terminalSafe } from '../src/evidence/terminal-text.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

function fail(message: string, code: number): never {
  process.stderr.write(`verify: ${terminalSafe(clip(message.replaceAll('\n', ' | '), 2000))}\n`);
  process.exit(code);
}

// The first signal stops the run, which then deletes its namespace; a second quits at once (the next verify removes it).
const controller = new AbortController();
let running = false;
let signals = 0;
for (const name of ['SIGINT', 'SIGTERM'] as const)
  process.on(name, () => {
    signals += 1;
    if (!running || signals > 1) process.exit(name === 'SIGINT' ? 130 : 143);
    process.stderr.write(`\nverify: ${name}: stopping and deleting the run's namespace\n`);
    controller.abort();
  });
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

async function main(): Promise<void> {
  const args = parseVerifyArgs(process.argv.slice(2));
  if (args.help) return void process.stdout.write(`${VERIFY_USAGE}\n`);
  const [slug] = selectSlugs([args.slug], await listArticleSlugs(root));
  const article = await loadArticle(root, slug!);
  const runId = makeRunId(new Date());
  const out = resolve(args.out ?? `shice-verify/${args.slug}-${runId}`);
  const problem = outFolderProblem(out, resolve(root, 'content/articles'), root);
  if (problem) throw new VerifyRefused(`--out ${args.out ?? out}: ${problem}; choose a folder of your own`);
  // The run's folder is its own: nothing of the reader's is ever replaced by it.
  if (existsSync(out) && readdirSync(out).length > 0) throw new VerifyRefused(`--out ${args.out ?? out}: not empty; verify writes into a new or empty folder`);
  // A verify killed earlier left its namespace: its record names it, and it goes first.
  await recoverDeadRuns((line) => process.stderr.write(`verify: recovered: ${line}\n`), { leftovers: PROVIDER_LEFTOVERS, leaveKept: true });
  const reading = await readCluster({ kubeconfig: args.kubeconfig, context: args.context }, controller.signal);
  const plan = planVerify({ article, reading, nodes: args.nodes, variant: args.variant, runId });
  process.stderr.write(
    `verify ${args.slug} (run ${runId}) on context ${reading.context}, Kubernetes ${reading.server}${plan.variant === null ? '' : `, variant ${plan.variant}`}\n` +
      `verify: nodes ${nodesFlag(plan.nodes)}${plan.chosen ? ' (chosen; --nodes names others)' : ''}; namespace ${plan.namespace}\n`,
  );
  const reporter = createReporter(process.stderr);
  running = true;
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
      signal: controller.signal,
      reporter,
      log: (line) => process.stderr.write(`verify: ${line}\n`),
    });
    reporter.close();
    process.stdout.write(`${terminalSafe(outcome.report.join('\n'))}\n`);
    const kept = existsSync(outcome.runDir) ? `raw output in ${relative(process.cwd(), outcome.runDir) || '.'}, report` : 'report';
    process.stderr.write(`verify: ${outcome.seconds.toFixed(1)} s; ${kept} in ${relative(process.cwd(), join(out, 'report.txt'))}\n`);
    if (outcome.verdicts.some((v) => v.verdict === 'broken')) process.exit(1);
    // Nothing checked (the cluster refused the agents) is no verdict either way.
    if (!outcome.verdicts.some((v) => v.verdict === 'held')) process.exit(2);
  } catch (error) {
    reporter.close();
    if (error instanceof CaptureAborted) fail('interrupted; the namespace was deleted', 130);
    throw error;
  }
}

try {
  await main();
} catch (error) {
  if (error instanceof UsageError || error instanceof VerifyRefused || error instanceof PrerequisiteError || error instanceof ArticleFolderError)
    fail(error.message, 2);
  fail((error as Error).message ?? String(error), 1);
}
