// Addresses and ports the lab hands out where a cluster's components would:
// docker (node IPs), kube-controller-manager (pod CIDRs), host-local IPAM (pod
// IPs) and the API server's allocators (ClusterIPs, NodePorts).

/** A source of uniform integers in [0, bound); crypto.randomInt in the lab, a fixed sequence in tests. */
export type RandomInt = (bound: number) => number;

export function parseIPv4(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) {
    throw new Error(`expected an IPv4 address, got ${JSON.stringify(ip)}`);
  }
  return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

export interface Cidr {
  network: number;
  prefix: number;
  /** Number of addresses, network and broadcast included. */
  size: number;
}

export function parseCidr(cidr: string): Cidr {
  const match = /^([\d.]+)\/(\d{1,2})$/.exec(cidr);
  if (match === null) throw new Error(`expected an IPv4 CIDR like 10.244.0.0/16, got ${JSON.stringify(cidr)}`);
  const prefix = Number(match[2]);
  if (prefix > 32) throw new Error(`expected a prefix length up to 32 in ${JSON.stringify(cidr)}`);
  const size = 2 ** (32 - prefix);
  const address = parseIPv4(match[1] as string);
  if (address % size !== 0) throw new Error(`expected a network address in ${JSON.stringify(cidr)} (host bits set)`);
  return { network: address, prefix, size };
}

/** The n-th /`childPrefix` subnet of `parent` (10.244.0.0/16, 24, 1 -> 10.244.1.0/24). */
export function subnet(parent: string, childPrefix: number, index: number): string {
  const cidr = parseCidr(parent);
  const childSize = 2 ** (32 - childPrefix);
  if (childPrefix < cidr.prefix || (index + 1) * childSize > cidr.size) {
    throw new Error(`${parent} has no subnet /${childPrefix} number ${index}`);
  }
  return `${formatIPv4(cidr.network + index * childSize)}/${childPrefix}`;
}

/** The address `offset` places into a CIDR (10.244.1.0/24, 1 -> 10.244.1.1). */
export function hostAddress(cidr: string, offset: number): string {
  const parsed = parseCidr(cidr);
  if (offset <= 0 || offset >= parsed.size - 1) throw new Error(`${cidr} has no host address at offset ${offset}`);
  return formatIPv4(parsed.network + offset);
}

/**
 * The API server's allocators reserve a lower band for static choices and hand
 * out dynamic values from the upper band first (KEP-3070 / KEP-3668):
 * offset = clamp(size / step, min, max). It scans from a random start, wrapping.
 */
export function bandOffset(size: number, min: number, max: number, step: number): number {
  if (size < min) return 0;
  return Math.min(max, Math.max(min, Math.floor(size / step)));
}

function pickFromBand(start: number, end: number, taken: (index: number) => boolean, random: RandomInt): number | null {
  const width = end - start;
  if (width <= 0) return null;
  const first = random(width);
  for (let step = 0; step < width; step++) {
    const index = start + ((first + step) % width);
    if (!taken(index)) return index;
  }
  return null;
}

/** Picks a free index in [0, size): the upper band [offset, size) first, then the lower one. */
export function allocateIndex(size: number, offset: number, taken: (index: number) => boolean, random: RandomInt): number {
  const index = pickFromBand(offset, size, taken, random) ?? pickFromBand(0, offset, taken, random);
  if (index === null) throw new Error(`no free value left among ${size}`);
  return index;
}

/** A random free ClusterIP in `serviceCIDR` (network and broadcast excluded, like the API server's range). */
export function allocateClusterIP(serviceCIDR: string, taken: ReadonlySet<string>, random: RandomInt): string {
  const cidr = parseCidr(serviceCIDR);
  const usable = cidr.size - 2;
  const offset = bandOffset(cidr.size, 16, 256, 16);
  const index = allocateIndex(usable, offset, (i) => taken.has(formatIPv4(cidr.network + 1 + i)), random);
  return formatIPv4(cidr.network + 1 + index);
}

export const NODE_PORT_RANGE = { first: 30000, last: 32767 } as const;

/** A random free port of the NodePort range (healthCheckNodePorts come from it too). */
export function allocateNodePort(taken: ReadonlySet<number>, random: RandomInt): number {
  const size = NODE_PORT_RANGE.last - NODE_PORT_RANGE.first + 1;
  const offset = bandOffset(size, 16, 128, 32);
  return NODE_PORT_RANGE.first + allocateIndex(size, offset, (i) => taken.has(NODE_PORT_RANGE.first + i), random);
}
