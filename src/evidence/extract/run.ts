// Facts about the run itself, read from run.yaml: nodes, pods, Services,
// versions, and when and how the run was made.
import type { RunSnapshot } from '../schema.ts';
import { ExtractError } from '../errors.ts';

type Named = { name: string };

function byName<T extends Named>(items: readonly T[], name: string, what: string): T {
  const item = items.find((i) => i.name === name);
  if (!item) {
    throw new ExtractError(`looked for ${what} "${name}" in run.yaml, found only: ${items.map((i) => i.name).join(', ') || 'none'}`);
  }
  return item;
}

export const node = (run: RunSnapshot, name: string) => byName(run.nodes, name, 'node');
export const pod = (run: RunSnapshot, name: string) => byName(run.pods, name, 'pod');
export const service = (run: RunSnapshot, name: string) => byName(run.services, name, 'service');

export const nodeIP = (run: RunSnapshot, name: string): string => node(run, name).internalIP;
export const podIP = (run: RunSnapshot, name: string): string => pod(run, name).ip;
export const nodePort = (run: RunSnapshot, name: string): string => String(service(run, name).nodePort ?? 'none');
/** A Service as kube-proxy names it in its rules' comments and sets: `<namespace>/<name>`, the namespace the run put it in. */
export const serviceKey = (run: RunSnapshot, name: string): string => `${service(run, name).namespace}/${name}`;

type Pod = RunSnapshot['pods'][number];

/**
 * The pods named `<prefix>…` as the scheduler placed them, checked against the
 * placement an experiment expects: `shape` says how many of them each occupied
 * node holds ([1, 2]: one node with one pod, another with two). One group per
 * entry of `shape`, in its order; each group's pods by name.
 */
export function placement(run: RunSnapshot, prefix: string, shape: readonly number[]): Pod[][] {
  const groups = [
    ...Map.groupBy(
      run.pods.filter((p) => p.name.startsWith(prefix)),
      (p) => p.node,
    ),
  ];
  const left = [...groups];
  const placed = shape.map((size) => {
    const at = left.findIndex(([, pods]) => pods.length === size);
    return at < 0 ? undefined : left.splice(at, 1)[0]![1].toSorted((a, b) => (a.name < b.name ? -1 : 1));
  });
  if (left.length || placed.some((g) => g === undefined)) {
    const found = groups.map(([node, pods]) => `${node}: ${pods.length}`).join(', ') || 'none';
    throw new ExtractError(`expected the ${prefix}… pods placed ${shape.join(' and ')} per node in run.yaml, found ${found}`);
  }
  return placed as Pod[][];
}

/** The Service's healthCheckNodePort; an error when it has none (only LoadBalancer + Local gets one). */
export function healthCheckNodePort(run: RunSnapshot, name: string): string {
  const port = service(run, name).healthCheckNodePort;
  if (port === null) throw new ExtractError(`service "${name}" has no healthCheckNodePort in run.yaml (only LoadBalancer + Local gets one)`);
  return String(port);
}

/** A tool's version as run.yaml recorded it. */
export function version(run: RunSnapshot, tool: string): string {
  const value = run.versions[tool];
  if (value === undefined) {
    throw new ExtractError(`looked for versions.${tool} in run.yaml (driver ${run.driver}), found only: ${Object.keys(run.versions).join(', ') || 'none'}`);
  }
  return value;
}

/** The calendar date the run started, as its timestamp states it (YYYY-MM-DD, no time-zone conversion). */
export function runDate(run: RunSnapshot): string {
  return run.startedAt.slice(0, 10);
}
