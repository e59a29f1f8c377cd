// The kind driver, timed from the outside on this machine: `npm run kind:prepare`
// (the engine and the images, warm or cold as the machine is), then `kind create
// cluster` alone with the config the capture would write, then a whole capture of
// article 074's default variant on the headline release as a user runs it, its
// parts read from the times its progress lines arrived at. A capture prepares what
// its runs lack before its first run with the same code (kind:prepare's prepare(),
// src/capture/command/prepare.ts); the bench prepares first, as its own timed phase,
// so that the capture's time holds no build. The ratio of the capture to the create alone,
// both measured in this run, is what the capture adds to kind itself. CPU time is
// the capture's own processes (kind, kubectl, docker's CLI) beside the wall time:
// the cluster's work runs under dockerd, not under the bench, and is not in it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { loadArticle } from '../../src/authoring/load.ts';
import { renderKindConfig } from '../../src/capture/kind/config.ts';
import { engineEnv, findEngine } from '../../src/capture/kind/engine/engine.ts';
import { journalChanges, readSysctls, undoSysctls } from '../../src/capture/kind/engine/host-state.ts';
import { readImagesRecord } from '../../src/capture/kind/image/build.ts';
import { kindParts, type TimedLine } from '../../src/capture/kind/phases.ts';
import { kindPathDirs } from '../../src/capture/kind/prepare.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { buildCost, describeBuild, sampleMachine } from '../site/cpu.ts';
import { makeTempDir } from '../temp-dirs.ts';
import { failureLine } from '../failure-line.ts';
import { captureOverFloor, KIND_FLOOR_TARGET } from '../kind-floor.ts';
import { errorMessage, withTemporary, type BenchContext } from './context.ts';

/** The article whose capture is timed (its default variant, iptables). */
const KIND_ARTICLE = '074-external-traffic-policy';

const f = (id: string, label: string, unit: 's' | 'x' = 's') => ({ id: `kind.${id}`, group: 'kind' as const, unit, label });
const FIGURES = {
  prepare: f('prepare', "kind:prepare: engine, tools and the headline's images (as this machine has them; what a capture prepares first)"),
  engine: f('engine', 'kind:prepare: Docker engine ready'),
  images: f('images', 'kind:prepare: node and backend images ready'),
  createAlone: f('createAlone', "kind create cluster alone (the capture's config and image), 3 nodes"),
  deleteAlone: f('deleteAlone', 'kind delete cluster alone'),
  capture: f('capture', 'kind capture of 074 (iptables, headline release): wall time, process start to exit'),
  ratio: f('ratio', 'kind capture / kind create cluster alone, same run', 'x'),
  overFloor: {
    ...f(
      'overFloor',
      "kind capture over its floor: capture / (create and delete alone, podCIDRs given, nodes and pods Ready, kube-proxy synced, the steps' own time)",
      'x',
    ),
    target: { op: '<=' as const, value: KIND_FLOOR_TARGET },
  },
  preflight: f('preflight', 'kind capture: start to kind create (preflight, engine and image checks)'),
  cluster: f('cluster', 'kind capture: kind create cluster'),
  podCidrs: f('podCidrs', 'kind capture: every node given its podCIDR (the controller-manager)'),
  standIn: f('standIn', 'kind capture: kindnetd stand-in written, substitute images checked'),
  nodesReady: f('nodesReady', 'kind capture: manifests applied, nodes Ready'),
  podsReady: f('podsReady', 'kind capture: pods Ready, topology read, kube-proxy synced'),
  steps: f('steps', 'kind capture: steps'),
  teardown: f('teardown', 'kind capture: teardown (kind delete, network, state files)'),
};

export function kindNotMeasured(reason: string): Figure[] {
  return [notMeasured(FIGURES.capture, reason)];
}

interface Timed {
  code: number | null;
  wallMs: number;
  lines: TimedLine[];
  note: string;
  cpuSeconds: number | null;
}

/** Runs a command, stamping each line of its output with the time it arrived; CPU time from the reaped children. */
function timed(argv: string[], env: NodeJS.ProcessEnv, cwd: string, onLine: (line: string) => void, signal: AbortSignal): Promise<Timed> {
  return new Promise((resolve) => {
    const before = sampleMachine();
    const started = performance.now();
    const lines: TimedLine[] = [];
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], signal });
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        const parts = (pending + chunk).split('\n');
        pending = parts.pop()!;
        for (const text of parts) {
          lines.push({ atMs: performance.now() - started, text });
          onLine(text);
        }
      });
    }
    child.on('error', () => {});
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const cost = buildCost(before, sampleMachine());
      resolve({ code, wallMs, lines, note: describeBuild(wallMs / 1000, cost), cpuSeconds: cost.cpuSeconds });
    });
  });
}

const text = (run: Timed) => run.lines.map((l) => l.text).join('\n');

export async function measureKind(ctx: BenchContext): Promise<Figure[]> {
  if (ctx.args.skipKind) return kindNotMeasured('skipped (--skip-kind)');
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return kindNotMeasured('kind:prepare needs Linux and root here');
  // The bench measures kind:prepare as a user runs it, and leaves the machine as it found it: an engine
  // it started (shice's own, none answering before) is stopped again, with what it changed of the host.
  const engineBefore = await findEngine();
  try {
    return await measureKindOnEngine(ctx);
  } finally {
    if (engineBefore === null && (await findEngine())?.own) {
      const stop = await execa(process.execPath, [join(ctx.root, 'scripts/kind-prepare.ts'), '--stop'], { cwd: ctx.root, all: true, reject: false });
      ctx.progress.note(`  kind │ kind:prepare --stop, the engine the bench started: exit ${stop.exitCode}`);
    }
  }
}

async function measureKindOnEngine(ctx: BenchContext): Promise<Figure[]> {
  const note = (line: string) => ctx.progress.note(`  kind │ ${line.replace(/\r|\x1b\[2K/g, '')}`);
  const s = (ms: number) => ms / 1000;
  try {
    const { experiment } = await loadArticle(ctx.root, KIND_ARTICLE);
    // Minutes of kind:prepare and kind create would be spent for nothing if the capture cannot even start.
    const cli = await execa(process.execPath, [join(ctx.root, 'scripts/capture.ts'), '--help'], {
      cwd: ctx.root,
      all: true,
      reject: false,
      cancelSignal: ctx.cancelSignal,
    });
    if (cli.exitCode !== 0)
      return kindNotMeasured(
        `the capture does not start (npm run capture -- --help exited ${cli.exitCode ?? cli.signal}): ${failureLine(String(cli.all ?? ''))}`,
      );
    const prepare = await ctx.progress.task('kind:prepare --build-images', () =>
      timed([process.execPath, join(ctx.root, 'scripts/kind-prepare.ts'), '--build-images'], process.env, ctx.root, note, ctx.cancelSignal),
    );
    if (prepare.code !== 0) return kindNotMeasured(`kind:prepare exited ${prepare.code}: ${failureLine(text(prepare))}`);
    const engineAt = prepare.lines.find((l) => /Docker engine that answers|started shice's own dockerd/.test(l.text))?.atMs;
    const imagesAt = prepare.lines.find((l) => /^kind:prepare: ready in/.test(l.text))?.atMs;
    const engine = await findEngine();
    if (engine === null) return kindNotMeasured('kind:prepare finished, but no Docker engine answers');
    const env = { ...engineEnv(engine, process.env), PATH: [...kindPathDirs(HEADLINE_RELEASE), process.env.PATH ?? ''].join(':') };
    const node = readImagesRecord()?.nodes[HEADLINE_RELEASE.release];
    if (!node) return kindNotMeasured('kind:prepare recorded no local node image');
    const cgroup = await execa('docker', ['info', '--format', '{{.CgroupVersion}}'], { env, reject: false });

    // kind create alone varies by seconds from one run to the next, as much as a capture has over its floor: it
    // runs once before the capture and once after, and the floor takes the faster of each (never in the capture's favour).
    const aloneRun = (round: string) =>
      withTemporary(
        ctx,
        async () => {
          const temp = await makeTempDir('kind');
          // What a cluster of kind's changes on the host, read before it: the capture's teardown undoes it, and so does the bench.
          const sysctls = readSysctls();
          const hadNetwork = (await execa('docker', ['network', 'ls', '--format', '{{.Name}}'], { env })).stdout.split('\n').includes('kind');
          const hadLibModules = existsSync('/lib/modules');
          return {
            dir: temp.dir,
            remove: async () => {
              await execa('kind', ['delete', 'cluster', '--name', 'shice-bench', '--kubeconfig', join(temp.dir, 'kubeconfig')], { env, reject: false });
              if (!hadNetwork) await execa('docker', ['network', 'rm', 'kind'], { env, reject: false });
              if (!hadLibModules) await rmdir('/lib/modules').catch(() => {});
              const undo = undoSysctls(journalChanges(sysctls, readSysctls()));
              if (undo.failed.length > 0 || undo.left.length > 0)
                note(`kernel settings the bench's cluster changed and could not be written back: ${JSON.stringify(undo)}`);
              await temp.remove();
            },
          };
        },
        async ({ dir }) => {
          const config = join(dir, 'kind-config.yaml');
          const cluster = { ...experimentForVariant(experiment, 'iptables').cluster, name: 'shice-bench' };
          await writeFile(config, renderKindConfig(cluster, 'bench', { cniStandIn: true, withoutCoreDNS: true, cgroupV1: cgroup.stdout.trim() === '1' }));
          const kubeconfig = join(dir, 'kubeconfig');
          const create = await ctx.progress.task(`kind create cluster (alone, ${round})`, () =>
            timed(
              ['kind', 'create', 'cluster', '--name', 'shice-bench', '--config', config, '--kubeconfig', kubeconfig, '--image', node.name],
              env,
              ctx.root,
              note,
              ctx.cancelSignal,
            ),
          );
          const del = await ctx.progress.task(`kind delete cluster (alone, ${round})`, () =>
            timed(['kind', 'delete', 'cluster', '--name', 'shice-bench', '--kubeconfig', kubeconfig], env, ctx.root, note, ctx.cancelSignal),
          );
          return { create, del };
        },
      );
    const first = await aloneRun('before the capture');
    if (first.create.code !== 0) return kindNotMeasured(`kind create cluster exited ${first.create.code}: ${failureLine(text(first.create))}`);

    return await withTemporary(
      ctx,
      () => makeTempDir('kind-capture'),
      async ({ dir }) => {
        // The headline release, whose node image kind:prepare just built: the older releases' images would be built by the capture, in its time.
        const release = ['--k8s', HEADLINE_RELEASE.minor];
        const capture = await ctx.progress.task(
          `kind capture: npm run capture -- 074-external-traffic-policy --variant iptables ${release.join(' ')} --out <temp>`,
          () =>
            timed(
              [process.execPath, join(ctx.root, 'scripts/capture.ts'), experiment.slug, '--variant', 'iptables', ...release, '--out', dir],
              process.env,
              ctx.root,
              note,
              ctx.cancelSignal,
            ),
        );
        if (capture.code !== 0) return kindNotMeasured(`the kind capture exited ${capture.code}: ${failureLine(text(capture))}`);
        const parts = kindParts(capture.lines, capture.wallMs);
        if (parts === null) return kindNotMeasured("the capture printed its progress without the kind driver's marks");
        const slugs = (await readdir(dir)).filter((name) => !name.startsWith('.'));
        const steps = slugs.flatMap((slug) => [...loadSnapshots(join(dir, slug)).steps.values()]);
        const stepsMs = steps.reduce((sum, step) => sum + step.durationMs, 0);
        const part = (figure: (typeof FIGURES)[keyof typeof FIGURES], ms: number | null, why = 'no such part in this run') =>
          ms === null ? notMeasured(figure, why) : measured(figure, s(ms));
        const second = await aloneRun('after the capture');
        const faster = (a: Timed, b: Timed) => (b.code === 0 && b.wallMs < a.wallMs ? b : a);
        const alone = { create: faster(first.create, second.create), del: faster(first.del, second.del) };
        const both = (a: Timed, b: Timed) =>
          `the faster of ${s(a.wallMs).toFixed(1)} s (before the capture) and ${b.code === 0 ? `${s(b.wallMs).toFixed(1)} s` : `a failed run (exit ${b.code})`} (after)`;
        const floor = captureOverFloor(capture.wallMs, {
          createMs: alone.create.wallMs,
          deleteMs: alone.del.wallMs,
          readyMs: (parts.podCidrsMs ?? 0) + parts.nodesReadyMs + parts.podsReadyMs,
          stepsOwnMs: stepsMs,
        });
        return [
          measured(FIGURES.prepare, s(prepare.wallMs), { note: prepare.note }),
          engineAt === undefined ? notMeasured(FIGURES.engine, 'kind:prepare printed no engine line') : measured(FIGURES.engine, s(engineAt)),
          imagesAt === undefined ? notMeasured(FIGURES.images, 'kind:prepare printed no ready line') : measured(FIGURES.images, s(imagesAt)),
          measured(FIGURES.createAlone, s(alone.create.wallMs), { note: `${both(first.create, second.create)}; ${alone.create.note}` }),
          measured(FIGURES.deleteAlone, s(alone.del.wallMs), { note: `${both(first.del, second.del)}; ${alone.del.note}` }),
          measured(FIGURES.capture, s(capture.wallMs), {
            note: `${capture.note}; the cluster's own CPU runs under dockerd and is not counted`,
            details: { parts, stepsMs },
          }),
          measured(FIGURES.ratio, capture.wallMs / alone.create.wallMs, {
            note: `${s(capture.wallMs).toFixed(1)} s over ${s(alone.create.wallMs).toFixed(1)} s`,
          }),
          measured(FIGURES.overFloor, floor.ratio, { note: floor.note, details: { floorMs: floor.floorMs } }),
          part(FIGURES.preflight, parts.preflightMs),
          part(FIGURES.cluster, parts.clusterMs),
          part(FIGURES.podCidrs, parts.podCidrsMs, "kind's official image: kindnetd waits for them, and no line marks it"),
          part(FIGURES.standIn, parts.standInMs, "kind's official image: no stand-in"),
          part(FIGURES.nodesReady, parts.nodesReadyMs),
          part(FIGURES.podsReady, parts.podsReadyMs),
          measured(FIGURES.steps, s(parts.stepsMs), { note: `${steps.length} steps, ${s(stepsMs).toFixed(1)} s of it in the steps' own durations` }),
          part(FIGURES.teardown, parts.teardownMs),
        ];
      },
    );
  } catch (error) {
    return kindNotMeasured(errorMessage(error));
  }
}
