// The cluster as the API reports it to either driver (`kubectl get nodes|pods|services -o json`)
// turned into the experiment's Topology. Nothing here assumes an address or a
// port: every value is read from kubectl's answer, and a missing one is an error
// that names the command, the object and the field.
import type { ClusterSpec, NodeInfo, NodeRole, PodInfo, ServiceInfo, ServiceType, TrafficPolicy } from '../../experiment/types.ts';
import type { ObjectRef } from './manifest-objects.ts';
import { ToolOutputError } from './api-output.ts';

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const CIDR4 = /^(\d{1,3}\.){3}\d{1,3}\/(3[0-2]|[12]?\d)$/;

export interface KubeNode {
  k8sName: string;
  role: NodeRole;
  labels: Record<string, string>;
  internalIP: string;
  podCIDR: string;
  containerRuntime: string | null;
}

export interface KubePod {
  name: string;
  namespace: string;
  /** The Kubernetes node name; null while unscheduled. */
  nodeName: string | null;
  ip: string | null;
  /** The image the container runtime reports it ran (status), else the one the spec asks for. */
  image: string;
  labels: Record<string, string>;
  ready: boolean;
  /** metadata.deletionTimestamp is set. */
  terminating: boolean;
  /** metadata.uid: a Pod recreated under the same name is another Pod. */
  uid: string | null;
  /** The restarts of all its containers (status.containerStatuses[].restartCount). */
  restarts: number;
  /** Each container that is waiting: why (ErrImagePull, ImagePullBackOff, LabCannotRunImage), as its status says. */
  waiting: { container: string; image: string; reason: string; message: string }[];
}

export interface KubeService {
  name: string;
  namespace: string;
  type: string;
  externalTrafficPolicy: string | null;
  internalTrafficPolicy: string | null;
  clusterIP: string;
  ports: { port: number; targetPort: number | string; nodePort: number | null }[];
  healthCheckNodePort: number | null;
  selector: Record<string, string>;
}

type Json = Record<string, unknown>;

function items(stdout: string, source: string): Json[] {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch (error) {
    throw new ToolOutputError(`${source}: expected JSON (${(error as Error).message})`);
  }
  const list = (data as Json | null)?.items;
  if (!Array.isArray(list)) throw new ToolOutputError(`${source}: field items: expected a list`);
  return list as Json[];
}

function at(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((cur, key) => (cur as Json | null | undefined)?.[key], obj);
}

function str(obj: unknown, path: string, where: string): string {
  const value = at(obj, path);
  if (typeof value !== 'string' || value === '') throw new ToolOutputError(`${where}: field ${path}: expected a non-empty string`);
  return value;
}

function stringMap(obj: unknown, path: string): Record<string, string> {
  const value = at(obj, path);
  return value && typeof value === 'object' ? (value as Record<string, string>) : {};
}

function ipv4(value: string, where: string, field: string): string {
  if (!IPV4.test(value)) throw new ToolOutputError(`${where}: field ${field}: expected an IPv4 address, got "${value}"`);
  return value;
}

export function parseNodeList(stdout: string): KubeNode[] {
  const source = 'kubectl get nodes -o json';
  return items(stdout, source).map((item, i) => {
    const k8sName = str(item, 'metadata.name', `${source} items[${i}]`);
    const where = `${source} node ${k8sName}`;
    const labels = stringMap(item, 'metadata.labels');
    const addresses = at(item, 'status.addresses');
    const internal = Array.isArray(addresses) ? addresses.find((a: Json) => a?.type === 'InternalIP') : undefined;
    if (!internal || typeof internal.address !== 'string') {
      throw new ToolOutputError(`${where}: field status.addresses: expected an entry of type InternalIP`);
    }
    const podCIDR = str(item, 'spec.podCIDR', where);
    if (!CIDR4.test(podCIDR)) throw new ToolOutputError(`${where}: field spec.podCIDR: expected an IPv4 CIDR, got "${podCIDR}"`);
    const runtime = at(item, 'status.nodeInfo.containerRuntimeVersion');
    return {
      k8sName,
      role: 'node-role.kubernetes.io/control-plane' in labels ? 'control-plane' : 'worker',
      labels,
      internalIP: ipv4(internal.address, where, 'status.addresses[InternalIP]'),
      podCIDR,
      containerRuntime: typeof runtime === 'string' ? runtime : null,
    };
  });
}

export function parsePodList(stdout: string): KubePod[] {
  const source = 'kubectl get pods -o json';
  return items(stdout, source).map((item, i) => {
    const name = str(item, 'metadata.name', `${source} items[${i}]`);
    const namespace = str(item, 'metadata.namespace', `${source} pod ${name}`);
    const where = `${source} pod ${namespace}/${name}`;
    const conditions = at(item, 'status.conditions');
    const ready = Array.isArray(conditions) && conditions.some((c: Json) => c?.type === 'Ready' && c?.status === 'True');
    const nodeName = at(item, 'spec.nodeName');
    const ip = at(item, 'status.podIP');
    const ran = at(item, 'status.containerStatuses.0.image');
    return {
      name,
      namespace,
      nodeName: typeof nodeName === 'string' && nodeName !== '' ? nodeName : null,
      ip: typeof ip === 'string' && ip !== '' ? ipv4(ip, where, 'status.podIP') : null,
      image: typeof ran === 'string' && ran !== '' ? ran : str(item, 'spec.containers.0.image', where),
      labels: stringMap(item, 'metadata.labels'),
      ready,
      terminating: typeof at(item, 'metadata.deletionTimestamp') === 'string',
      uid: typeof at(item, 'metadata.uid') === 'string' ? (at(item, 'metadata.uid') as string) : null,
      restarts: restartsOf(at(item, 'status.containerStatuses')),
      waiting: waitingOf(at(item, 'status.containerStatuses')),
    };
  });
}

function waitingOf(statuses: unknown): KubePod['waiting'] {
  if (!Array.isArray(statuses)) return [];
  return statuses.flatMap((s: Json) => {
    const waiting = at(s, 'state.waiting') as Json | undefined;
    if (typeof waiting !== 'object' || waiting === null) return [];
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    return [{ container: text(s.name), image: text(s.image), reason: text(waiting.reason) || 'waiting', message: text(waiting.message) }];
  });
}

const PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'LabCannotRunImage']);

/**
 * Why these Pods are not Ready, one phrase each: the Pod, each waiting container's
 * reason and message and its image, or that it is unscheduled. When an image could
 * not be pulled or run, what an experiment does about it on a machine without a registry.
 */
export function notReadyText(pods: KubePod[], wanted: (pod: KubePod) => boolean): string {
  const late = pods.filter((p) => wanted(p) && !p.ready && !p.terminating);
  if (late.length === 0) return 'every Pod of it is Ready now';
  const phrases = late.map((p) => {
    const where = `pod ${p.namespace}/${p.name}`;
    if (p.waiting.length === 0) return p.nodeName === null ? `${where}: not scheduled` : `${where} on ${p.nodeName}: not Ready, image ${p.image}`;
    return `${where}: ${p.waiting.map((w) => `container ${w.container} waiting (${w.reason}${w.message ? `: ${w.message}` : ''}), image ${w.image || p.image}`).join('; ')}`;
  });
  const pull = late.some((p) => p.waiting.some((w) => PULL_REASONS.has(w.reason)));
  return `${phrases.join('; ')}${pull ? '. Where no registry answers, an experiment runs an image it cannot pull through a declared substitute (imageSubstitutes, as 074 and 075 do; docs/authoring.md)' : ''}`;
}

function restartsOf(statuses: unknown): number {
  if (!Array.isArray(statuses)) return 0;
  return statuses.reduce((sum: number, s: Json) => sum + (typeof s?.restartCount === 'number' ? s.restartCount : 0), 0);
}

/**
 * What changed for the worse among the Pods since the steps began: a Pod that was
 * Ready and is gone, not Ready, replaced (another uid) or restarted. Pods a step
 * deleted on purpose are not asked about. One phrase each, empty when all is well.
 */
export function podChanges(before: KubePod[], now: KubePod[], deleted: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const pod of before.filter((p) => p.ready && !p.terminating)) {
    const key = `${pod.namespace}/${pod.name}`;
    if (deleted.has(key)) continue;
    const current = now.find((p) => p.namespace === pod.namespace && p.name === pod.name);
    if (!current) problems.push(`pod ${key} is gone`);
    else if (pod.uid !== null && current.uid !== pod.uid) problems.push(`pod ${key} was replaced (uid ${pod.uid} -> ${current.uid})`);
    else if (current.restarts > pod.restarts) problems.push(`pod ${key} restarted (${current.restarts - pod.restarts} time(s))`);
    else if (!current.ready) problems.push(`pod ${key} is no longer Ready`);
  }
  return problems;
}

/**
 * The pods the health check watches, once a step created `key` again: its new self (read from
 * `now`) in place of the one deleted, so a restart or a loss of Ready from then on is a problem
 * like any other pod's. Null when `now` does not list it Ready.
 */
export function watchingAgain(before: KubePod[], now: KubePod[], key: string): KubePod[] | null {
  const current = now.find((p) => `${p.namespace}/${p.name}` === key && p.ready && !p.terminating);
  if (!current) return null;
  return [...before.filter((p) => `${p.namespace}/${p.name}` !== key), current];
}

export function parseServiceList(stdout: string): KubeService[] {
  const source = 'kubectl get services -o json';
  return items(stdout, source).map((item, i) => {
    const name = str(item, 'metadata.name', `${source} items[${i}]`);
    const namespace = str(item, 'metadata.namespace', `${source} service ${name}`);
    const where = `${source} service ${namespace}/${name}`;
    const rawPorts = at(item, 'spec.ports');
    const ports = (Array.isArray(rawPorts) ? rawPorts : []).map((p: Json, j) => {
      if (typeof p?.port !== 'number') throw new ToolOutputError(`${where}: field spec.ports[${j}].port: expected a number`);
      const targetPort = p.targetPort;
      if (typeof targetPort !== 'number' && typeof targetPort !== 'string') {
        throw new ToolOutputError(`${where}: field spec.ports[${j}].targetPort: expected a number or a name`);
      }
      return { port: p.port, targetPort, nodePort: typeof p.nodePort === 'number' ? p.nodePort : null };
    });
    const policy = at(item, 'spec.externalTrafficPolicy');
    const internal = at(item, 'spec.internalTrafficPolicy');
    const hcnp = at(item, 'spec.healthCheckNodePort');
    return {
      name,
      namespace,
      type: str(item, 'spec.type', where),
      externalTrafficPolicy: typeof policy === 'string' ? policy : null,
      internalTrafficPolicy: typeof internal === 'string' ? internal : null,
      clusterIP: str(item, 'spec.clusterIP', where),
      ports,
      healthCheckNodePort: typeof hcnp === 'number' ? hcnp : null,
      selector: stringMap(item, 'spec.selector'),
    };
  });
}

/** How the API names the experiment's nodes, both ways. */
export interface NodeNaming {
  /** The API's name of the experiment's node. */
  k8sName(node: string): string;
  /** The experiment's name of the API's node; a ToolOutputError naming `where` for a node that is none of them. */
  logical(k8sName: string, where: string): string;
}

/** kind's and the lab's naming: `<cluster>-<node>`. */
export function prefixNaming(cluster: string): NodeNaming {
  return { k8sName: (node) => `${cluster}-${node}`, logical: (k8sName, where) => logicalNodeName(k8sName, cluster, where) };
}

/** The naming of the nodes as their provider brought them up, each with the name it registered as. */
export function namingOf(nodes: ReadonlyArray<{ name: string; k8sName: string }>): NodeNaming {
  const known = nodes.map((n) => n.k8sName).join(', ');
  return {
    k8sName: (node) => nodes.find((n) => n.name === node)?.k8sName ?? node,
    logical: (k8sName, where) => {
      const node = nodes.find((n) => n.k8sName === k8sName);
      if (!node) throw new ToolOutputError(`${where}: node "${k8sName}" is not one of the experiment's nodes (${known})`);
      return node.name;
    },
  };
}

/** `kx-main-worker2` -> `worker2`: the experiment's logical node name. */
export function logicalNodeName(k8sName: string, cluster: string, where: string): string {
  const prefix = `${cluster}-`;
  if (!k8sName.startsWith(prefix) || k8sName.length === prefix.length) {
    throw new ToolOutputError(`${where}: node "${k8sName}" is not a node of kind cluster "${cluster}" (expected "${prefix}<node>")`);
  }
  return k8sName.slice(prefix.length);
}

/** The experiment's nodes, in the experiment's order, with the addresses the API reported. */
export function toNodeInfos(nodes: KubeNode[], cluster: ClusterSpec, naming: NodeNaming = prefixNaming(cluster.name)): NodeInfo[] {
  const source = 'kubectl get nodes -o json';
  return cluster.nodes.map((spec) => {
    const k8sName = naming.k8sName(spec.name);
    const node = nodes.find((n) => n.k8sName === k8sName);
    if (!node) {
      const found = nodes.map((n) => n.k8sName).join(', ') || 'none';
      throw new ToolOutputError(`${source}: expected node "${k8sName}" (experiment node "${spec.name}"), found: ${found}`);
    }
    if (node.role !== spec.role) {
      throw new ToolOutputError(`${source} node ${k8sName}: expected role ${spec.role}, the API says ${node.role}`);
    }
    return { name: spec.name, k8sName, role: node.role, internalIP: node.internalIP, podCIDR: node.podCIDR };
  });
}

/** A node as its provider said it brought it up (provider/node-provider.ts ProvidedNode). */
export interface NodeAsProvided {
  name: string;
  /** The name its kubelet registered as; `<cluster>-<name>` when absent. */
  k8sName?: string;
  address: string | null;
  labels: Readonly<Record<string, string>>;
}

/**
 * Where the API's nodes contradict what the provider brought up, one phrase each: a node
 * without a label its provider had it register with belongs to a cluster this capture did not
 * create; a node whose InternalIP is not the address the provider gave it is another node.
 */
export function nodesNotAsProvided(nodes: readonly KubeNode[], provided: readonly NodeAsProvided[], cluster: string): string[] {
  const problems: string[] = [];
  const unlabelled = new Map<string, string[]>();
  for (const spec of provided) {
    const k8sName = spec.k8sName ?? `${cluster}-${spec.name}`;
    const node = nodes.find((n) => n.k8sName === k8sName);
    if (!node) continue;
    for (const [key, value] of Object.entries(spec.labels))
      if (node.labels[key] !== value) unlabelled.set(`${key}=${value}`, [...(unlabelled.get(`${key}=${value}`) ?? []), k8sName]);
    if (spec.address !== null && node.internalIP !== spec.address)
      problems.push(`node ${k8sName} reports InternalIP ${node.internalIP}, but its provider brought it up at ${spec.address}`);
  }
  for (const [label, names] of unlabelled)
    problems.unshift(`nodes ${names.join(', ')} lack the label ${label} that their provider set: cluster "${cluster}" was not created by this capture`);
  return problems;
}

const refName = (r: ObjectRef) => `${r.namespace}/${r.name}`;

export function toPodInfos(pods: KubePod[], wanted: ObjectRef[], naming: NodeNaming): PodInfo[] {
  const source = 'kubectl get pods -o json';
  return wanted.map((ref) => {
    const pod = pods.find((p) => p.name === ref.name && p.namespace === ref.namespace);
    if (!pod) throw new ToolOutputError(`${source}: expected pod ${refName(ref)} (declared in the manifests), not found`);
    const where = `${source} pod ${refName(ref)}`;
    if (!pod.nodeName) throw new ToolOutputError(`${where}: field spec.nodeName: expected the node it runs on`);
    if (!pod.ip) throw new ToolOutputError(`${where}: field status.podIP: expected an IPv4 address`);
    return {
      name: pod.name,
      namespace: pod.namespace,
      node: naming.logical(pod.nodeName, where),
      ip: pod.ip,
      image: pod.image,
    };
  });
}

/**
 * The Pods a workload's controller created, as the API reports them: in its
 * namespace, matching its selector, scheduled, running and not being deleted;
 * ordered by name. How many there are, and where, is the scheduler's answer.
 */
export function workloadPods(pods: KubePod[], workload: ObjectRef & { kind: string; selector: Record<string, string> }): ObjectRef[] {
  return pods
    .filter((p) => p.namespace === workload.namespace && !p.terminating && selects(workload.selector, p.labels))
    .map((p) => ({ name: p.name, namespace: p.namespace }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const SERVICE_TYPES: ServiceType[] = ['ClusterIP', 'NodePort', 'LoadBalancer'];

export function toServiceInfos(services: KubeService[], wanted: ObjectRef[]): ServiceInfo[] {
  const source = 'kubectl get services -o json';
  return wanted.map((ref) => {
    const svc = services.find((s) => s.name === ref.name && s.namespace === ref.namespace);
    if (!svc) throw new ToolOutputError(`${source}: expected service ${refName(ref)} (declared in the manifests), not found`);
    const where = `${source} service ${refName(ref)}`;
    if (!SERVICE_TYPES.includes(svc.type as ServiceType)) {
      throw new ToolOutputError(`${where}: field spec.type: expected one of ${SERVICE_TYPES.join(', ')}, got "${svc.type}"`);
    }
    // Reached from outside, a Service has an external policy and a NodePort; a ClusterIP Service has neither.
    const outside = svc.type !== 'ClusterIP';
    const isPolicy = (p: string | null): p is TrafficPolicy => p === 'Cluster' || p === 'Local';
    if (outside && !isPolicy(svc.externalTrafficPolicy)) {
      throw new ToolOutputError(`${where}: field spec.externalTrafficPolicy: expected Cluster or Local, got ${JSON.stringify(svc.externalTrafficPolicy)}`);
    }
    // The API server defaults it to Cluster since Kubernetes 1.22.
    if (!isPolicy(svc.internalTrafficPolicy)) {
      throw new ToolOutputError(`${where}: field spec.internalTrafficPolicy: expected Cluster or Local, got ${JSON.stringify(svc.internalTrafficPolicy)}`);
    }
    if (svc.ports.length !== 1) throw new ToolOutputError(`${where}: field spec.ports: expected exactly one port, got ${svc.ports.length}`);
    const port = svc.ports[0]!;
    if (typeof port.targetPort !== 'number') {
      throw new ToolOutputError(`${where}: field spec.ports[0].targetPort: expected a number, got "${port.targetPort}"`);
    }
    if (outside && port.nodePort === null) throw new ToolOutputError(`${where}: field spec.ports[0].nodePort: expected an allocated NodePort`);
    return {
      name: svc.name,
      namespace: svc.namespace,
      type: svc.type as ServiceType,
      externalTrafficPolicy: outside ? (svc.externalTrafficPolicy as TrafficPolicy) : null,
      internalTrafficPolicy: svc.internalTrafficPolicy,
      clusterIP: ipv4(svc.clusterIP, where, 'spec.clusterIP'),
      port: port.port,
      targetPort: port.targetPort,
      nodePort: port.nodePort,
      healthCheckNodePort: svc.healthCheckNodePort,
    };
  });
}

export interface HealthCheckWait {
  service: string;
  /** Logical node whose kube-proxy must report the local endpoint. */
  node: string;
  port: number;
  /** How many ready Pods of the Service run on that node: kube-proxy has synced when it reports them all. */
  endpoints: number;
}

export const selects = (selector: Record<string, string>, labels: Record<string, string>): boolean =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

/**
 * Where kube-proxy must already report a local endpoint before the steps run:
 * for every declared Service with a healthCheckNodePort, each node running a
 * ready Pod it selects. Polling those tells us kube-proxy has synced its rules.
 */
export function healthChecksToAwait(pods: KubePod[], services: KubeService[], wanted: ObjectRef[], naming: NodeNaming): HealthCheckWait[] {
  const waits: HealthCheckWait[] = [];
  for (const ref of wanted) {
    const svc = services.find((s) => s.name === ref.name && s.namespace === ref.namespace);
    if (!svc || svc.healthCheckNodePort === null) continue;
    const perNode = new Map<string, number>();
    for (const p of pods.filter((p) => p.namespace === svc.namespace && p.ready && !p.terminating && p.nodeName && selects(svc.selector, p.labels))) {
      const node = naming.logical(p.nodeName!, `kubectl get pods -o json pod ${p.namespace}/${p.name}`);
      perNode.set(node, (perNode.get(node) ?? 0) + 1);
    }
    for (const [node, endpoints] of perNode) waits.push({ service: svc.name, node, port: svc.healthCheckNodePort, endpoints });
  }
  return waits;
}
