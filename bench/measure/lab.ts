// The lab capture, timed from the outside: `npm run capture -- --driver lab
// --out <temp>` as a user runs it, set against its floor (the waits the
// steps cannot avoid), with the steps, setup and teardown apart. The
// snapshots go to a temporary folder: the article's own stay as they are.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { labUnavailable } from '../../src/capture/lab/tools.ts';
import { readPhases } from '../../src/capture/lab/phases.ts';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { labTimings, platformPartMs, type ArrivedLine, type TimedStep } from '../lab-timing.ts';
import { makeTempDir } from '../temp-dirs.ts';
import { failureLine } from '../failure-line.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';
import { buildCost, describeBuild, sampleMachine } from '../site/cpu.ts';
import { errorMessage, withTemporary, type BenchContext } from './context.ts';

/** A whole lab capture with real Kubernetes, on these 2-core machines (kind create cluster alone takes a minute or more). */
export const LAB_TARGET_SECONDS = 30;

const FIGURES = {
  perRun: {
    id: 'lab.perRun',
    group: 'lab' as const,
    unit: 's' as const,
    label: 'lab capture: wall time per run',
    target: { op: '<=' as const, value: LAB_TARGET_SECONDS },
  },
  wall: { id: 'lab.wall', group: 'lab' as const, unit: 's' as const, label: 'lab capture: wall time, every run' },
  ratio: { id: 'lab.ratio', group: 'lab' as const, unit: 'x' as const, label: 'lab capture: wall time / floor' },
  network: { id: 'lab.network', group: 'lab' as const, unit: 's' as const, label: 'lab: namespaces, network and PKI' },
  controlPlane: { id: 'lab.controlPlane', group: 'lab' as const, unit: 's' as const, label: 'lab: etcd and API server up (readyz)' },
  nodes: { id: 'lab.nodes', group: 'lab' as const, unit: 's' as const, label: 'lab: nodes registered, podCIDRs, Ready' },
  pods: { id: 'lab.pods', group: 'lab' as const, unit: 's' as const, label: 'lab: manifests applied, pods Ready, kube-proxy synced' },
  down: { id: 'lab.down', group: 'lab' as const, unit: 's' as const, label: 'lab: teardown' },
  steps: { id: 'lab.steps', group: 'lab' as const, unit: 's' as const, label: 'lab capture: steps only' },
  setup: { id: 'lab.setup', group: 'lab' as const, unit: 's' as const, label: 'lab capture: setup' },
  teardown: { id: 'lab.teardown', group: 'lab' as const, unit: 's' as const, label: 'lab capture: teardown' },
};

/** One line saying the lab was not measured, and why. */
export function labNotMeasured(reason: string): Figure[] {
  return [notMeasured(FIGURES.perRun, reason)];
}

/** Why the lab cannot run here, or null. */
export { labUnavailable };

export async function measureLab(ctx: BenchContext): Promise<Figure[]> {
  if (ctx.args.skipLab) return labNotMeasured('skipped (--skip-lab)');
  const unavailable = labUnavailable();
  if (unavailable) return labNotMeasured(unavailable);
  try {
    // A capture builds the releases its runs lack before its first run; that build is no part of a capture's time.
    // The headline release only: a run's time is the figure, and every release of every article
    // (twenty-odd runs) outlasts the time limit (--build-timeout).
    const release = ['--k8s', HEADLINE_RELEASE.minor];
    const plan = await execa(process.execPath, [join(ctx.root, 'scripts/capture.ts'), '--driver', 'lab', ...release, '--dry-run'], {
      cwd: ctx.root,
      reject: false,
      cancelSignal: ctx.cancelSignal,
    });
    const builds = plan.stdout.split('\n').filter((line) => line.startsWith('# before the first run, the capture builds '));
    if (builds.length > 0)
      return labNotMeasured(
        `the capture would first build ${builds.length} release(s) this machine lacks (npm run lab:build -- --k8s all builds them): ${builds[0]!.slice(2)}`,
      );
    return await withTemporary(
      ctx,
      () => makeTempDir('lab'),
      async ({ dir }) => {
        const argv = [join(ctx.root, 'scripts/capture.ts'), '--driver', 'lab', ...release, '--out', dir];
        const startMs = Date.now();
        const arrived: ArrivedLine[] = [];
        const before = sampleMachine();
        const run = await ctx.progress.task(`lab capture: npm run capture -- --driver lab --k8s ${HEADLINE_RELEASE.minor} --out <temp>`, async () => {
          const child = execa(process.execPath, argv, {
            cwd: ctx.root,
            cancelSignal: ctx.cancelSignal,
            all: true,
            reject: false,
            timeout: ctx.args.buildTimeoutSeconds * 1000,
          });
          // The capture's own progress, passed through as it comes, each line with the time it arrived.
          child.all?.on('data', (chunk: Buffer) => {
            for (const line of chunk.toString('utf8').split('\n')) {
              if (!line.trim()) continue;
              arrived.push({ atMs: Date.now() - startMs, text: line });
              ctx.progress.note(`  capture │ ${line.replace(/\r|\x1b\[2K/g, '')}`);
            }
          });
          return await child;
        });
        const endMs = Date.now();
        // The capture and what it started and reaped (etcd, the API server, the kubelets, nginx), as CPU time.
        const cost = buildCost(before, sampleMachine());
        if (run.timedOut) return labNotMeasured(`the capture took longer than ${ctx.args.buildTimeoutSeconds} s and was stopped`);
        if (run.exitCode !== 0) return labNotMeasured(`the capture exited ${run.exitCode ?? run.signal}: ${failureLine(String(run.all ?? ''))}`);

        const steps: TimedStep[] = [];
        const slugs = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
        if (!slugs.length) return labNotMeasured(`the capture wrote no snapshots to ${dir}`);
        for (const slug of slugs) steps.push(...loadSnapshots(join(dir, slug)).steps.values());
        const t = labTimings({ startMs, endMs }, steps);
        const s = (ms: number) => ms / 1000;
        // The bring-up's parts, as the capture's progress lines report them.
        const phases = readPhases(String(run.all ?? ''));
        const part = (figure: (typeof FIGURES)[keyof typeof FIGURES], ms: number | undefined) =>
          ms === undefined ? notMeasured(figure, 'the capture printed no such phase') : measured(figure, s(ms));
        const platform = platformPartMs(arrived);
        const waits = t.waits.map((w) => `${w.step} ${s(w.ms)} s`).join(', ');
        return [
          // One run per snapshot folder: an article with variants (kube-proxy modes) captures one run each.
          measured(FIGURES.perRun, s(t.wallMs) / slugs.length, {
            note: `process start to exit over ${slugs.length} run(s)${cost.cpuSeconds === null ? '' : `; CPU ${(cost.cpuSeconds / slugs.length).toFixed(1)} s per run`}; the phases below are the first run's`,
          }),
          measured(FIGURES.wall, s(t.wallMs), {
            note: `${describeBuild(s(t.wallMs), cost)} (the capture's processes); ${slugs.length} run(s) (${slugs.join(', ')}), ${steps.length} steps; process start to exit`,
            details: { runs: slugs, ...t, phases, cpuSeconds: cost.cpuSeconds, load: [cost.loadBefore, cost.loadAfter] },
          }),
          part(FIGURES.network, phases.network),
          part(FIGURES.controlPlane, phases.controlPlane),
          part(FIGURES.nodes, phases.nodes),
          platform === null
            ? notMeasured(FIGURES.pods, "the capture printed no lab up line or no steps line before its first run's steps")
            : measured(FIGURES.pods, s(platform), { note: "from the lab's up line to the line that opens the steps, by their arrival (the first run's)" }),
          measured(FIGURES.steps, s(t.stepsMs), { note: "sum of the steps' durationMs" }),
          part(FIGURES.down, phases.down),
          t.floorMs === 0
            ? notMeasured(FIGURES.ratio, 'no step had to wait: no curl timed out (exit 28), so there is no floor to compare with')
            : measured(FIGURES.ratio, t.wallMs / t.floorMs, { note: `against the curl timeouts it must sit out: ${waits}` }),
          measured(FIGURES.setup, s(t.setupMs), { note: 'process start to the first step: Node, preflight, the whole bring-up' }),
          measured(FIGURES.teardown, s(t.teardownMs), {
            note: `end of the last step to exit: snapshots written, lab taken down${t.betweenStepsMs > 50 ? `; ${s(t.betweenStepsMs).toFixed(1)} s more between steps` : ''}`,
          }),
        ];
      },
    );
  } catch (error) {
    return labNotMeasured(errorMessage(error));
  }
}
