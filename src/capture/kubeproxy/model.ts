// What kube-proxy knows when it syncs one node: Services, ready endpoints, its
// own node name and the cluster CIDR. Pure data, shared by the rule generator
// and the health-check state.
import type { Protocol } from '../../experiment/manifests.ts';
import { servicePortName } from './chain-names.ts';

export interface ProxyServicePort {
  namespace: string;
  name: string;
  /** Service port name; null for an unnamed port. */
  portName: string | null;
  protocol: Protocol;
  clusterIP: string;
  port: number;
  /** null when the Service has no NodePort (type ClusterIP). */
  nodePort: number | null;
  /** Only LoadBalancer + Local has one. */
  healthCheckNodePort: number | null;
  externalTrafficPolicy: 'Cluster' | 'Local';
}

/** A ready endpoint of one Service port (one EndpointSlice endpoint × port). */
export interface ProxyEndpoint {
  namespace: string;
  service: string;
  portName: string | null;
  ip: string;
  port: number;
  /** The node the endpoint's pod runs on (EndpointSlice endpoints[].nodeName). */
  nodeName: string;
}

export interface ProxyNodeInput {
  /** This node's name, compared with endpoints' nodeName. */
  nodeName: string;
  /** kube-proxy's clusterCIDR: the LocalTrafficDetector tells pod traffic by it. */
  clusterCIDR: string;
  services: ProxyServicePort[];
  /** Ready endpoints only. */
  endpoints: ProxyEndpoint[];
}

export function servicePortNameOf(service: { namespace: string; name: string; portName: string | null }): string {
  return servicePortName(service.namespace, service.name, service.portName);
}

export function endpointString(endpoint: ProxyEndpoint): string {
  return `${endpoint.ip}:${endpoint.port}`;
}

function ipv4Key(ip: string): number {
  return ip.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

/** The endpoints of one Service port, in a stable order (by address, then port). */
export function endpointsOf(service: ProxyServicePort, endpoints: ProxyEndpoint[]): ProxyEndpoint[] {
  return endpoints
    .filter((e) => e.namespace === service.namespace && e.service === service.name && e.portName === service.portName)
    .sort((a, b) => ipv4Key(a.ip) - ipv4Key(b.ip) || a.port - b.port);
}

export interface CategorizedEndpoints {
  /** Endpoints for Cluster traffic policy: all ready ones. */
  cluster: ProxyEndpoint[];
  /** Ready endpoints on this node; only computed when a Local policy is in use. */
  local: ProxyEndpoint[];
  /** Every endpoint this node may route to: one KUBE-SEP chain each. */
  reachable: ProxyEndpoint[];
  /** Whether the Service has ready endpoints anywhere in the cluster. */
  hasAny: boolean;
}

/**
 * pkg/proxy/topology.go CategorizeEndpoints for ready endpoints, internalTrafficPolicy
 * Cluster and no topology hints: the cluster list always exists (NodePorts need it
 * for short-circuiting even under Local); the local list only under Local.
 */
export function categorizeEndpoints(service: ProxyServicePort, endpoints: ProxyEndpoint[], nodeName: string): CategorizedEndpoints {
  const cluster = endpointsOf(service, endpoints);
  const usesLocal = externalPolicyLocal(service);
  const local = usesLocal ? cluster.filter((e) => e.nodeName === nodeName) : [];
  return { cluster, local, reachable: cluster, hasAny: cluster.length > 0 };
}

/** NodePort and LoadBalancer Services take traffic from outside (no externalIPs or LB VIPs in the experiments). */
export function externallyAccessible(service: ProxyServicePort): boolean {
  return service.nodePort !== null;
}

export function externalPolicyLocal(service: ProxyServicePort): boolean {
  return externallyAccessible(service) && service.externalTrafficPolicy === 'Local';
}

/**
 * Local ready endpoints per Service (`ns/name`), counted by distinct address as
 * EndpointsMap.LocalReadyEndpoints does; only Services with a health-check
 * NodePort are reported, each of them (0 when none is local).
 */
export function localEndpointCounts(input: ProxyNodeInput): Map<string, number> {
  const counts = new Map<string, number>();
  for (const service of input.services) {
    if (service.healthCheckNodePort === null) continue;
    const key = `${service.namespace}/${service.name}`;
    const local = input.endpoints.filter(
      (e) => e.namespace === service.namespace && e.service === service.name && e.nodeName === input.nodeName,
    );
    counts.set(key, new Set(local.map((e) => e.ip)).size);
  }
  return counts;
}
