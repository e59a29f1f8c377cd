// IPv4 arithmetic for the addresses the lab hands out where docker would (the
// nodes' addresses); everything else is allocated by the real control plane.

function parseIPv4(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) {
    throw new Error(`expected an IPv4 address, got ${JSON.stringify(ip)}`);
  }
  return parts.reduce((sum, part) => sum * 256 + Number(part), 0);
}

function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

interface Cidr {
  network: number;
  prefix: number;
  /** Number of addresses, network and broadcast included. */
  size: number;
}

function parseCidr(cidr: string): Cidr {
  const match = /^([\d.]+)\/(\d{1,2})$/.exec(cidr);
  if (match === null) throw new Error(`expected an IPv4 CIDR like 10.244.0.0/16, got ${JSON.stringify(cidr)}`);
  const prefix = Number(match[2]);
  if (prefix > 32) throw new Error(`expected a prefix length up to 32 in ${JSON.stringify(cidr)}`);
  const size = 2 ** (32 - prefix);
  const address = parseIPv4(match[1] as string);
  if (address % size !== 0) throw new Error(`expected a network address in ${JSON.stringify(cidr)} (host bits set)`);
  return { network: address, prefix, size };
}

/** The address `offset` places into a CIDR (10.244.1.0/24, 1 -> 10.244.1.1). */
export function hostAddress(cidr: string, offset: number): string {
  const parsed = parseCidr(cidr);
  if (offset <= 0 || offset >= parsed.size - 1) throw new Error(`${cidr} has no host address at offset ${offset}`);
  return formatIPv4(parsed.network + offset);
}
