// kube-proxy's per-service chain names (pkg/proxy/iptables/proxier.go: portProtoHash,
// servicePortEndpointChainName). iptables limits chain names to 28 characters,
// hence a hash instead of the service's name.
import { createHash } from 'node:crypto';

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 with the standard alphabet, as Go's base32.StdEncoding (padding is never reached here). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

function hash16(text: string): string {
  return base32(createHash('sha256').update(text, 'utf8').digest()).slice(0, 16);
}

/** `ns/name`, or `ns/name:port` for a named Service port (proxy.ServicePortName.String()). */
export function servicePortName(namespace: string, service: string, portName: string | null): string {
  return portName ? `${namespace}/${service}:${portName}` : `${namespace}/${service}`;
}

/** The 16-character hash of servicePortName + lowercase protocol. */
export function portProtoHash(servicePortNameString: string, protocol: string): string {
  return hash16(servicePortNameString + protocol.toLowerCase());
}

export interface ServiceChains {
  /** KUBE-SVC-: endpoints for Cluster traffic policy. */
  cluster: string;
  /** KUBE-SVL-: local endpoints for Local traffic policy. */
  local: string;
  /** KUBE-EXT-: where NodePort and load-balancer traffic enters. */
  external: string;
  /** KUBE-FW-: loadBalancerSourceRanges (not used by the experiments, named for completeness). */
  firewall: string;
}

export function serviceChains(servicePortNameString: string, protocol: string): ServiceChains {
  const hash = portProtoHash(servicePortNameString, protocol);
  return {
    cluster: `KUBE-SVC-${hash}`,
    local: `KUBE-SVL-${hash}`,
    external: `KUBE-EXT-${hash}`,
    firewall: `KUBE-FW-${hash}`,
  };
}

/** KUBE-SEP- chain of one endpoint; `endpoint` is `ip:port`. */
export function endpointChain(servicePortNameString: string, protocol: string, endpoint: string): string {
  return `KUBE-SEP-${hash16(servicePortNameString + protocol.toLowerCase() + endpoint)}`;
}

const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-EXT-', 'KUBE-FW-', 'KUBE-SEP-'];

/** True for the per-service chains kube-proxy deletes when they are no longer used (isServiceChainName). */
export function isServiceChainName(chain: string): boolean {
  return SERVICE_CHAIN_PREFIXES.some((prefix) => chain.startsWith(prefix));
}
