// Every value article 075 binds, derived from its snapshots (step ids: experiment.ts).
// The pods are named by the API and placed by the scheduler, so facts name them
// by role, read from run.yaml: "lone" is the pod alone on its node, "shared-1"
// and "shared-2" the two that share the other node (by name).
import type { FactDef } from '../../../src/evidence/facts.ts';
import type { RunSnapshot, StepSnapshot } from '../../../src/evidence/schema.ts';
import { declaredFact, healthCheckFacts, optional, outcomeFacts, runFact, stepFact } from '../../../src/evidence/fact-kit.ts';
import { healthCheckNodePort, node, nodeIP, nodePort, service, version } from '../../../src/evidence/extract/run.ts';
import { durationSeconds } from '../../../src/evidence/extract/duration.ts';
import { maxTime } from '../../../src/evidence/extract/curl.ts';
import { binomialExpectation, countWhere, parseAnswers, share } from '../../../src/evidence/extract/answers.ts';
import { ExtractError } from '../../../src/evidence/errors.ts';

export const ROLES = ['lone', 'shared-1', 'shared-2'] as const;
export type Role = (typeof ROLES)[number];
export const POLICIES = ['cluster', 'local'] as const;
export const WORKERS = ['worker', 'worker2'] as const;
/** How many standard deviations a count may stray from its expectation before a claim breaks. */
export const SIGMAS = 4;

const NODES = ['control-plane', 'worker', 'worker2'];

/** The Deployment's pods by role, as the API placed them: one node must hold exactly one, another exactly two. */
export function podsByRole(run: RunSnapshot): Record<Role, RunSnapshot['pods'][number]> {
  const pods = run.pods.filter((p) => p.name.startsWith('web-'));
  const perNode = new Map<string, typeof pods>();
  for (const p of pods) perNode.set(p.node, [...(perNode.get(p.node) ?? []), p]);
  const lone = [...perNode.values()].filter((list) => list.length === 1);
  const shared = [...perNode.values()].filter((list) => list.length === 2);
  if (pods.length !== 3 || lone.length !== 1 || shared.length !== 1) {
    const spread = [...perNode].map(([n, list]) => `${n}: ${list.length}`).join(', ') || 'none';
    throw new ExtractError(`expected the web pods spread two and one over two nodes in run.yaml, got ${spread}`);
  }
  const [a, b] = [...shared[0]!].sort((x, y) => (x.name < y.name ? -1 : 1));
  return { lone: lone[0]![0]!, 'shared-1': a!, 'shared-2': b! };
}

/** Which worker a node address is. */
function workerOf(run: RunSnapshot, ip: string): string {
  const found = run.nodes.find((n) => n.internalIP === ip);
  if (!found) throw new ExtractError(`an answer came by ${ip}, which is no node of run.yaml`);
  return found.name;
}

/** What a role's count should be, and its bound, under a policy (the model the article states). */
export function expectation(step: StepSnapshot, run: RunSnapshot, policy: string, role: Role) {
  const answers = parseAnswers(step.stdout);
  const pods = podsByRole(run);
  if (policy === 'cluster') return binomialExpectation(answers.length, 1 / ROLES.length, SIGMAS);
  const home = pods[role].node;
  const sharing = ROLES.filter((r) => pods[r].node === home).length;
  const entered = answers.filter((a) => a.via !== '' && workerOf(run, a.via) === home).length;
  return binomialExpectation(entered, 1 / sharing, SIGMAS);
}

function spreadFacts(policy: string): FactDef[] {
  const step = `spread-${policy}`;
  const answers = (s: StepSnapshot) => parseAnswers(s.stdout);
  return [
    ...outcomeFacts(step),
    stepFact(`${step}.timeout`, step, (s) => maxTime(s.argv)),
    stepFact(`${step}.requests`, step, (s) => String(answers(s).length)),
    stepFact(`${step}.answered`, step, (s) => String(countWhere(answers(s), 'status', '200'))),
    ...WORKERS.map((w) => stepFact(`${step}.via.${w}`, step, (s, run) => String(countWhere(answers(s), 'via', nodeIP(run, w))))),
    ...ROLES.flatMap((role) => [
      stepFact(`${step}.count.${role}`, step, (s, run) => String(countWhere(answers(s), 'who', podsByRole(run)[role].name))),
      stepFact(`${step}.share.${role}`, step, (s, run) => share(countWhere(answers(s), 'who', podsByRole(run)[role].name), answers(s).length)),
      stepFact(`${step}.expected.${role}`, step, (s, run) => {
        const e = expectation(s, run, policy, role);
        return { value: String(Math.round(e.expected)), raw: String(e.expected) };
      }),
      stepFact(`${step}.bound.${role}`, step, (s, run) => String(expectation(s, run, policy, role).bound)),
      stepFact(`${step}.expectedShare.${role}`, step, (s, run) => share(expectation(s, run, policy, role).expected, answers(s).length)),
      stepFact(`${step}.boundShare.${role}`, step, (s, run) => share(expectation(s, run, policy, role).bound, answers(s).length)),
    ]),
  ];
}

const HERE = '075-local-uneven-weights';

export const facts: FactDef[] = [
  // What the manifests declare: bound as declared values, not measurements.
  declaredFact('declared.web.replicas', HERE, 'manifests/web.yaml', 'Deployment/web', 'spec.replicas'),
  declaredFact('declared.web.maxSkew', HERE, 'manifests/web.yaml', 'Deployment/web', 'spec.template.spec.topologySpreadConstraints.0.maxSkew'),
  declaredFact('declared.web.containerPort', HERE, 'manifests/web.yaml', 'Deployment/web', 'spec.template.spec.containers.0.ports.0.containerPort'),
  ...healthCheckFacts('health-worker'),
  ...healthCheckFacts('health-worker2'),
  ...POLICIES.flatMap(spreadFacts),
  runFact('spread.sigmas', () => String(SIGMAS)),

  ...ROLES.flatMap((role) => [
    runFact(`pod.${role}.name`, (run) => podsByRole(run)[role].name),
    runFact(`pod.${role}.node`, (run) => podsByRole(run)[role].node),
    runFact(`pod.${role}.ip`, (run) => podsByRole(run)[role].ip),
  ]),
  runFact('pod.web.count', (run) => String(run.pods.filter((p) => p.name.startsWith('web-')).length)),
  runFact('pod.web.image', (run) => podsByRole(run).lone.image),
  runFact('spread.loneNode', (run) => podsByRole(run).lone.node),
  runFact('spread.sharedNode', (run) => podsByRole(run)['shared-1'].node),
  ...NODES.flatMap((n) => [
    runFact(`node.${n}.ip`, (run) => nodeIP(run, n)),
    runFact(`node.${n}.name`, (run) => node(run, n).k8sName),
  ]),
  ...['s-cluster', 's-local'].flatMap((s) => [
    runFact(`service.${s}.nodePort`, (run) => nodePort(run, s)),
    runFact(`service.${s}.type`, (run) => service(run, s).type),
    runFact(`service.${s}.externalTrafficPolicy`, (run) => service(run, s).externalTrafficPolicy),
  ]),
  runFact('service.s-local.healthCheckNodePort', (run) => healthCheckNodePort(run, 's-local')),

  runFact('cluster.name', (run) => run.cluster.name),
  runFact('cluster.nodeCount', (run) => String(run.nodes.length)),
  runFact('cluster.kubeProxyMode', (run) => run.cluster.kubeProxyMode),
  runFact('run.seconds', (run) => durationSeconds(run.durationMs)),
  runFact('version.kubectl', (run) => version(run, 'kubectl')),
  optional(runFact('version.curl', (run) => version(run, 'curl')), 'only the lab driver records versions.curl'),
];
