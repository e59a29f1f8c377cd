// kube-proxy's iptables-mode rules for one node, following syncProxyRules in
// pkg/proxy/iptables/proxier.go (v1.31-1.33) with kube-proxy's defaults in kind:
// masqueradeBit 14, localhostNodePorts on, no nodePortAddresses, ClusterCIDR
// local-traffic detection, conntrack tcp_be_liberal off.
//
// Rules are written the way `iptables-save` prints them (address matches, then
// -p, then the -m matches in kube-proxy's order, then the target), so the
// generated text and what the kernel reports can be compared line by line.
// iptables-restore accepts this form as it is.
import { endpointChain, serviceChains } from './chain-names.ts';
import {
  categorizeEndpoints,
  endpointString,
  externalPolicyLocal,
  externallyAccessible,
  servicePortNameOf,
  type ProxyNodeInput,
  type ProxyServicePort,
} from './model.ts';

export const MASQUERADE_MARK = '0x4000';
/** Above this many endpoints kube-proxy leaves the per-endpoint comments out (largeClusterMode). */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

export type TableName = 'filter' | 'nat';

export const BUILTIN_CHAINS: Record<TableName, readonly string[]> = {
  filter: ['INPUT', 'FORWARD', 'OUTPUT'],
  nat: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'],
};

export interface TableRules {
  /** Chains kube-proxy creates outside iptables-restore (the canary iptables.Monitor watches). */
  baseChains: string[];
  /** Rules in built-in chains, in the order iptables lists them. */
  jumps: string[];
  /** The chains the sync writes, in the order kube-proxy writes them. */
  chains: string[];
  /** The sync's rules in the order kube-proxy writes them. */
  rules: string[];
}

export type NodeProxyRules = Record<TableName, TableRules>;

/** A `-m comment` match; iptables-save always prints the text in double quotes. */
function comment(text: string): string {
  return `-m comment --comment "${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function line(...parts: (string | null | false)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' ');
}

const TWO_POW_31 = 0x80000000n;

/**
 * The probability 1/n as iptables-save prints it. kube-proxy writes 1/n with
 * %0.10f; xt_statistic stores lround(2^31 * p) and prints it back with %.11f
 * (glibc rounds a tie to even).
 */
export function statisticProbability(n: number): string {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`statisticProbability: expected a positive integer, got ${n}`);
  const written = Number((1 / n).toFixed(10));
  const stored = BigInt(Math.round(Number(TWO_POW_31) * written));
  const scaled = stored * 10n ** 11n;
  let quotient = scaled / TWO_POW_31;
  const twiceRemainder = (scaled % TWO_POW_31) * 2n;
  if (twiceRemainder > TWO_POW_31 || (twiceRemainder === TWO_POW_31 && quotient % 2n === 1n)) quotient += 1n;
  const digits = quotient.toString().padStart(12, '0');
  return `${digits.slice(0, -11)}.${digits.slice(-11)}`;
}

interface JumpRule {
  table: TableName;
  from: string;
  to: string;
  comment: string | null;
  newOnly: boolean;
}

// proxier.go iptablesJumpChains, then iptablesKubeletJumpChains.
const KUBE_PROXY_JUMPS: JumpRule[] = [
  { table: 'filter', from: 'INPUT', to: 'KUBE-EXTERNAL-SERVICES', comment: 'kubernetes externally-visible service portals', newOnly: true },
  { table: 'filter', from: 'FORWARD', to: 'KUBE-EXTERNAL-SERVICES', comment: 'kubernetes externally-visible service portals', newOnly: true },
  { table: 'filter', from: 'INPUT', to: 'KUBE-NODEPORTS', comment: 'kubernetes health check service ports', newOnly: false },
  { table: 'filter', from: 'FORWARD', to: 'KUBE-SERVICES', comment: 'kubernetes service portals', newOnly: true },
  { table: 'filter', from: 'OUTPUT', to: 'KUBE-SERVICES', comment: 'kubernetes service portals', newOnly: true },
  { table: 'filter', from: 'FORWARD', to: 'KUBE-FORWARD', comment: 'kubernetes forwarding rules', newOnly: false },
  { table: 'filter', from: 'INPUT', to: 'KUBE-PROXY-FIREWALL', comment: 'kubernetes load balancer firewall', newOnly: true },
  { table: 'filter', from: 'OUTPUT', to: 'KUBE-PROXY-FIREWALL', comment: 'kubernetes load balancer firewall', newOnly: true },
  { table: 'filter', from: 'FORWARD', to: 'KUBE-PROXY-FIREWALL', comment: 'kubernetes load balancer firewall', newOnly: true },
  { table: 'nat', from: 'OUTPUT', to: 'KUBE-SERVICES', comment: 'kubernetes service portals', newOnly: false },
  { table: 'nat', from: 'PREROUTING', to: 'KUBE-SERVICES', comment: 'kubernetes service portals', newOnly: false },
  { table: 'nat', from: 'POSTROUTING', to: 'KUBE-POSTROUTING', comment: 'kubernetes postrouting rules', newOnly: false },
];

// Created by kubelet as well, and by kubelet first on a real node: they stay below kube-proxy's.
const KUBELET_JUMPS: JumpRule[] = [
  { table: 'filter', from: 'INPUT', to: 'KUBE-FIREWALL', comment: null, newOnly: false },
  { table: 'filter', from: 'OUTPUT', to: 'KUBE-FIREWALL', comment: null, newOnly: false },
];

function jumpLine(jump: JumpRule): string {
  return line('-A', jump.from, jump.newOnly && '-m conntrack --ctstate NEW', jump.comment !== null && comment(jump.comment), '-j', jump.to);
}

/** Built-in chain rules: kube-proxy prepends each jump in list order, so the list ends up reversed, above kubelet's. */
function jumpRules(table: TableName): string[] {
  const proxy = KUBE_PROXY_JUMPS.filter((j) => j.table === table).reverse();
  const kubelet = KUBELET_JUMPS.filter((j) => j.table === table);
  return BUILTIN_CHAINS[table].flatMap((chain) => [...proxy, ...kubelet].filter((j) => j.from === chain).map(jumpLine));
}

interface Writer {
  chains: string[];
  rules: string[];
}

function chainLine(writer: Writer, chain: string): void {
  writer.chains.push(chain);
}

function serviceRules(
  service: ProxyServicePort,
  input: ProxyNodeInput,
  filter: Writer,
  nat: Writer,
  largeClusterMode: boolean,
): void {
  const protocol = service.protocol.toLowerCase();
  const name = servicePortNameOf(service);
  const chains = serviceChains(name, protocol);
  const endpoints = categorizeEndpoints(service, input.endpoints, input.nodeName);
  const policyLocal = externalPolicyLocal(service);

  const usesClusterPolicyChain = endpoints.cluster.length > 0;
  const usesLocalPolicyChain = endpoints.local.length > 0 && policyLocal;
  const hasInternalEndpoints = endpoints.hasAny;
  const externalPolicyChain = policyLocal ? chains.local : chains.cluster;
  const hasExternalEndpoints = endpoints.hasAny && (!policyLocal || endpoints.local.length > 0);
  const usesExternalTrafficChain = endpoints.hasAny && externallyAccessible(service);

  let filterTarget = '';
  let filterComment = '';
  if (!endpoints.hasAny) {
    filterTarget = '-j REJECT --reject-with icmp-port-unreachable';
    filterComment = `${name} has no endpoints`;
  } else if (!hasExternalEndpoints) {
    filterTarget = '-j DROP';
    filterComment = `${name} has no local endpoints`;
  }

  const clusterIP = `${service.clusterIP}/32`;
  const dport = `-m ${protocol} --dport ${service.port}`;

  // Capture the clusterIP.
  if (hasInternalEndpoints) {
    nat.rules.push(line('-A KUBE-SERVICES', '-d', clusterIP, '-p', protocol, comment(`${name} cluster IP`), dport, '-j', chains.cluster));
  } else {
    filter.rules.push(line('-A KUBE-SERVICES', '-d', clusterIP, '-p', protocol, comment(filterComment), dport, filterTarget));
  }

  // Capture nodeports.
  if (service.nodePort !== null) {
    const nodePort = `-m ${protocol} --dport ${service.nodePort}`;
    if (endpoints.hasAny) {
      nat.rules.push(line('-A KUBE-NODEPORTS', '-p', protocol, comment(name), nodePort, '-j', chains.external));
    }
    if (!hasExternalEndpoints) {
      filter.rules.push(
        line('-A KUBE-EXTERNAL-SERVICES', '-p', protocol, comment(filterComment), '-m addrtype --dst-type LOCAL', nodePort, filterTarget),
      );
    }
  }

  // Capture healthCheckNodePorts, whether or not this node has local endpoints.
  if (service.healthCheckNodePort !== null) {
    filter.rules.push(
      line('-A KUBE-NODEPORTS', '-p tcp', comment(`${name} health check node port`), `-m tcp --dport ${service.healthCheckNodePort}`, '-j ACCEPT'),
    );
  }

  // Internal traffic: masquerade off-cluster sources reaching the ClusterIP.
  if (hasInternalEndpoints) {
    nat.rules.push(
      line('-A', chains.cluster, '!', '-s', input.clusterCIDR, '-d', clusterIP, '-p', protocol, comment(`${name} cluster IP`), dport, '-j KUBE-MARK-MASQ'),
    );
  }

  // External traffic (NodePorts) enters the EXT chain, which then applies the policy.
  if (usesExternalTrafficChain) {
    chainLine(nat, chains.external);
    if (!policyLocal) {
      nat.rules.push(line('-A', chains.external, comment(`masquerade traffic for ${name} external destinations`), '-j KUBE-MARK-MASQ'));
    } else {
      nat.rules.push(
        line('-A', chains.external, '-s', input.clusterCIDR, comment(`pod traffic for ${name} external destinations`), '-j', chains.cluster),
        line('-A', chains.external, comment(`masquerade LOCAL traffic for ${name} external destinations`), '-m addrtype --src-type LOCAL', '-j KUBE-MARK-MASQ'),
        line('-A', chains.external, comment(`route LOCAL traffic for ${name} external destinations`), '-m addrtype --src-type LOCAL', '-j', chains.cluster),
      );
    }
    if (hasExternalEndpoints) nat.rules.push(line('-A', chains.external, '-j', externalPolicyChain));
  }

  const endpointComment = (text: string): string | null => (largeClusterMode ? null : comment(text));
  const serviceToEndpoints = (chain: string, list: typeof endpoints.cluster): void => {
    list.forEach((endpoint, i) => {
      const remaining = list.length - i;
      nat.rules.push(
        line(
          '-A', chain,
          endpointComment(`${name} -> ${endpointString(endpoint)}`),
          remaining > 1 && `-m statistic --mode random --probability ${statisticProbability(remaining)}`,
          '-j', endpointChain(name, protocol, endpointString(endpoint)),
        ),
      );
    });
  };
  if (usesClusterPolicyChain) {
    chainLine(nat, chains.cluster);
    serviceToEndpoints(chains.cluster, endpoints.cluster);
  }
  if (usesLocalPolicyChain) {
    chainLine(nat, chains.local);
    serviceToEndpoints(chains.local, endpoints.local);
  }

  // One chain per endpoint: hairpin traffic is masqueraded, then DNAT to the pod.
  for (const endpoint of endpoints.reachable) {
    const chain = endpointChain(name, protocol, endpointString(endpoint));
    chainLine(nat, chain);
    nat.rules.push(
      line('-A', chain, '-s', `${endpoint.ip}/32`, endpointComment(name), '-j KUBE-MARK-MASQ'),
      line('-A', chain, '-p', protocol, endpointComment(name), `-m ${protocol}`, '-j DNAT --to-destination', endpointString(endpoint)),
    );
  }
}

function byServicePortName(a: ProxyServicePort, b: ProxyServicePort): number {
  const left = servicePortNameOf(a);
  const right = servicePortNameOf(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Everything kube-proxy programs on `input.nodeName`. Services are written in
 * name order (kube-proxy walks a Go map: its order varies from sync to sync).
 */
export function buildProxyRules(input: ProxyNodeInput): NodeProxyRules {
  const filter: Writer = { chains: [], rules: [] };
  const nat: Writer = { chains: [], rules: [] };
  for (const chain of ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-FORWARD', 'KUBE-NODEPORTS', 'KUBE-PROXY-FIREWALL']) chainLine(filter, chain);
  for (const chain of ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ']) chainLine(nat, chain);

  const mark = `${MASQUERADE_MARK}/${MASQUERADE_MARK}`;
  nat.rules.push(
    `-A KUBE-POSTROUTING -m mark ! --mark ${mark} -j RETURN`,
    // --xor-mark: clears the mark so a packet that passes again is not masqueraded twice.
    `-A KUBE-POSTROUTING -j MARK --set-xmark ${MASQUERADE_MARK}/0x0`,
    line('-A KUBE-POSTROUTING', comment('kubernetes service traffic requiring SNAT'), '-j MASQUERADE --random-fully'),
    // --or-mark
    `-A KUBE-MARK-MASQ -j MARK --set-xmark ${mark}`,
  );

  // localhostNodePorts: kube-proxy blocks the martian packets route_localnet would let in.
  chainLine(filter, 'KUBE-FIREWALL');
  filter.rules.push(
    line('-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8', comment('block incoming localnet connections'), '-m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP'),
  );

  const services = [...input.services].sort(byServicePortName);
  const totalEndpoints = services.reduce((sum, s) => sum + categorizeEndpoints(s, input.endpoints, input.nodeName).cluster.length, 0);
  const largeClusterMode = totalEndpoints > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
  for (const service of services) serviceRules(service, input, filter, nat, largeClusterMode);

  // Must stay the last rule of KUBE-SERVICES; localhostNodePorts leaves 127.0.0.0/8 in.
  nat.rules.push(
    line('-A KUBE-SERVICES', comment('kubernetes service nodeports; NOTE: this must be the last rule in this chain'), '-m addrtype --dst-type LOCAL -j KUBE-NODEPORTS'),
  );

  filter.rules.push(
    '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP',
    line('-A KUBE-FORWARD', comment('kubernetes forwarding rules'), `-m mark --mark ${mark}`, '-j ACCEPT'),
    line('-A KUBE-FORWARD', comment('kubernetes forwarding conntrack rule'), '-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT'),
  );

  return {
    filter: { baseChains: ['KUBE-PROXY-CANARY'], jumps: jumpRules('filter'), chains: filter.chains, rules: filter.rules },
    nat: { baseChains: ['KUBE-PROXY-CANARY'], jumps: jumpRules('nat'), chains: nat.chains, rules: nat.rules },
  };
}
