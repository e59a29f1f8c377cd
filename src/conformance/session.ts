// One conformance run: the agnhost image, a kind cluster of the kind driver's
// own (a control plane and three workers: the most the focused tests ask for),
// agnhost loaded into its nodes, upstream's e2e binary run on it with the
// focus, and the cluster removed, on success, failure or Ctrl-C. Its output is
// written into `out`, which the caller swaps in only when the run is whole.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Experiment } from '../experiment/types.ts';
import { threeNodeCluster } from '../experiment/clusters.ts';
import type { KubeRelease } from '../experiment/kubernetes.ts';
import { prepare, kindPathDirs } from '../capture/kind/prepare.ts';
import { engineEnv, runtimeAdaptation, stopEngine } from '../capture/kind/engine/engine.ts';
import { createKindRun, kindStatePaths } from '../capture/kind/index.ts';
import { makeRunId } from '../capture/recovery/run-id.ts';
import { runOrThrow } from '../capture/machine/checked-run.ts';
import { runProcess, text } from '../capture/machine/process.ts';
import { DriverError, type ProviderContext } from '../capture/provider/node-provider.ts';
import { parsePodList, podChanges } from '../capture/kubectl/topology.ts';
import { buildAgnhostImage, type AgnhostImage } from './agnhost-image.ts';
import { focusOf, type UpstreamTest } from './upstream-tests.ts';
import { LOG_FILE, REPORT_FILE } from './record.ts';

export const CONFORMANCE_CLUSTER = 'kx-conformance';
/** The whole focused run: a dozen tests of a minute or two each, with room for a slow machine. */
const E2E_RUN_MS = 90 * 60_000;
const MINUTE = 60_000;

/** Three schedulable nodes: the most any focused test asks for (HealthCheckNodePort's, when the policy changes). */
export const CONFORMANCE_WORKERS = 3;

/** The cluster the tests run on: kind's shape (a control plane and `workers` workers) under the kind driver. Pure. */
export function conformanceExperiment(workers: number): Experiment {
  const cluster = threeNodeCluster({ name: CONFORMANCE_CLUSTER });
  const names = Array.from({ length: workers }, (_, i) => (i === 0 ? 'worker' : `worker${i + 1}`));
  return {
    slug: 'conformance',
    cluster: { ...cluster, nodes: [{ name: 'control-plane', role: 'control-plane' }, ...names.map((name) => ({ name, role: 'worker' as const }))] },
    manifests: [],
    client: 'control-plane',
    steps: [],
  };
}

/** The e2e binary's arguments: the cluster, no cloud provider, the focus, ginkgo's JSON report. Pure. */
export function e2eArgs(kubeconfig: string, tests: readonly UpstreamTest[], reportFile: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    // kind's e2e jobs run with the skeleton provider: no cloud, nothing provider-specific.
    '--provider=skeleton',
    `--ginkgo.focus=${focusOf(tests)}`,
    `--ginkgo.json-report=${reportFile}`,
    '--ginkgo.no-color',
    '--ginkgo.timeout=80m',
  ];
}

export interface ConformanceInputs {
  root: string;
  release: KubeRelease;
  /** Upstream's e2e binary and agnhost, built for the release. */
  e2eBinary: string;
  agnhostBinary: string;
  /** k8s.io/kubernetes@<release> in the Go module cache. */
  moduleDir: string;
  tests: readonly UpstreamTest[];
  /** Worker nodes of the cluster (CONFORMANCE_WORKERS for the whole list). */
  workers: number;
  /** An empty folder: the report, the log. */
  out: string;
  keep: boolean;
}

export interface ConformanceRun {
  runId: string;
  startedAt: string;
  agnhost: AgnhostImage;
  nodeImage: string;
  nodes: string[];
  /** What the API server says its version is. */
  serverVersion: string;
  args: string[];
  exitCode: number | null;
  seconds: number;
}

export async function runConformance(inputs: ConformanceInputs, ctx: ProviderContext): Promise<ConformanceRun> {
  const { root, release } = inputs;
  const startedAt = new Date();
  const prepared = await prepare({ root, buildImages: true, releases: [release] }, ctx);
  try {
    const dockerEnv = engineEnv(prepared.engine, process.env);
    const adaptation = prepared.engine.record?.adaptation ?? runtimeAdaptation(readFileSync('/proc/self/status', 'utf8'));
    const agnhost = await buildAgnhostImage({ ...ctx, root, env: dockerEnv, adaptation, release }, inputs.agnhostBinary, inputs.moduleDir);
    const runId = makeRunId(startedAt);
    const stateDir = join(root, '.shice', 'kind');
    const env = { ...dockerEnv, PATH: [...kindPathDirs(release), process.env.PATH ?? ''].join(':') };
    const experiment = conformanceExperiment(inputs.workers);
    const run = createKindRun(experiment, {
      runId,
      articleDir: root,
      keep: inputs.keep,
      reuse: false,
      loadImages: false,
      kubernetes: release,
      stateDir,
      cwd: root,
      env,
      host: { root, registryReachable: async () => false },
    });
    await run.provider.preflight();
    try {
      await run.provider.up(ctx);
      const kubeconfig = kindStatePaths(stateDir, CONFORMANCE_CLUSTER).kubeconfig;
      const tools = { env: run.access.env, cwd: root, timeoutMs: 10 * MINUTE };
      ctx.log(`conformance: loading ${agnhost.name} into the nodes of "${CONFORMANCE_CLUSTER}"`);
      await runOrThrow(['kind', 'load', 'docker-image', agnhost.name, '--name', CONFORMANCE_CLUSTER], tools, `load ${agnhost.name} into the nodes`, ctx);
      const version = JSON.parse(
        (await runOrThrow(['kubectl', '--kubeconfig', kubeconfig, 'version', '-o', 'json'], tools, 'read the versions', ctx)).stdout,
      ) as {
        serverVersion?: { gitVersion?: string };
      };
      const nodeList = JSON.parse(
        (await runOrThrow(['kubectl', '--kubeconfig', kubeconfig, 'get', 'nodes', '-o', 'json'], tools, 'list the nodes', ctx)).stdout,
      ) as {
        items: Array<{ metadata: { name: string } }>;
      };
      const systemPods = async () =>
        parsePodList(
          (
            await runOrThrow(
              ['kubectl', '--kubeconfig', kubeconfig, 'get', 'pods', '--namespace', 'kube-system', '-o', 'json'],
              tools,
              "read kube-system's pods",
              ctx,
            )
          ).stdout,
        );
      const before = await systemPods();
      const args = e2eArgs(kubeconfig, inputs.tests, join(inputs.out, REPORT_FILE));
      ctx.log(`conformance: running ${inputs.tests.length} upstream tests (${inputs.e2eBinary} ${args.slice(1).join(' ').slice(0, 60)}…)`);
      const e2e = await runProcess([inputs.e2eBinary, ...args], {
        env: run.access.env,
        cwd: inputs.out,
        timeoutMs: E2E_RUN_MS,
        signal: ctx.signal,
        echo: true,
      });
      writeFileSync(join(inputs.out, LOG_FILE), `${text(e2e.stdout)}${text(e2e.stderr)}`);
      if (e2e.canceled) throw new DriverError('interrupted while the upstream tests ran');
      if (e2e.timedOut) throw new DriverError(`the upstream tests ran past ${E2E_RUN_MS / MINUTE} min and were stopped`);
      if (e2e.missing || e2e.spawnError) throw new DriverError(`could not run ${inputs.e2eBinary}: ${e2e.spawnError ?? 'not found'}`);
      // A node or a component (kube-proxy, the API server) that died or restarted under the tests makes their failures its own.
      const broken = [...(await run.provider.problems(ctx)), ...podChanges(before, await systemPods(), new Set())];
      if (broken.length > 0) throw new DriverError(`the cluster broke while the upstream tests ran (${broken.join('; ')}): this run is no record of them`);
      return {
        runId,
        startedAt: startedAt.toISOString(),
        agnhost,
        nodeImage: prepared.images?.nodes[release.release]?.name ?? 'kind’s official node image',
        nodes: nodeList.items.map((n) => n.metadata.name),
        serverVersion: version.serverVersion?.gitVersion ?? '',
        args: args.map((a) => a.replace(kubeconfig, '<kubeconfig>').replace(inputs.out, '.')),
        exitCode: e2e.exitCode,
        seconds: Math.round(e2e.durationMs / 1000),
      };
    } finally {
      if (!inputs.keep) await run.provider.down({ log: ctx.log });
    }
  } finally {
    if (prepared.startedEngine && !inputs.keep) await stopEngine();
  }
}
