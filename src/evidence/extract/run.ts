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
export const nodePort = (run: RunSnapshot, name: string): string => String(service(run, name).nodePort);

/** The Service's healthCheckNodePort; an error when it has none (only LoadBalancer + Local gets one). */
export function healthCheckNodePort(run: RunSnapshot, name: string): string {
  const port = service(run, name).healthCheckNodePort;
  if (port === null) throw new ExtractError(`service "${name}" has no healthCheckNodePort in run.yaml (only LoadBalancer + Local gets one)`);
  return String(port);
}

/** The first host address of a CIDR: 10.244.2.0/24 -> 10.244.2.1 (where ptp puts the pod gateway). */
export function firstAddress(cidr: string): string {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const prefix = m ? Number(m[5]) : NaN;
  if (!m || octets.some((o) => o > 255) || prefix > 30) {
    throw new ExtractError(`expected an IPv4 CIDR with room for hosts (prefix <= 30), got ${JSON.stringify(cidr)}`);
  }
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  const first = Math.floor(address / size) * size + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(first / 2 ** shift) % 256).join('.');
}

/** The pod gateway on a node: the first address of its podCIDR. */
export const podGateway = (run: RunSnapshot, name: string): string => firstAddress(node(run, name).podCIDR);

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
