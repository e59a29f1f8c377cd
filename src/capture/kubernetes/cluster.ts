// The Kubernetes platform above a node provider, once for every driver: apply
// the experiment's manifests with the real kubectl, wait for what the
// experiment needs, read the topology as the API allocated it, run the steps
// under their time limits, read the versions the cluster reports, check
// between steps that nothing died, froze or restarted, and print exactly this
// as a plan for --dry-run. The drivers differ only below: how nodes come to
// exist, how a command runs on one, and how kubectl reaches their API.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Experiment, StepDef, Topology, TopologyView } from '../../experiment/types.ts';
import type { StepSnapshot } from '../../evidence/schema.ts';
import type { RunEnvironment, RunIdentity } from '../../i18n/run-environment.ts';
import type { StandInDecision } from '../../evidence/schema.ts';
import { text } from '../machine/process.ts';
import { agreedValue, parseKubectlVersion, parseProxyMode } from '../kubectl/api-output.ts';
import { watchingAgain } from '../kubectl/topology.ts';
import * as k from '../kubectl/commands.ts';
import { declaredObjects, type DeclaredObjects } from '../kubectl/manifest-objects.ts';
import type { DriverRun } from '../provider/driver-run.ts';
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
import { clusterProblems } from './health.ts';
import { DEFAULT_API_TIMEOUTS, KubeIo, KUBE_PROXY_MODE, probeOf, type ApiTimeouts } from './kube-io.ts';
import { clusterPlan, type ClusterPlan } from './plan.ts';
import { clearEarlierRun } from './earlier-run.ts';
import { applyManifests, awaitRulesSettled, readWhenReady, type ClusterReading } from './readiness.ts';
import { deletePod, execStep, recreatePod, type ClientProbe } from './steps.ts';

export type { ApiTimeouts };

export class Cluster {
  readonly experiment: Experiment;
  private readonly driver: DriverRun;
  private readonly articleDir: string;
  private readonly io: KubeIo;
  private objects: DeclaredObjects | null = null;
  private reading: ClusterReading | null = null;
  /** Pods a step deleted on purpose and has not created again: the health check does not miss them. */
  private readonly deleted = new Set<string>();

  constructor(driver: DriverRun, experiment: Experiment, options: { articleDir: string; timeouts?: Partial<ApiTimeouts> }) {
    this.driver = driver;
    this.experiment = experiment;
    this.articleDir = options.articleDir;
    this.io = new KubeIo(driver.provider, driver.access, { ...DEFAULT_API_TIMEOUTS, ...options.timeouts });
  }

  get provider() {
    return this.driver.provider;
  }

  /** The driver's description of the run, with what its stand-in decided when one ran (asked before down()). */
  async describe(run: Omit<RunIdentity, 'nodes'>, ctx: ProviderContext): Promise<RunEnvironment & { standIn?: StandInDecision[] }> {
    const environment = this.driver.describe({ ...run, nodes: this.experiment.cluster.nodes.length });
    const standIn = (await this.driver.standIn?.(ctx)) ?? [];
    return standIn.length > 0 ? { ...environment, standIn } : environment;
  }

  /** The manifests' names: which Pods to wait for, which Pods and Services to read back. */
  declared(): DeclaredObjects {
    if (this.objects !== null) return this.objects;
    const files = this.experiment.manifests.map((m) => {
      const path = resolve(this.articleDir, m);
      try {
        return { file: m, text: readFileSync(path, 'utf8') };
      } catch (error) {
        throw new DriverError(`article.ts experiment.manifests: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    });
    try {
      this.objects = declaredObjects(files);
    } catch (error) {
      throw new DriverError((error as Error).message);
    }
    return this.objects;
  }

  /** Nodes up (the provider), manifests applied, every declared Pod Ready and kube-proxy synced; returns what the API allocated. */
  async up(ctx: ProviderContext): Promise<Topology> {
    const objects = this.declared();
    const provided = await this.provider.up(ctx);
    if (this.provider.reuses) await clearEarlierRun(this.io, this.experiment, objects, (m) => this.manifestFile(m), ctx);
    await applyManifests(this.io, this.experiment, (m) => this.manifestFile(m), ctx);
    this.reading = await readWhenReady(this.io, this.experiment, objects, provided, ctx);
    return this.reading.topology;
  }

  private manifestFile(manifest: string): string {
    return this.driver.access.manifestFile?.(manifest) ?? resolve(this.articleDir, manifest);
  }

  private requireReading(): ClusterReading {
    if (this.reading === null) throw new DriverError('the cluster has not been read yet: up() has not finished');
    return this.reading;
  }

  /** Versions as the tools report them: the provider's own, the driver's from the API's nodes, the API server's and kubectl's, kube-proxy's mode from kube-proxy. */
  async versions(ctx: ProviderContext): Promise<Record<string, string>> {
    const reading = this.requireReading();
    const versions = { ...(await this.provider.facts(ctx)), ...this.driver.apiFacts?.(reading.nodes) };
    const t = this.driver.access.target;
    const kube = parseKubectlVersion(
      text((await this.io.kubectl(k.kubectlVersion(t), this.io.timeouts.quickMs, 'read the kubectl and Kubernetes versions', ctx)).stdout),
    );
    versions.kubectl = kube.client;
    if (kube.server) versions.kubernetes = kube.server;
    // kube-proxy's own answer on every node (its metrics server's /proxyMode), once when all agree; unknown without the nodes.
    if (this.provider.nodesRefused) return versions;
    const modes: [string, string][] = [];
    for (const node of this.experiment.cluster.nodes) {
      const run = await this.io.onNode(node.name, probeOf(KUBE_PROXY_MODE), this.io.timeouts.quickMs, ctx);
      if (run.exitCode !== 0) throw new DriverError(`could not read kube-proxy's mode on ${node.name}: curl ${KUBE_PROXY_MODE} exited ${run.exitCode}`);
      modes.push([node.name, parseProxyMode(text(run.stdout), `${node.name}: /proxyMode`)]);
    }
    versions['kube-proxy-mode'] = agreedValue(modes);
    return versions;
  }

  /** Runs one step under its time limit; what it printed, byte for byte, is the snapshot. */
  async runStep(step: StepDef, view: TopologyView, ctx: ProviderContext): Promise<StepSnapshot> {
    const topology = this.requireReading().topology;
    if (step.kind === 'exec') return execStep(this.io, step, view, topology, ctx);
    // A pod deleted or created again on purpose: the health check between steps does not miss it.
    this.deleted.add(`${step.namespace}/${step.pod}`);
    const rerun: ClientProbe = async (id, probeCtx) => {
      const probe = this.experiment.steps.find((s) => s.id === id);
      if (probe?.kind !== 'exec') throw new DriverError(`step ${step.id}: settleClient.step "${id}" is not an exec step of the experiment`);
      // The client's step as it ran, with a poll's time limit: a probe that hangs is "not yet".
      const snapshot = await execStep(this.io, { ...probe, timeoutMs: this.io.timeouts.quickMs, onTimeout: 'record' }, view, topology, probeCtx);
      return { command: snapshot.command, exitCode: snapshot.exitCode, stdout: snapshot.stdout, stderr: snapshot.stderr };
    };
    const snapshot =
      step.kind === 'delete-pod'
        ? await deletePod(this.io, step, topology, this.experiment.client, rerun, ctx)
        : await recreatePod(this.io, step, this.manifestFile(step.manifest), rerun, ctx);
    // The client saw the change as soon as it showed; the steps after it see the rules settled.
    if ('settleClient' in step) {
      const pods = await awaitRulesSettled(this.io, this.experiment, this.declared(), ctx);
      if (step.kind === 'recreate-pod') {
        // Created again: from here on the health check watches the new pod as it watches every other.
        const key = `${step.namespace}/${step.pod}`;
        const reading = this.requireReading();
        const watched = watchingAgain(reading.pods, pods, key);
        if (watched === null) throw new DriverError(`step ${step.id}: pod ${key} is not Ready once the rules settled: this run is no measurement`);
        this.reading = { ...reading, pods: watched };
        this.deleted.delete(key);
      }
    }
    return snapshot;
  }

  /** A DriverError naming what broke, unless every component answers and every Pod is as it was read. */
  async checkHealthy(ctx: ProviderContext, when: string): Promise<void> {
    const problems = await clusterProblems(this.io, this.experiment, this.requireReading().pods, this.deleted, ctx);
    if (problems.length > 0) throw new DriverError(`the cluster broke ${when} (${problems.join('; ')}): this run is no measurement`);
  }

  /** Exactly what up(), the steps and down() run, in order. */
  plan(view: TopologyView): ClusterPlan {
    return clusterPlan(this.experiment, this.declared(), this.provider, this.driver.access, (m) => this.manifestFile(m), view);
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    await this.provider.down(ctx);
  }
}
