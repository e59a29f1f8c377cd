// A verify run: an article's experiment on a cluster the reader already has,
// judged as a capture judges its run. First, reading only: the kubeconfig, its
// context, the cluster's answer, its nodes, and that the run's namespace is
// free; a cluster refused here has had nothing created in it. Then the
// experiment placed in the run's namespace, run through the same runner as a
// capture (the existing-cluster driver below it), and its claims judged on the
// run's own snapshots. Nothing goes into content/; the run's folder is the
// reader's.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Article } from '../../authoring/load.ts';
import { evidenceFromDisk } from '../../evidence/runs/from-disk.ts';
import { EvidenceError } from '../../evidence/errors.ts';
import { defaultVariant, experimentForVariant } from '../../experiment/variants.ts';
import { minorOf } from '../../experiment/kubernetes.ts';
import { createExistingRun, chooseNodes, nodesFlag, parseNodesFlag, verifyNamespace, DEFAULT_AGENT_IMAGE, type ClusterNode } from '../existing/index.ts';
import { readImagesRecord } from '../kind/image/local-images.ts';
import { ApiRefused } from '../kubernetes/readiness.ts';
import { kubectl, type KubectlTarget } from '../kubectl/commands.ts';
import { firstLine, runProcess, text } from '../machine/process.ts';
import { gitInfo, hostInfo } from '../machine/host.ts';
import { readFileSync } from 'node:fs';
import { placeExperiment, placeManifest } from './placement.ts';
import { runCapture, type CaptureReporter } from './runner.ts';
import { claimVerdicts, formatVerdicts, tally, type ClaimVerdict } from './verify-report.ts';

/** The cluster was refused before anything was created in it: one line, exit 2. */
export class VerifyRefused extends Error {
  override name = 'VerifyRefused';
}

const READ_MS = 20_000;
const REQUEST_TIMEOUT = '--request-timeout=15s';

export interface ClusterReading {
  /** As the reader gave it (relative to the working folder, or absolute). */
  kubeconfig: string;
  context: string;
  /** The API server's version ("v1.37.2"). */
  server: string;
  nodes: ClusterNode[];
  /** Each node's `kubernetes.io/hostname` label: what a manifest's node selector names it by. */
  hostnames: Record<string, string>;
  /** kube-proxy's configuration as its kubeadm ConfigMap declares it (mode, the cluster's pod range); null where the cluster has none. */
  proxyConfig: KubeProxyConfig | null;
  /** The cluster's IPv4 Service range, from its ServiceCIDR `kubernetes` (Kubernetes 1.33 and later); null where it has none. */
  serviceCIDR: string | null;
}

async function read(argv: string[], signal: AbortSignal) {
  const run = await runProcess(argv, { timeoutMs: READ_MS, signal });
  if (run.missing) throw new VerifyRefused('kubectl is not installed (no `kubectl` on PATH): https://kubernetes.io/docs/tasks/tools/');
  if (run.timedOut) throw new VerifyRefused(`\`${argv.slice(0, 6).join(' ')} …\` did not answer within ${READ_MS / 1000} s`);
  return { code: run.exitCode, stdout: text(run.stdout), stderr: firstLine(text(run.stderr)) };
}

/** The kubeconfig, its context and the cluster, read and never written: every refusal is one line. */
export async function readCluster(input: { kubeconfig: string; context: string | null }, signal: AbortSignal): Promise<ClusterReading> {
  // As given: the run's argvs carry it so, relative to where verify runs, and name no other path of this machine.
  const kubeconfig = input.kubeconfig;
  if (!existsSync(resolve(kubeconfig))) throw new VerifyRefused(`--kubeconfig ${input.kubeconfig}: no such file`);
  const view = await read(['kubectl', 'config', 'view', '--kubeconfig', kubeconfig, '-o', 'json'], signal);
  if (view.code !== 0) throw new VerifyRefused(`--kubeconfig ${input.kubeconfig}: kubectl cannot read it (${view.stderr || `exit ${view.code}`})`);
  const config = JSON.parse(view.stdout) as { contexts?: Array<{ name?: string }> | null; 'current-context'?: string };
  const contexts = (config.contexts ?? []).map((c) => c.name ?? '').filter(Boolean);
  const context = input.context ?? (config['current-context'] || null);
  if (context === null)
    throw new VerifyRefused(`--kubeconfig ${input.kubeconfig}: no current context; name one with --context (it has: ${contexts.join(', ') || 'none'})`);
  if (!contexts.includes(context))
    throw new VerifyRefused(`--context ${context}: ${input.kubeconfig} has no such context (it has: ${contexts.join(', ') || 'none'})`);
  const target: KubectlTarget = { kubeconfig, runner: ['kubectl', '--context', context] };
  const version = await read(kubectl(target, 'version', '-o', 'json', REQUEST_TIMEOUT), signal);
  const server = version.code === 0 ? ((JSON.parse(version.stdout) as { serverVersion?: { gitVersion?: string } }).serverVersion?.gitVersion ?? null) : null;
  if (server === null)
    throw new VerifyRefused(`context ${context}: the cluster does not answer (${version.stderr || `kubectl version exited ${version.code}`})`);
  const nodes = await read(kubectl(target, 'get', 'nodes', '-o', 'json', REQUEST_TIMEOUT), signal);
  if (nodes.code !== 0) throw new VerifyRefused(`context ${context}: cannot list the nodes (${nodes.stderr})`);
  const items = (JSON.parse(nodes.stdout) as { items?: NodeItem[] }).items ?? [];
  const proxy = await read(
    kubectl(target, 'get', 'configmap', 'kube-proxy', '--namespace', 'kube-system', '--ignore-not-found', '-o', 'json', REQUEST_TIMEOUT),
    signal,
  );
  const services = await read(kubectl(target, 'get', 'servicecidrs', 'kubernetes', '--ignore-not-found', '-o', 'json', REQUEST_TIMEOUT), signal);
  return {
    kubeconfig,
    context,
    server,
    nodes: items.map(clusterNode),
    hostnames: Object.fromEntries(items.map((i) => [i.metadata?.name ?? '', i.metadata?.labels?.['kubernetes.io/hostname'] ?? i.metadata?.name ?? ''])),
    proxyConfig: proxy.code === 0 && proxy.stdout.trim() ? kubeProxyConfig(proxy.stdout) : null,
    serviceCIDR: services.code === 0 && services.stdout.trim() ? serviceRange(services.stdout) : null,
  };
}

interface NodeItem {
  metadata?: { name?: string; labels?: Record<string, string> };
  status?: { conditions?: Array<{ type?: string; status?: string }> };
}

const clusterNode = (item: NodeItem): ClusterNode => ({
  k8sName: item.metadata?.name ?? '',
  role: item.metadata?.labels && 'node-role.kubernetes.io/control-plane' in item.metadata.labels ? 'control-plane' : 'worker',
  ready: item.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
});

export interface KubeProxyConfig {
  /** `mode: ""` is iptables, kube-proxy's default on Linux; null when the file names none. */
  mode: string | null;
  /** The cluster's pod range (`clusterCIDR`), what kube-proxy tells pod traffic by; null when it names none. */
  clusterCIDR: string | null;
}

/** kube-proxy's configuration file in kubeadm's ConfigMap (`kube-system/kube-proxy`, `config.conf`). Pure. */
export function kubeProxyConfig(configMapJson: string): KubeProxyConfig | null {
  const conf = (JSON.parse(configMapJson) as { data?: Record<string, string> }).data?.['config.conf'];
  if (conf === undefined) return null;
  const field = (name: string) => new RegExp(`^${name}:\\s*"?([^"\\s]*)"?\\s*$`, 'm').exec(conf)?.[1];
  const mode = field('mode');
  const cidr = field('clusterCIDR');
  return { mode: mode === undefined ? null : mode || 'iptables', clusterCIDR: cidr ? firstIPv4(cidr) : null };
}

/** The IPv4 Service range of a ServiceCIDR (`kubectl get servicecidrs kubernetes -o json`). Pure. */
export const serviceRange = (json: string): string | null => firstIPv4(((JSON.parse(json) as { spec?: { cidrs?: string[] } }).spec?.cidrs ?? []).join(','));

/** The IPv4 range of a comma-separated list (a dual-stack cluster lists both; the experiments are IPv4). Pure. */
export const firstIPv4 = (list: string): string | null =>
  list
    .split(',')
    .map((c) => c.trim())
    .find((c) => /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(c)) ?? null;

export interface VerifyInput {
  article: Article;
  slug: string;
  articleDir: string;
  root: string;
  reading: ClusterReading;
  runId: string;
  /** `--nodes` as given; null: chosen. */
  nodes: string | null;
  variant: string | null;
  /** The run's own folder: its raw output (run/), the manifests it applied (manifests/) and its report. */
  out: string;
  agentImage: string | null;
  standInImages: boolean;
  keep: boolean;
  signal: AbortSignal;
  reporter: CaptureReporter;
  log: (line: string) => void;
}

export interface VerifyOutcome {
  variant: string | null;
  nodes: Record<string, string>;
  namespace: string;
  verdicts: ClaimVerdict[];
  report: string[];
  /** Where the run's raw output is. */
  runDir: string;
  seconds: number;
}

/** What verify will do, decided from the reading alone; a refusal is one line and nothing was created. */
export function planVerify(input: Pick<VerifyInput, 'article' | 'reading' | 'nodes' | 'variant' | 'runId'>) {
  const experiment = input.article.experiment;
  if (!experiment) throw new VerifyRefused(`${input.article.slug ?? 'the article'} declares no experiment: there is nothing to run`);
  const variants = experiment.variants?.values ?? [];
  const mode = input.reading.proxyConfig?.mode ?? null;
  const variant = input.variant ?? (mode !== null && (variants as string[]).includes(mode) ? mode : defaultVariant(experiment));
  if (input.variant !== null && !(variants as string[]).includes(input.variant))
    throw new VerifyRefused(`--variant ${input.variant}: the experiment is measured in ${variants.join(', ') || 'no variants'}`);
  const given = input.nodes === null ? null : parseNodesFlag(input.nodes, experiment.cluster.nodes);
  if (given !== null && 'problem' in given) throw new VerifyRefused(given.problem as string);
  const choice = chooseNodes(experiment.cluster.nodes, input.reading.nodes, given as Record<string, string> | null);
  if ('problem' in choice) throw new VerifyRefused(given === null ? `context ${input.reading.context}: ${choice.problem}` : choice.problem);
  // The run records the cluster's own pod and Service ranges, never those the article's kind cluster declared.
  const { context } = input.reading;
  const podSubnet = input.reading.proxyConfig?.clusterCIDR;
  if (!podSubnet)
    throw new VerifyRefused(`context ${context}: kube-system/kube-proxy names no IPv4 clusterCIDR; the experiment's claims read the cluster's pod range`);
  const serviceSubnet = input.reading.serviceCIDR;
  if (!serviceSubnet)
    throw new VerifyRefused(
      `context ${context}: no ServiceCIDR "kubernetes" with an IPv4 range (Kubernetes 1.33 and later have one); the run records the cluster's Service range`,
    );
  const forVariant = experimentForVariant(experiment, variant);
  return {
    experiment: { ...forVariant, cluster: { ...forVariant.cluster, podSubnet, serviceSubnet } },
    variant,
    nodes: choice.nodes,
    chosen: choice.chosen,
    namespace: verifyNamespace(input.runId),
  };
}

/** Refuses a namespace that exists: verify never reuses one, whoever made it. */
export async function checkNamespaceFree(reading: ClusterReading, namespace: string, signal: AbortSignal): Promise<void> {
  const target: KubectlTarget = { kubeconfig: reading.kubeconfig, runner: ['kubectl', '--context', reading.context] };
  const found = await read(kubectl(target, 'get', 'namespace', namespace, '--ignore-not-found', '-o', 'name', REQUEST_TIMEOUT), signal);
  if (found.code !== 0) throw new VerifyRefused(`context ${reading.context}: cannot read namespaces (${found.stderr})`);
  if (found.stdout.trim() !== '') throw new VerifyRefused(`namespace ${namespace} exists: verify creates its own and never reuses one`);
}

export async function verifyArticle(input: VerifyInput): Promise<VerifyOutcome> {
  const started = performance.now();
  const plan = planVerify(input);
  const { article, reading } = input;
  await checkNamespaceFree(reading, plan.namespace, input.signal);
  // The manifests as the run applies them, kept in the run's folder: in its namespace, on its nodes.
  const images = new Map<string, string>();
  if (input.standInImages) {
    const built = readImagesRecord()?.backends ?? {};
    for (const sub of plan.experiment.imageSubstitutes ?? []) {
      const local = built[sub.recipe]?.name;
      if (local === undefined)
        throw new VerifyRefused(`--stand-in-images: ${sub.image}'s stand-in (${sub.recipe}) is not built here; npm run kind:prepare builds it`);
      images.set(sub.image, local);
    }
  }
  const placement = {
    namespace: plan.namespace,
    nodes: Object.fromEntries(Object.entries(plan.nodes).map(([node, k8sName]) => [node, { k8sName, hostname: reading.hostnames[k8sName] ?? k8sName }])),
    images,
  };
  for (const manifest of plan.experiment.manifests) {
    const placed = placeManifest(readFileSync(join(input.articleDir, manifest), 'utf8'), manifest, plan.experiment.cluster.name, placement);
    if ('problem' in placed) throw new VerifyRefused(placed.problem);
    const file = join(input.out, manifest);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, placed.text);
  }
  // Placed, the experiment's cluster is the reader's, named as their context names it.
  const placed = placeExperiment(plan.experiment, plan.namespace);
  const experiment = { ...placed, cluster: { ...placed.cluster, name: reading.context } };
  const driver = createExistingRun({
    experiment,
    runId: input.runId,
    kubeconfig: reading.kubeconfig,
    context: reading.context,
    namespace: plan.namespace,
    nodes: plan.nodes,
    agentImage: input.agentImage ?? DEFAULT_AGENT_IMAGE,
    keep: input.keep,
    cwd: process.cwd(),
    env: process.env,
  });
  await driver.provider.preflight();
  const runDir = join(input.out, 'run');
  const seconds = () => (performance.now() - started) / 1000;
  // As the run recorded them (kube-proxy's own answer, the CNI configuration a node holds) once it ran; as read before, if it never did.
  const header = (verdicts: ClaimVerdict[], versions: Readonly<Record<string, string>> = {}) => {
    const mode = versions['kube-proxy-mode'] ?? plan.variant;
    const cni = versions['cni-config'];
    const about = [`Kubernetes ${versions['kubernetes'] ?? reading.server}`, ...(mode ? [`kube-proxy ${mode}`] : []), ...(cni ? [`CNI ${cni}`] : [])];
    return `${input.slug} on context ${reading.context} (${about.join(', ')}): ${tally(verdicts)}`;
  };
  const outcome = (verdicts: ClaimVerdict[], versions?: Readonly<Record<string, string>>): VerifyOutcome => {
    const report = [header(verdicts, versions), ...formatVerdicts(verdicts)];
    writeFileSync(join(input.out, 'report.txt'), `${report.join('\n')}\n`);
    return { variant: plan.variant, nodes: plan.nodes, namespace: plan.namespace, verdicts, report, runDir, seconds: seconds() };
  };
  let versions: Readonly<Record<string, string>>;
  try {
    ({
      run: { versions },
    } = await runCapture({
      experiment,
      driver,
      articleDir: input.out,
      kubernetes: { minor: minorOf(reading.server) ?? reading.server, release: reading.server },
      target: runDir,
      runId: input.runId,
      signal: input.signal,
      reporter: input.reporter,
      git: await gitInfo(input.root),
      host: hostInfo(),
    }));
  } catch (error) {
    // The cluster's admission refused the article's own objects (Pod Security's restricted level, a policy): nothing ran, nothing is judged.
    if (!(error instanceof ApiRefused)) throw error;
    const why = `${error.message}; nothing of the experiment ran`;
    const all = [...article.claimDefs, ...(article.comparisonDefs ?? [])];
    return outcome(all.map((def) => ({ id: def.id, statement: def.statement, verdict: 'not checked', why })));
  }
  let verdicts: ClaimVerdict[];
  try {
    verdicts = judgeVerifyRun(input.slug, runDir, article, plan.variant, driver.provider.nodesRefused ?? null);
  } catch (error) {
    if (!(error instanceof EvidenceError)) throw error;
    throw new Error(`the run's snapshots could not be judged: ${error.problems.join('; ')}`);
  }
  return outcome(verdicts, versions);
}

/**
 * A verify run's verdicts, from its own snapshots in `runDir`. Where the cluster refused the node agents
 * (`nodesRefused`) no step ran: what rests on a step is not checked, what rests on the API's objects alone
 * is, and the steps' measured lines, which only a page shows, are not asked of a run without steps.
 */
export function judgeVerifyRun(slug: string, runDir: string, article: Article, variant: string | null, nodesRefused: string | null): ClaimVerdict[] {
  const defs = nodesRefused === null ? article : { ...article, lines: {} };
  const evidence = evidenceFromDisk(slug, runDir, defs, { variants: false, variant, collectUnfound: true });
  return claimVerdicts(article.claimDefs, article.comparisonDefs ?? [], evidence, variant, nodesRefused);
}

export { nodesFlag };
