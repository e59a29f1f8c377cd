// `npm run capture -- [slug...] [--driver kind|lab] [--out DIR] [--keep] [--dry-run] ...`
// The I/O edge of the capture: arguments, signals, progress, exit codes.
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCaptureArgs, selectSlugs, UsageError, USAGE, type CaptureArgs } from '../src/capture/cli-args.ts';
import { articleDir, listArticleSlugs, loadExperiment } from '../src/capture/articles.ts';
import { createDriver, cleanLeftovers } from '../src/capture/drivers.ts';
import { PrerequisiteError } from '../src/capture/driver.ts';
import { CaptureAborted, runCapture, stepNode } from '../src/capture/runner.ts';
import { createReporter, formatSummary } from '../src/capture/progress.ts';
import { gitInfo, hostInfo } from '../src/capture/host.ts';
import { makeRunId } from '../src/capture/run-id.ts';
import { symbolicTopologyView } from '../src/capture/topology-view.ts';
import type { Experiment } from '../src/experiment/types.ts';
import { loadArticleDefinitions } from '../src/article/from-disk.ts';
import { claimsReport, tryEvidence, whatChanged } from '../src/capture/what-changed.ts';
import { existsSync } from 'node:fs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));

function fail(message: string, code: number): never {
  process.stderr.write(`capture: ${message}\n`);
  process.exit(code);
}

function printPlan(args: CaptureArgs, experiment: Experiment, driver: ReturnType<typeof createDriver>): void {
  const line = (argv: string[]) => process.stdout.write(`${argv.join(' ')}\n`);
  const plan = driver.plan(experiment);
  process.stdout.write(`# ${experiment.slug} with --driver ${args.driver}: setup\n`);
  plan.setup.forEach(line);
  for (const step of experiment.steps) {
    process.stdout.write(`# step ${step.id} (${stepNode(step)}): ${step.title}\n`);
    if (step.kind === 'exec') line(driver.execArgv(step.node, step.command(symbolicTopologyView)));
    else (driver.planDeletePod?.(step) ?? []).forEach(line);
  }
  process.stdout.write('# teardown\n');
  plan.teardown.forEach(line);
}

// A closed pipe (`npm run capture | head`) must not kill the capture before it
// has taken the environment down: stop writing, keep running, clean up.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

async function main(): Promise<void> {
  let args: CaptureArgs;
  let slugs: string[];
  try {
    args = parseCaptureArgs(process.argv.slice(2));
    if (args.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (args.clean) {
      const reporter = createReporter(process.stderr);
      const removed = await cleanLeftovers((line) => reporter.phase(line));
      process.stdout.write(removed.length ? `removed: ${removed.join(', ')}\n` : 'nothing of earlier lab runs was left\n');
      return;
    }
    slugs = selectSlugs(args.slugs, await listArticleSlugs(root));
  } catch (error) {
    if (error instanceof UsageError || error instanceof PrerequisiteError) fail(error.message, 2);
    throw error;
  }

  if (args.compare) {
    for (const slug of slugs) {
      const defs = await loadArticleDefinitions(root, slug);
      const committed = tryEvidence(slug, join(articleDir(root, slug), 'snapshots'), defs);
      const nested = resolve(args.compare, slug);
      const otherDir = existsSync(join(nested, 'run.yaml')) ? nested : resolve(args.compare);
      const other = tryEvidence(slug, otherDir, defs);
      if (!other.evidence) fail(`--compare ${args.compare}: ${other.problem}`, 2);
      process.stdout.write(`${slug}: committed snapshots vs ${relative(process.cwd(), otherDir) || '.'}\n`);
      process.stdout.write(`${whatChanged(committed, other.evidence)}\n${claimsReport(other.evidence)}\n`);
    }
    return;
  }

  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts === 1) {
      process.stderr.write(`\ncapture: ${signal}: stopping and cleaning up (the snapshots stay as they were)\n`);
      controller.abort();
    } else if (interrupts === 2) {
      process.stderr.write('capture: still cleaning up; a third signal quits at once and may leave the environment behind\n');
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  for (const slug of slugs) {
    const experiment = await loadExperiment(root, slug);
    const runId = makeRunId(new Date());
    const driver = createDriver(args, { runId, articleDir: articleDir(root, slug), root });
    if (args.dryRun) {
      printPlan(args, experiment, driver);
      continue;
    }
    try {
      await driver.preflight();
    } catch (error) {
      if (error instanceof PrerequisiteError) fail(error.message, 2);
      throw error;
    }
    const target = args.out ? resolve(args.out, slug) : join(articleDir(root, slug), 'snapshots');
    const defs = await loadArticleDefinitions(root, slug);
    // Read before the run: the swap replaces these snapshots.
    const previous = tryEvidence(slug, target, defs);
    const reporter = createReporter(process.stderr);
    process.stderr.write(`capture ${slug} (run ${runId}) with --driver ${driver.name}\n`);
    const started = performance.now();
    try {
      const result = await runCapture({
        experiment, driver, target, runId,
        signal: controller.signal,
        reporter,
        git: await gitInfo(root),
        host: hostInfo(),
      });
      reporter.close();
      process.stderr.write(`${formatSummary(slug, relative(process.cwd(), result.target) || '.', result.steps, performance.now() - started)}\n`);
      const next = tryEvidence(slug, result.target, defs);
      if (next.evidence) process.stderr.write(`${claimsReport(next.evidence)}\n${whatChanged(previous, next.evidence)}\n`);
      else process.stderr.write(`the new snapshots do not derive the article's facts: ${next.problem}\n`);
    } catch (error) {
      reporter.close();
      if (error instanceof CaptureAborted) fail(`${slug}: interrupted; the snapshots were left as they were`, 130);
      fail(`${slug}: ${(error as Error).message}; the snapshots were left as they were`, 1);
    }
  }
}

await main();
