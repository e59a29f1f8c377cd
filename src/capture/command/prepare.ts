// Before the first run: every run the capture plans (article × version × variant,
// in the driver's environment) checked against this machine at once
// (src/capture/session/preparation.ts). What the project can build itself is built into
// the machine's cache with its progress (a release's binaries for the lab: the
// code of `npm run lab:build`; for kind, the code of `npm run kind:prepare`);
// what it cannot is one line per problem, exit 2, with nothing written. --dry-run
// prints the same as comments and builds nothing.
import { delimiter } from 'node:path';
import type { CaptureArgs } from '../session/cli-args.ts';
import { readIpvsFacts } from '../machine/host.ts';
import { engineEnv, findEngine } from '../kind/engine/engine.ts';
import { readImagesRecord } from '../kind/image/build.ts';
import { kindPathDirs, prepare } from '../kind/prepare.ts';
import { registryReachable } from '../kind/registry.ts';
import { chooseKubeBinDir, missingComponents } from '../machine/kube-bin.ts';
import { findProgram } from '../machine/kube-bin.ts';
import { MACHINE_CACHE } from '../machine/machine-cache.ts';
import { buildStepText, planPreparation, runNeeds, type CaptureProbe, type KindReading, type Preparation } from '../session/preparation.ts';
import { runTool } from '../machine/process.ts';
import { PrerequisiteError } from '../provider/node-provider.ts';
import { terminalSafe } from '../../evidence/terminal-text.ts';
import type { KubeRelease } from '../../experiment/kubernetes.ts';
import { probeMachine } from '../machine/probe-machine.ts';
import { buildKube, kubeBuildState } from '../machine/kube-build.ts';
import type { ArticlePlan } from './plans.ts';
import { exitWith, fail, sayLine, type CaptureContext } from './edge.ts';

/** What the capture's plan needs of this machine, and the Go it would build with. */
export interface MachinePlan {
  preparation: Preparation;
  go: string | null;
}

/** The kind driver's view of this machine: the engine, the registry, the tools and kind:prepare's images of each release. */
async function probeKind(releases: readonly KubeRelease[], imageGiven: boolean): Promise<KindReading> {
  const engine = await findEngine();
  const registry = imageGiven ? false : await registryReachable();
  const record = readImagesRecord();
  const env = engine ? engineEnv(engine, process.env) : process.env;
  const present = async (image: string) => (await runTool(['docker', 'image', 'inspect', image], { env, timeoutMs: 20_000 })).exitCode === 0;
  const images = new Map<KubeRelease, boolean>();
  for (const release of releases) {
    const node = record?.nodes[release.release];
    const wanted = node === undefined ? [] : [node.name, ...Object.values(record?.backends ?? {}).map((b) => b.name)];
    let all = engine !== null && node !== undefined;
    for (const image of wanted) all = all && (await present(image));
    images.set(release, all);
  }
  return {
    engine: engine !== null,
    registry,
    missingTools: (release) => {
      const path = [...kindPathDirs(release), process.env.PATH ?? ''].join(delimiter);
      return ['kind', 'kubectl'].filter((tool) => findProgram(tool, path) === null);
    },
    nodeImage: (release) => images.get(release) ?? false,
  };
}

/** Every run of the plans against this machine: what to build, and what cannot be. */
export async function planMachine(args: CaptureArgs, plans: readonly ArticlePlan[]): Promise<MachinePlan> {
  const runs = runNeeds(plans, args.driver);
  const machine = probeMachine();
  const option = args.driverFlags['kube-bin'];
  const imageGiven = typeof args.driverFlags['image'] === 'string';
  try {
    const probe: CaptureProbe = {
      ...machine,
      kubeBin: (release) => {
        const choice = chooseKubeBinDir(typeof option === 'string' ? option : null, process.env, release);
        return { choice, missing: missingComponents(choice.dir), build: choice.from === 'built' ? kubeBuildState(release, machine.goVersion) : 'current' };
      },
      ipvs: readIpvsFacts(),
      kind: args.driver === 'kind' ? await probeKind([...new Set(runs.map((r) => r.release))], imageGiven) : null,
    };
    return { preparation: planPreparation(runs, probe, { variantsNamed: args.variants.length > 0, imageGiven }), go: machine.goVersion };
  } catch (error) {
    // A record of shice's engine that does not read, say: the line that names it.
    if (error instanceof PrerequisiteError) fail(error.message, 2);
    throw error;
  }
}

/** --dry-run's first lines: what the capture would build before its first run, and what stops it here, as comments a shell ignores. */
export function preparationComments({ build, problems }: Preparation): string[] {
  return [
    ...build.map((step) => `# before the first run, the capture builds ${buildStepText(step)}`),
    ...problems.map((problem) => `# the capture stops here before any run: ${problem.replace(/\s*[\r\n]+\s*/g, ' ')}`),
  ];
}

/**
 * Stops the capture (exit 2) with every problem, one line each, before anything is written;
 * else builds what the runs need into the machine's cache, the lab's releases first, then kind's.
 */
export async function buildWhatRunsNeed({ preparation, go }: MachinePlan, ctx: CaptureContext): Promise<void> {
  const { build, problems } = preparation;
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`capture: ${terminalSafe(problem.replaceAll('\n', ' | '))}\n`);
    process.stderr.write(
      `capture: nothing was built, captured or written (${problems.length === 1 ? 'the problem above' : `the ${problems.length} problems above`})\n`,
    );
    exitWith(2);
  }
  if (build.length === 0) return;
  sayLine(
    `before the first run, building what the runs need into the machine's cache (${MACHINE_CACHE}): ${build.map((s) => `${s.release.release} (${s.what})`).join(', ')}; a cold build of one release takes minutes`,
  );
  const signal = ctx.interrupts.signal;
  const interrupted = () =>
    fail('interrupted while building what the runs need; nothing was captured (what was built whole stays in the cache)', ctx.interrupts.exitCode());
  ctx.interrupts.running = true;
  const say = (line: string) => process.stderr.write(`${line}\n`);
  for (const step of build.filter((s) => s.what === 'lab:build')) {
    sayLine(`building ${buildStepText(step)}`);
    const problem = await buildKube(step.release, go!, { tag: `capture: lab:build ${step.release.minor}`, quiet: false, say, signal });
    if (signal.aborted) interrupted();
    if (problem !== null) fail(`${problem}; nothing was captured`, 1);
  }
  const kind = build.filter((s) => s.what === 'kind:prepare');
  if (kind.length > 0) {
    for (const step of kind) sayLine(`preparing ${buildStepText(step)}`);
    try {
      await prepare({ root: ctx.root, buildImages: false, releases: kind.map((s) => s.release) }, { signal, log: say });
    } catch (error) {
      if (signal.aborted) interrupted();
      fail(`kind:prepare: ${(error as Error).message}; nothing was captured`, error instanceof PrerequisiteError ? 2 : 1);
    }
  }
  ctx.interrupts.running = false;
  sayLine('built what the runs need; the runs follow');
}
