// `ip -j -4 address show` on a node: its interfaces and their IPv4 addresses,
// as iproute2 prints them in JSON. The pod gateway is read from here: the CNI
// ptp plugin puts it on the host side of every pod's veth, so it is what the
// node itself holds inside its podCIDR, not a value derived from the CIDR.
import { ExtractError, describeValue } from '../errors.ts';

export interface InterfaceAddress {
  ifname: string;
  local: string;
  prefixlen: number;
}

/** Every IPv4 address of every interface, in the order iproute2 listed them. */
export function parseIpAddressJson(stdout: string): InterfaceAddress[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new ExtractError(`ip -j address: expected JSON, got ${describeValue(stdout)}`);
  }
  if (!Array.isArray(parsed)) throw new ExtractError('ip -j address: expected a list of interfaces');
  return parsed.flatMap((link: unknown, i) => {
    const l = link as { ifname?: unknown; addr_info?: unknown };
    if (typeof l?.ifname !== 'string') throw new ExtractError(`ip -j address: interface ${i}: expected an ifname`);
    if (!Array.isArray(l.addr_info)) throw new ExtractError(`ip -j address: ${l.ifname}: expected addr_info to be a list`);
    return l.addr_info
      .filter((a: { family?: unknown }) => a?.family === 'inet')
      .map((a: { local?: unknown; prefixlen?: unknown }) => {
        if (typeof a.local !== 'string' || typeof a.prefixlen !== 'number')
          throw new ExtractError(`ip -j address: ${l.ifname}: expected an inet address with local and prefixlen`);
        return { ifname: l.ifname as string, local: a.local, prefixlen: a.prefixlen };
      });
  });
}

function ipv4(address: string, what: string): number {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  const octets = m ? m.slice(1).map(Number) : [];
  if (!m || octets.some((o) => o > 255)) throw new ExtractError(`${what}: expected an IPv4 address, got ${describeValue(address)}`);
  return octets.reduce((acc, o) => acc * 256 + o, 0);
}

/** Whether `address` lies inside `cidr` (both IPv4). */
export function inCidr(address: string, cidr: string): boolean {
  const [base, bits, ...rest] = cidr.split('/');
  const prefix = Number(bits);
  if (base === undefined || rest.length > 0 || !/^\d{1,2}$/.test(bits ?? '') || prefix > 32)
    throw new ExtractError(`expected an IPv4 CIDR, got ${describeValue(cidr)}`);
  const size = 2 ** (32 - prefix);
  return Math.floor(ipv4(address, 'address') / size) === Math.floor(ipv4(base, cidr) / size);
}

/**
 * The one address the node holds inside its podCIDR, and the interfaces that hold it
 * (one veth per pod under ptp, all with the same gateway). None, or two different
 * addresses, is an error: the value would not be the pod gateway.
 */
export function podGatewayOnNode(addresses: InterfaceAddress[], podCIDR: string): { address: string; interfaces: string[] } {
  const inside = addresses.filter((a) => inCidr(a.local, podCIDR));
  const distinct = [...new Set(inside.map((a) => a.local))];
  if (distinct.length !== 1) {
    const seen = addresses.map((a) => `${a.ifname} ${a.local}/${a.prefixlen}`).join(', ') || 'none';
    throw new ExtractError(
      `ip -j address: expected exactly one address inside the podCIDR ${podCIDR} (the pod gateway on a pod's veth), found ${distinct.length === 0 ? 'none' : distinct.join(', ')} among: ${seen}`,
    );
  }
  return { address: distinct[0]!, interfaces: inside.map((a) => a.ifname) };
}
