// `npm test` as CI runs it (CI=true), warm, on two clones of the repository's
// HEAD made in the same bench run: as it is, and with 20 more articles (the
// bench's copies of --article, each with its own runs). The
// difference is what the suites charge for articles; the flat cost is the aim.
// The copies run one after another: the host suites compare the host before and
// after, and the machine's one engine and kind cluster name are shared.
import { spawn } from 'node:child_process';
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Figure } from '../figures.ts';
import { MORE_ARTICLES, npmTestFigures, summarySuites, type NpmTestRun } from '../npm-test-cost.ts';
import { buildCost, sampleMachine } from '../site/cpu.ts';
import { linkNodeModules, writeEvidenceCopies } from '../site/temp-project.ts';
import { makeTempDir, type TempDir } from '../temp-dirs.ts';
import { errorMessage, withTemporary, type BenchContext } from './context.ts';

/** A clone of the repository's HEAD (what CI checks out: its history too, which the suites read) with its installed packages linked. */
async function repositoryCopy(root: string, label: string): Promise<TempDir> {
  const temp = await makeTempDir(label);
  try {
    // Readable by every user, as a checkout is: a unit test runs npm test as an unprivileged user to see it refuse.
    await chmod(temp.dir, 0o755);
    await execa('git', ['clone', '--quiet', '--no-hardlinks', root, join(temp.dir, 'repo')]);
    await linkNodeModules(root, join(temp.dir, 'repo'));
  } catch (error) {
    await temp.remove();
    throw error;
  }
  return { dir: join(temp.dir, 'repo'), remove: temp.remove };
}

function npmTest(ctx: BenchContext, dir: string, what: string): Promise<NpmTestRun> {
  return new Promise((resolve, reject) => {
    const before = sampleMachine();
    const started = performance.now();
    let output = '';
    const child = spawn(process.execPath, [join(dir, 'scripts/test.ts')], {
      cwd: dir,
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: ctx.cancelSignal,
    });
    let lastNote = 0;
    for (const stream of [child.stdout, child.stderr])
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        // A line now and then: the run takes minutes, and its own output is its suites'.
        if (performance.now() - lastNote > 60_000) {
          lastNote = performance.now();
          ctx.progress.note(`  npm test (${what}) │ ${output.trimEnd().split('\n').at(-1)!.slice(0, 160)}`);
        }
      });
    // An interrupt kills npm test (SIGTERM), which waits for its suites to clean up: the copy is removed only once it has closed.
    child.on('error', (error) => {
      if (error.name !== 'AbortError') reject(error);
    });
    child.on('close', (code) => {
      // A run that failed says why in its own words: its last lines go to the progress output.
      if (code !== 0) for (const line of output.trimEnd().split('\n').slice(-30)) ctx.progress.note(`  npm test (${what}) │ ${line.slice(0, 200)}`);
      resolve({
        wallSeconds: (performance.now() - started) / 1000,
        cpuSeconds: buildCost(before, sampleMachine()).cpuSeconds,
        exitCode: code,
        suites: summarySuites(output),
      });
    });
  });
}

async function timedRun(ctx: BenchContext, label: string, what: string, more: number): Promise<NpmTestRun | { failure: string }> {
  try {
    return await withTemporary(
      ctx,
      () =>
        ctx.progress.task(`a copy of the repository (${what})`, async () => {
          const copy = await repositoryCopy(ctx.root, label);
          if (more > 0) await writeEvidenceCopies(ctx.root, copy.dir, ctx.args.article, more);
          return copy;
        }),
      (copy) => ctx.progress.task(`npm test, CI=true, on the repository ${what}`, () => npmTest(ctx, copy.dir, what)),
    );
  } catch (error) {
    return { failure: errorMessage(error) };
  }
}

export async function measureNpmTest(ctx: BenchContext): Promise<Figure[]> {
  if (ctx.args.skipTests) {
    const failure = 'skipped (--skip-tests)';
    return npmTestFigures({ failure }, { failure });
  }
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    const failure = "npm test's lab, fault and kind suites need Linux and root, and CI=true runs them";
    return npmTestFigures({ failure }, { failure });
  }
  const asIs = await timedRun(ctx, 'tests-as-is', 'as it is', 0);
  const more = ctx.cancelSignal.aborted ? { failure: 'interrupted' } : await timedRun(ctx, 'tests-more', `with ${MORE_ARTICLES} more articles`, MORE_ARTICLES);
  return npmTestFigures(asIs, more);
}
