// `npm run bench`: what the project costs, each figure beside its baseline or
// target, one line per figure on stdout, progress on stderr, and the whole
// run in bench-results/<time>.json and bench-results/latest.json.
// `npm run bench -- --compare OLD NEW` compares two such files.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { arch, cpus, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, UsageError, USAGE, type BenchArgs } from '../bench/cli-args.ts';
import { exitCodeFor, formatFigures, GROUPS, summarize, type Figure, type Group } from '../bench/figures.ts';
import { compareResults, formatComparison } from '../bench/compare.ts';
import { createProgress } from '../bench/progress.ts';
import { removeTempDirsSync } from '../bench/temp-dirs.ts';
import { parseResults, resultFileName, RESULTS_SCHEMA_VERSION, type BenchResults } from '../bench/results.ts';
import type { BenchContext } from '../bench/measure/context.ts';
import { measureBinding } from '../bench/measure/binding.ts';
import { measureGrowth } from '../bench/measure/growth.ts';
import { measureMerge } from '../bench/measure/merge.ts';
import { measureWeight } from '../bench/measure/weight.ts';
import { measureE2e } from '../bench/measure/e2e.ts';
import { measureLab } from '../bench/measure/lab.ts';
import { measureKind } from '../bench/measure/kind.ts';
import { measureNpmTest } from '../bench/measure/npm-test.ts';
import { gitInfo } from '../src/capture/machine/host.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const RESULTS_DIR = 'bench-results';

const PHASES: Record<Group, (ctx: BenchContext) => Promise<Figure[]>> = {
  weight: measureWeight,
  e2e: measureE2e,
  binding: measureBinding,
  growth: measureGrowth,
  merge: measureMerge,
  lab: measureLab,
  kind: measureKind,
  tests: measureNpmTest,
};

async function compare(files: [string, string]): Promise<void> {
  const [before, after] = await Promise.all(files.map(async (file) => parseResults(await readFile(file, 'utf8'), file)));
  process.stdout.write(`${files[0]} (${before!.startedAt}) -> ${files[1]} (${after!.startedAt})\n`);
  for (const line of formatComparison(compareResults(before!.figures, after!.figures))) process.stdout.write(`${line}\n`);
}

async function bench(args: BenchArgs): Promise<number> {
  const progress = createProgress(process.stderr);
  const controller = new AbortController();
  const ctx: BenchContext = { root, args, progress, cancelSignal: controller.signal, cleanups: new Set() };
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(`\nbench: ${signal}: stopping and removing its temporary folders\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // However the process ends (an error thrown past bench(), a second interrupt's process.exit), its temporary folders go too.
  process.on('exit', () => removeTempDirsSync());

  const startedAt = new Date();
  progress.note(`measuring ${args.groups.join(', ')} (node ${process.version}, ${cpus().length} CPUs); figures at the end`);
  const figures: Figure[] = [];
  try {
    for (const group of args.groups) {
      if (controller.signal.aborted) break;
      figures.push(...(await PHASES[group](ctx)));
    }
  } finally {
    for (const cleanup of ctx.cleanups) await cleanup();
    // A phase removes what it made; anything it left (a bug) goes now, and is named.
    for (const dir of removeTempDirsSync()) progress.note(`removed a temporary folder left behind: ${dir}`);
  }
  if (controller.signal.aborted) {
    process.stderr.write('bench: interrupted; no result file written\n');
    return 130;
  }

  const finishedAt = new Date();
  const cpu = cpus();
  const results: BenchResults = {
    schema: RESULTS_SCHEMA_VERSION,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationSeconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
    git: await gitInfo(root),
    host: {
      os: process.platform,
      arch: arch(),
      kernel: release(),
      cpus: cpu.length,
      cpuModel: cpu[0]?.model ?? 'unknown',
      memoryGB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
      node: process.version,
    },
    options: { ...args, help: undefined, compare: undefined },
    summary: summarize(figures),
    figures,
  };
  await mkdir(join(root, RESULTS_DIR), { recursive: true });
  const name = resultFileName(startedAt);
  const text = `${JSON.stringify(results, null, 2)}\n`;
  await writeFile(join(root, RESULTS_DIR, name), text);
  // latest.json is the last complete run: a partial one (--only) would make comparisons with it look like losses.
  const complete = args.groups.length === GROUPS.length;
  if (complete) await writeFile(join(root, RESULTS_DIR, 'latest.json'), text);

  process.stdout.write(`\nshice bench, ${results.startedAt}, ${results.durationSeconds.toFixed(0)} s on ${cpu.length} CPUs (${results.host.cpuModel})\n`);
  for (const line of formatFigures(figures)) process.stdout.write(`${line}\n`);
  const s = results.summary;
  process.stdout.write(`\n${s.measured} measured (${s.meetTarget} meet their target, ${s.missTarget} miss it), ${s.notMeasured} not measured\n`);
  process.stdout.write(`results: ${RESULTS_DIR}/${name}${complete ? ` and ${RESULTS_DIR}/latest.json` : ' (a partial run: latest.json left as it was)'}\n`);
  return exitCodeFor(
    figures,
    new Set<Group>([...(args.skipLab ? ['lab' as const] : []), ...(args.skipKind ? ['kind' as const] : []), ...(args.skipTests ? ['tests' as const] : [])]),
  );
}

async function main(): Promise<void> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`bench: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (args.compare) {
    try {
      await compare(args.compare);
    } catch (error) {
      process.stderr.write(`bench: ${(error as Error).message}\n`);
      process.exit(2);
    }
    return;
  }
  process.exitCode = await bench(args);
}

await main();
