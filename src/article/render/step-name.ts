// A step named by what ran where, read from its snapshot and the run's topology:
// "curl on control-plane → s-local’s NodePort on worker2", "iptables-save -t filter
// on worker2". The experiment's own title for a step is English only; this name is
// built from the same facts in each language (src/i18n/step-names.ts words it). Pure.
import type { RunSnapshot, StepSnapshot } from '../../evidence/schema.ts';

/** Where a request went, by the roles its address and port play in the run. */
export type StepTarget =
  | { kind: 'nodePort' | 'healthCheck'; service: string; nodes: string[] }
  | { kind: 'nodes'; nodes: string[] }
  | { kind: 'pod'; pod: string }
  | { kind: 'clusterIP'; service: string };

export type StepName =
  /** A request, named by its target (the command itself is long: flags, addresses, ports). */
  | { kind: 'request'; program: string; node: string; target: StepTarget; pod?: string }
  /** A short command, named by itself (bound: the step's `.command` fact). */
  | { kind: 'command'; node: string }
  /** A long command without a known target, named by its words before the first flag. */
  | { kind: 'head'; node: string; head: string };

/** Longer than this, a command does not make a heading: about a phone's line of code. */
const SHORT_COMMAND = 44;

/** The hosts and port of a URL, a curl glob's host list (`{a,b}`) included. */
function urlParts(arg: string): { hosts: string[]; port: number | undefined } | undefined {
  const m = /^https?:\/\/(\{[^}]*\}|[^/:?#]+)(?::(\d+))?/.exec(arg);
  if (!m) return undefined;
  const hosts = m[1]!.startsWith('{') ? m[1]!.slice(1, -1).split(',') : [m[1]!];
  return { hosts, port: m[2] === undefined ? undefined : Number(m[2]) };
}

/** The roles of a request's address and port in the run: a Service's NodePort or health-check port on nodes, a pod, nodes. */
function targetOf(url: { hosts: string[]; port: number | undefined }, run: RunSnapshot): StepTarget | undefined {
  const pod = url.hosts.length === 1 ? run.pods.find((p) => p.ip === url.hosts[0]) : undefined;
  if (pod) return { kind: 'pod', pod: pod.name };
  const byClusterIP = url.hosts.length === 1 ? run.services.find((s) => s.clusterIP === url.hosts[0]) : undefined;
  if (byClusterIP) return { kind: 'clusterIP', service: byClusterIP.name };
  const nodes = url.hosts.map((host) => run.nodes.find((n) => n.internalIP === host)?.name);
  if (nodes.some((n) => n === undefined)) return undefined;
  const known = nodes as string[];
  const byNodePort = run.services.find((s) => s.nodePort === url.port);
  if (byNodePort) return { kind: 'nodePort', service: byNodePort.name, nodes: known };
  const byHealthCheck = run.services.find((s) => s.healthCheckNodePort === url.port);
  if (byHealthCheck) return { kind: 'healthCheck', service: byHealthCheck.name, nodes: known };
  return { kind: 'nodes', nodes: known };
}

export function stepName(step: StepSnapshot, run: RunSnapshot): StepName {
  const url = step.command.map(urlParts).find((u) => u !== undefined);
  const target = url && targetOf(url, run);
  // The pod a request started in is named by its name alone: its namespace is the manifests'.
  const pod = step.pod?.split('/')[1];
  if (target) return { kind: 'request', program: step.command[0]!, node: step.node, target, ...(pod === undefined ? {} : { pod }) };
  if (step.command.join(' ').length <= SHORT_COMMAND) return { kind: 'command', node: step.node };
  const firstFlag = step.command.findIndex((arg, i) => i > 0 && arg.startsWith('-'));
  return { kind: 'head', node: step.node, head: step.command.slice(0, firstFlag < 0 ? undefined : firstFlag).join(' ') };
}
