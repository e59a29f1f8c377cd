// The facts every run has, whatever the article declares: how each step ran,
// and what run.yaml records of the cluster (nodes, pods, Services, versions).
// The project derives them once for every article; an article that declares
// one of these ids itself is refused, never silently preferred.
import { shellCommand } from './shell-quote.ts';
import { fromRun, fromStep } from './fact-kit.ts';
import type { FactDef, FactValue } from './facts.ts';
import type { RunSnapshot, StepSnapshot } from './schema.ts';
import { durationSeconds } from './extract/duration.ts';
import { node, nodeIP, nodePort, pod, runDate, service, version } from './extract/run.ts';
import { EvidenceError } from './errors.ts';
import { LANGS } from './template.ts';

const runFact = (id: string, derive: (run: RunSnapshot) => string | FactValue): FactDef => ({ id, ...fromRun(derive) });
const stepFact = (id: string, step: string, derive: (step: StepSnapshot) => string | FactValue): FactDef => ({ id, ...fromStep(step, derive) });

/** The version facts only one driver records: absent from the other's runs. */
const DRIVER_TOOLS: Readonly<Record<string, string>> = { kind: 'kind', docker: 'kind', iptables: 'lab', conntrack: 'lab', nginx: 'lab', curl: 'lab' };

/** What run.yaml records of the cluster: every node, pod and Service by its name, the cluster, the versions. */
function clusterFacts(run: RunSnapshot): FactDef[] {
  return [
    ...run.nodes.flatMap((n) => [
      runFact(`node.${n.name}.ip`, (r) => nodeIP(r, n.name)),
      runFact(`node.${n.name}.name`, (r) => node(r, n.name).k8sName),
      runFact(`node.${n.name}.podCIDR`, (r) => node(r, n.name).podCIDR),
    ]),
    ...run.pods.flatMap((p) => [
      runFact(`pod.${p.name}.ip`, (r) => pod(r, p.name).ip),
      runFact(`pod.${p.name}.node`, (r) => pod(r, p.name).node),
      runFact(`pod.${p.name}.image`, (r) => pod(r, p.name).image),
    ]),
    ...run.services.flatMap((s) => [
      runFact(`service.${s.name}.type`, (r) => service(r, s.name).type),
      runFact(`service.${s.name}.clusterIP`, (r) => service(r, s.name).clusterIP),
      // A ClusterIP Service has no external policy and no NodePort: "none", as run.yaml's null says.
      runFact(`service.${s.name}.externalTrafficPolicy`, (r) => service(r, s.name).externalTrafficPolicy ?? 'none'),
      ...(s.internalTrafficPolicy === undefined
        ? []
        : [runFact(`service.${s.name}.internalTrafficPolicy`, (r) => service(r, s.name).internalTrafficPolicy ?? 'none')]),
      runFact(`service.${s.name}.nodePort`, (r) => nodePort(r, s.name)),
      // Only LoadBalancer + Local gets a health-check port: "none" is what run.yaml says of the others.
      runFact(`service.${s.name}.healthCheckNodePort`, (r) => String(service(r, s.name).healthCheckNodePort ?? 'none')),
    ]),
    runFact('cluster.name', (r) => r.cluster.name),
    runFact('cluster.nodeCount', (r) => String(r.nodes.length)),
    runFact('cluster.podSubnet', (r) => r.cluster.podSubnet),
    runFact('cluster.serviceSubnet', (r) => r.cluster.serviceSubnet),
    runFact('cluster.kubeProxyMode', (r) => r.cluster.kubeProxyMode),
    runFact('run.seconds', (r) => durationSeconds(r.durationMs)),
    runFact('version.os', (r) => `${r.host.os} ${r.host.arch}`),
    // kube-proxy's own answer on /proxyMode, as the lab records it (kind records the ConfigMap's).
    ...(run.versions['kube-proxy-mode'] === undefined ? [] : [runFact('run.kubeProxyMode', (r) => version(r, 'kube-proxy-mode'))]),
    // version.kernel is the host's (below), which the lab also records among its versions.
    ...Object.keys(run.versions)
      .filter((tool) => tool !== 'kernel')
      .map((tool) => runFact(`version.${tool}`, (r) => version(r, tool))),
  ];
}

/** Why a run has no `version.<tool>`, when only the other driver records it. */
export function unrecordedVersion(id: string): string | undefined {
  const tool = /^version\.(.+)$/.exec(id)?.[1];
  const driver = tool === undefined ? undefined : DRIVER_TOOLS[tool];
  return driver === undefined ? undefined : `only the ${driver} driver records versions.${tool}`;
}

/** Every fact the project derives from a run, for every article. */
export function runFacts(run: RunSnapshot): FactDef[] {
  return [
    ...clusterFacts(run),
    ...run.steps.flatMap((step) => [
      stepFact(`${step}.rc`, step, (s) => String(s.exitCode)),
      stepFact(`${step}.seconds`, step, (s) => durationSeconds(s.durationMs)),
      stepFact(`${step}.node`, step, (s) => s.node),
      stepFact(`${step}.argv`, step, (s) => shellCommand(s.argv)),
      stepFact(`${step}.command`, step, (s) => shellCommand(s.command)),
      stepFact(`${step}.startedAt`, step, (s) => s.startedAt),
    ]),
    runFact('run.id', (run) => run.runId),
    runFact('run.driver', (run) => run.driver),
    runFact('run.startedAt', (run) => run.startedAt),
    runFact('run.finishedAt', (run) => run.finishedAt),
    // What every article's run badge binds: the day of the run, and Kubernetes' version (below, with every tool's) or else the kernel's.
    runFact('run.date', (run) => runDate(run)),
    runFact('version.kernel', (run) => run.host.kernel),
    // The driver's words about the run, in each language: a page binds its reader's.
    ...LANGS.flatMap((lang) => [
      runFact(`run.environment.summary.${lang}`, (r) => r.environment.summary[lang]),
      runFact(`run.environment.standsFor.${lang}`, (r) => r.environment.standsFor[lang]),
      ...run.environment.limits.map((_, i) => runFact(`run.environment.limit.${i + 1}.${lang}`, (r) => r.environment.limits[i]?.[lang] ?? '')),
    ]),
    // What a stand-in decided or read, one row each (absent when nothing stood in).
    ...(run.environment.standIn ?? []).flatMap((decision, i) => {
      const row = (r: RunSnapshot) => r.environment.standIn?.[i];
      return [
        runFact(`run.standIn.${i + 1}.field`, (r) => row(r)?.field ?? ''),
        runFact(`run.standIn.${i + 1}.value`, (r) => row(r)?.value ?? ''),
        runFact(`run.standIn.${i + 1}.source`, (r) => row(r)?.source ?? ''),
        // A value the stand-in chose has no source to name.
        ...(decision.from === undefined ? [] : [runFact(`run.standIn.${i + 1}.from`, (r) => row(r)?.from ?? '')]),
        runFact(`run.standIn.${i + 1}.nodes`, (r) => row(r)?.nodes.join(', ') ?? ''),
        ...LANGS.map((lang) => runFact(`run.standIn.${i + 1}.${lang}`, (r) => row(r)?.[lang] ?? '')),
      ];
    }),
    runFact('run.host', (run) => `${run.host.os} ${run.host.arch}, kernel ${run.host.kernel}`),
    ...Object.keys(run.versions).map((tool) => runFact(`run.version.${tool}`, (r) => r.versions[tool] ?? '')),
  ];
}

/** What every step's run facts are (runFacts): the suffix after `<step>.`, and what it is. */
const STEP_FACTS: Readonly<Record<string, string>> = {
  rc: 'exit code',
  seconds: 'duration',
  node: 'node',
  argv: 'argv',
  command: 'command',
  startedAt: 'start time',
};
/** Run facts whose ids do not depend on the run, and the prefixes whose ids do (tool versions, the driver's words). */
const FIXED_RUN_FACTS = [
  'cluster.name',
  'cluster.nodeCount',
  'cluster.podSubnet',
  'cluster.serviceSubnet',
  'cluster.kubeProxyMode',
  'run.seconds',
  'run.id',
  'run.driver',
  'run.startedAt',
  'run.finishedAt',
  'run.date',
  'run.host',
  'run.kubeProxyMode',
  'version.os',
  'version.kernel',
];
const RUN_FACT_PREFIXES = ['version.', 'run.version.', 'run.environment.', 'run.standIn.'];

/**
 * The facts of `ids` every run of this definition will have already (runFacts), each with what it is: known
 * from the definition alone (its steps and nodes), so a draft build or the type check refuses them before a
 * capture would. The Pods' and Services' (from the manifests) are left to withRunFacts. Pure.
 */
export function runFactCollisions(ids: readonly string[], steps: readonly string[], nodes: readonly string[]): Map<string, string> {
  const known = new Map<string, string>();
  for (const step of steps) for (const [suffix, what] of Object.entries(STEP_FACTS)) known.set(`${step}.${suffix}`, `step "${step}"'s ${what}`);
  for (const node of nodes) for (const field of ['ip', 'name', 'podCIDR']) known.set(`node.${node}.${field}`, `node ${node}'s ${field}`);
  for (const id of FIXED_RUN_FACTS) known.set(id, 'from run.yaml');
  const found = new Map<string, string>();
  for (const id of ids) {
    const what = known.get(id) ?? (RUN_FACT_PREFIXES.some((p) => id.startsWith(p)) ? 'from run.yaml' : undefined);
    if (what !== undefined) found.set(id, what);
  }
  return found;
}

/** An article's own facts and the run's: what the build derives. An id both declare is refused, in `file`'s words. */
export function withRunFacts(defs: FactDef[], run: RunSnapshot, file = 'article.ts'): FactDef[] {
  const project = runFacts(run);
  const ids = new Set(project.map((d) => d.id));
  const taken = defs.filter((d) => ids.has(d.id)).map((d) => d.id);
  if (taken.length)
    throw new EvidenceError(
      taken.map((id) => `${file}: fact "${id}": every run has it from run.yaml (src/evidence/run-facts.ts); remove it from the article's facts`),
    );
  return [...defs, ...project];
}
