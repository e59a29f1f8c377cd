// One cold `astro build` of a project copy, timed from the outside as a user
// would feel `npm run build`: caches removed first, so every build in a run
// starts from the same state. The machine's cache of Open Graph cards
// (src/og/card-cache.ts) is one of them: a cold build gets one of its own in
// the copy, emptied with the rest, so that the cards are drawn (growth.ogCard
// measures drawing them), never read back from an earlier build.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { buildCost, sampleMachine, type BuildCost } from './cpu.ts';
import { failureLine } from '../failure-line.ts';

export class BuildTimeout extends Error {
  override name = 'BuildTimeout';
}

export interface BuildResult {
  /** Wall time. */
  seconds: number;
  /** CPU time and load average around the build. */
  cost: BuildCost;
  /** HTML files written to dist/. */
  htmlFiles: number;
  /** The build process's peak resident memory, in bytes (its own getrusage at exit; the processes it starts are not in it). */
  peakRssBytes: number | null;
}

export interface BuildOptions {
  /** astro --config; the project's own config when absent. */
  config?: string;
  timeoutMs: number;
  cancelSignal?: AbortSignal;
  /** Leave dist/ and the caches alone (the real project: others may be using them). */
  keepCaches?: boolean;
}

/** The machine's cache (SHICE_CACHE) of a cold build: the project copy's own. */
const MACHINE_CACHE = '.shice-cache';
const CACHES = ['dist', '.astro', 'node_modules/.astro', 'node_modules/.vite', MACHINE_CACHE];

async function countHtml(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.html')).length;
}

/** The environment of a build: the caller's, minus anything that would redirect what it reads; `machineCache`, SHICE_CACHE's. */
export function buildEnvironment(env: NodeJS.ProcessEnv, machineCache?: string): NodeJS.ProcessEnv {
  const { SHICE_SNAPSHOT_ROOT: _ignored, ...rest } = env;
  return { ...rest, ASTRO_TELEMETRY_DISABLED: '1', ...(machineCache ? { SHICE_CACHE: machineCache } : {}) };
}

/** Loaded before astro: at exit, the process's own peak resident memory (getrusage, in KiB) into the file the bench names. */
const PEAK_RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; const file = process.env.SHICE_BENCH_PEAK_RSS; process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));",
)}`;

async function readPeakRss(file: string): Promise<number | null> {
  try {
    const kib = Number((await readFile(file, 'utf8')).trim());
    return Number.isFinite(kib) && kib > 0 ? kib * 1024 : null;
  } catch {
    return null;
  } finally {
    await rm(file, { force: true });
  }
}

export async function astroBuild(dir: string, options: BuildOptions): Promise<BuildResult> {
  if (!options.keepCaches) for (const cache of CACHES) await rm(join(dir, cache), { recursive: true, force: true });
  const peakRssFile = join(dir, '.bench-peak-rss');
  const args = ['--import', PEAK_RSS_HOOK, join(dir, 'node_modules/astro/bin/astro.mjs'), 'build', ...(options.config ? ['--config', options.config] : [])];
  const before = sampleMachine();
  const started = performance.now();
  const result = await execa(process.execPath, args, {
    cwd: dir,
    env: { ...buildEnvironment(process.env, options.keepCaches ? undefined : join(dir, MACHINE_CACHE)), SHICE_BENCH_PEAK_RSS: peakRssFile },
    extendEnv: false,
    timeout: options.timeoutMs,
    ...(options.cancelSignal ? { cancelSignal: options.cancelSignal } : {}),
    all: true,
    reject: false,
  });
  const seconds = (performance.now() - started) / 1000;
  const cost = buildCost(before, sampleMachine());
  if (result.timedOut) throw new BuildTimeout(`astro build in ${dir} took longer than ${Math.round(options.timeoutMs / 1000)} s and was stopped`);
  if (result.isCanceled) throw new Error(`astro build in ${dir} was interrupted`);
  if (result.exitCode !== 0) {
    const output = String(result.all ?? '');
    const tail = output.trim().split('\n').slice(-12).join('\n');
    throw new Error(`astro build in ${dir} failed (exit ${result.exitCode ?? result.signal}): ${failureLine(output)}\n${tail}`);
  }
  return { seconds, cost, htmlFiles: await countHtml(join(dir, 'dist')), peakRssBytes: await readPeakRss(peakRssFile) };
}
