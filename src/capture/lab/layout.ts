// What the lab builds for an experiment, decided before anything is created:
// nodes, pods and their addresses; Services with their allocated ClusterIPs and
// NodePorts; the endpoints kube-proxy would see. Pure: no I/O, randomness injected.
import type { ConfigMapManifest, ContainerManifest, ManifestSet, PodManifest, ServiceManifest, ServicePortManifest } from '../../experiment/manifests.ts';
import type { Experiment, NodeInfo, NodeRole, PodInfo, ServiceInfo, Topology } from '../../experiment/types.ts';
import type { ProxyEndpoint, ProxyNodeInput, ProxyServicePort } from '../kubeproxy/model.ts';
import { allocateClusterIP, allocateNodePort, hostAddress, subnet, type RandomInt } from './allocate.ts';
import { bridgeNamespace, bridgePortName, MAX_INTERFACE_NAME, nodeNamespace, podNamespace, podVethName } from './names.ts';

/** docker's network for kind, often 172.18.0.0/16; the lab always uses it. */
export const NODE_SUBNET = '172.18.0.0/16';
/** Where the image's nginx.conf includes server blocks from (`include /etc/nginx/conf.d/*.conf`). */
export const NGINX_CONF_DIR = '/etc/nginx/conf.d';
/** What actually serves a pod in the lab, whatever nginx image the manifest names. */
export const LAB_NGINX = '/usr/sbin/nginx (Debian nginx-light)';

export interface LabNode extends NodeInfo {
  netns: string;
  /** The node's veth end inside the bridge namespace. */
  bridgePort: string;
  /** The pod gateway (first address of the node's pod CIDR), set on every pod veth as a /32. */
  podGateway: string;
}

export interface LabConfigFile {
  /** Path inside the container: mountPath + key. */
  containerPath: string;
  content: string;
}

export interface LabPod {
  name: string;
  namespace: string;
  /** Logical node name. */
  node: string;
  ip: string;
  gateway: string;
  netns: string;
  /** The pod veth's end in the node namespace. */
  hostVeth: string;
  labels: Record<string, string>;
  /** The image the manifest asks for; the lab runs LAB_NGINX in its place. */
  manifestImage: string;
  container: ContainerManifest;
  configFiles: LabConfigFile[];
  origin: string;
}

export interface LabLayout {
  runId: string;
  clusterName: string;
  podSubnet: string;
  serviceSubnet: string;
  bridgeNetns: string;
  nodes: LabNode[];
  pods: LabPod[];
}

export interface LabServicePort extends ServicePortManifest {
  /** Allocated (or the manifest's) NodePort; null for ClusterIP Services. */
  allocatedNodePort: number | null;
}

export interface LabService {
  name: string;
  namespace: string;
  type: ServiceManifest['type'];
  externalTrafficPolicy: 'Cluster' | 'Local';
  selector: Record<string, string>;
  clusterIP: string;
  ports: LabServicePort[];
  healthCheckNodePort: number | null;
  origin: string;
}

/** An experiment the lab cannot build; the message names the file, the object and the field. */
export class LabLayoutError extends Error {
  override name = 'LabLayoutError';
}

function originOf(object: { file: string; document: number; kind: string; name: string }): string {
  return `${object.file}: document ${object.document + 1} (${object.kind} ${object.name})`;
}

/**
 * Node addresses in the published run's order (worker .2, control-plane .3,
 * worker2 .4): docker hands them out as kind's node containers start, in no
 * fixed order, so any order is one a real run could show.
 */
function addressOrder<T extends { role: NodeRole }>(nodes: T[]): T[] {
  const workers = nodes.filter((n) => n.role === 'worker');
  const controlPlanes = nodes.filter((n) => n.role === 'control-plane');
  return [...workers.slice(0, 1), ...controlPlanes, ...workers.slice(1)];
}

/** Pod CIDRs in registration order: the control-plane registers first, then the workers. */
function podCidrOrder<T extends { role: NodeRole }>(nodes: T[]): T[] {
  return [...nodes.filter((n) => n.role === 'control-plane'), ...nodes.filter((n) => n.role === 'worker')];
}

function checkInterfaceName(name: string, what: string): void {
  if (name.length > MAX_INTERFACE_NAME) throw new LabLayoutError(`${what}: interface name ${name} is longer than ${MAX_INTERFACE_NAME} characters`);
}

function layoutNodes(experiment: Experiment, runId: string): LabNode[] {
  const { cluster } = experiment;
  const ipOf = new Map(addressOrder(cluster.nodes).map((n, i) => [n.name, hostAddress(NODE_SUBNET, 2 + i)]));
  const cidrOf = new Map(podCidrOrder(cluster.nodes).map((n, i) => [n.name, subnet(cluster.podSubnet, 24, i)]));
  const nodes = cluster.nodes.map((spec): LabNode => {
    const podCIDR = cidrOf.get(spec.name) as string;
    const node: LabNode = {
      name: spec.name,
      k8sName: `${cluster.name}-${spec.name}`,
      role: spec.role,
      internalIP: ipOf.get(spec.name) as string,
      podCIDR,
      netns: nodeNamespace(runId, spec.name),
      bridgePort: bridgePortName(spec.name),
      podGateway: hostAddress(podCIDR, 1),
    };
    checkInterfaceName(node.bridgePort, `node ${spec.name}`);
    return node;
  });
  const ports = new Set(nodes.map((n) => n.bridgePort));
  if (ports.size !== nodes.length) throw new LabLayoutError(`experiment ${experiment.slug}: two nodes hash to the same bridge port name`);
  return nodes;
}

/** kube-scheduler's outcome for the experiments: the pinned node, else the least busy worker (control-planes are tainted). */
function scheduleNode(pod: PodManifest, nodes: LabNode[], podsPerNode: Map<string, number>): LabNode {
  if (pod.hostname !== null) {
    const node = nodes.find((n) => n.k8sName === pod.hostname);
    if (node === undefined) {
      throw new LabLayoutError(
        `${originOf(pod)}: spec.nodeSelector["kubernetes.io/hostname"]: expected one of ${nodes.map((n) => n.k8sName).join(', ')}, got ${JSON.stringify(pod.hostname)}`,
      );
    }
    return node;
  }
  const workers = nodes.filter((n) => n.role === 'worker');
  if (workers.length === 0) throw new LabLayoutError(`${originOf(pod)}: no worker node to schedule it on`);
  return workers.reduce((best, n) => ((podsPerNode.get(n.name) ?? 0) < (podsPerNode.get(best.name) ?? 0) ? n : best));
}

function isNginxImage(image: string): boolean {
  const withoutTag = image.split('@')[0]?.replace(/:[^/:]*$/, '') ?? '';
  const repository = withoutTag.split('/').pop();
  return repository === 'nginx';
}

function podConfigFiles(pod: PodManifest, container: ContainerManifest, configMaps: ConfigMapManifest[]): LabConfigFile[] {
  const files: LabConfigFile[] = [];
  for (const mount of container.configMapMounts) {
    const configMap = configMaps.find((c) => c.name === mount.configMap && c.namespace === pod.namespace);
    if (configMap === undefined) {
      throw new LabLayoutError(
        `${originOf(pod)}: spec.volumes(${mount.volume}).configMap.name: expected a ConfigMap of namespace ${pod.namespace} in the manifests, got ${JSON.stringify(mount.configMap)}`,
      );
    }
    for (const [key, content] of Object.entries(configMap.data)) {
      files.push({ containerPath: `${mount.mountPath.replace(/\/+$/, '')}/${key}`, content });
    }
  }
  if (!container.configMapMounts.some((m) => m.mountPath.replace(/\/+$/, '') === NGINX_CONF_DIR)) {
    throw new LabLayoutError(
      `${originOf(pod)}: spec.containers[0].volumeMounts: expected a ConfigMap mounted at ${NGINX_CONF_DIR} (the lab serves only the manifest's own server blocks), got none there`,
    );
  }
  return files;
}

function layoutPods(manifests: ManifestSet, nodes: LabNode[], runId: string): LabPod[] {
  const podsPerNode = new Map<string, number>();
  return manifests.pods.map((pod): LabPod => {
    if (pod.containers.length !== 1) {
      throw new LabLayoutError(`${originOf(pod)}: spec.containers: expected exactly one container (the lab runs one nginx per pod), got ${pod.containers.length}`);
    }
    const container = pod.containers[0] as ContainerManifest;
    if (!isNginxImage(container.image)) {
      throw new LabLayoutError(`${originOf(pod)}: spec.containers[0].image: expected an nginx image (the lab runs Debian's nginx-light in its place), got ${JSON.stringify(container.image)}`);
    }
    const node = scheduleNode(pod, nodes, podsPerNode);
    const onNode = podsPerNode.get(node.name) ?? 0;
    podsPerNode.set(node.name, onNode + 1);
    const hostVeth = podVethName(pod.namespace, pod.name);
    checkInterfaceName(hostVeth, originOf(pod));
    return {
      name: pod.name,
      namespace: pod.namespace,
      node: node.name,
      // host-local IPAM: .1 is the gateway, pods count up from .2.
      ip: hostAddress(node.podCIDR, 2 + onNode),
      gateway: node.podGateway,
      netns: podNamespace(runId, pod.namespace, pod.name),
      hostVeth,
      labels: pod.labels,
      manifestImage: container.image,
      container,
      configFiles: podConfigFiles(pod, container, manifests.configMaps),
      origin: originOf(pod),
    };
  });
}

export function buildLabLayout(experiment: Experiment, manifests: ManifestSet, runId: string): LabLayout {
  const nodes = layoutNodes(experiment, runId);
  return {
    runId,
    clusterName: experiment.cluster.name,
    podSubnet: experiment.cluster.podSubnet,
    serviceSubnet: experiment.cluster.serviceSubnet,
    bridgeNetns: bridgeNamespace(runId),
    nodes,
    pods: layoutPods(manifests, nodes, runId),
  };
}

/** ClusterIPs and NodePorts as the API server allocates them; only LoadBalancer + Local gets a healthCheckNodePort. */
export function allocateServices(services: ServiceManifest[], serviceSubnet: string, random: RandomInt): LabService[] {
  const clusterIPs = new Set<string>();
  const nodePorts = new Set<number>();
  for (const service of services) {
    for (const [i, port] of service.ports.entries()) {
      if (port.nodePort === null) continue;
      if (nodePorts.has(port.nodePort)) {
        throw new LabLayoutError(`${originOf(service)}: spec.ports[${i}].nodePort: expected a port no other Service uses, got ${port.nodePort}`);
      }
      nodePorts.add(port.nodePort);
    }
  }
  return services.map((service): LabService => {
    const clusterIP = allocateClusterIP(serviceSubnet, clusterIPs, random);
    clusterIPs.add(clusterIP);
    const ports = service.ports.map((port): LabServicePort => {
      if (service.type === 'ClusterIP') return { ...port, allocatedNodePort: null };
      const nodePort = port.nodePort ?? allocateNodePort(nodePorts, random);
      nodePorts.add(nodePort);
      return { ...port, allocatedNodePort: nodePort };
    });
    let healthCheckNodePort: number | null = null;
    if (service.type === 'LoadBalancer' && service.externalTrafficPolicy === 'Local') {
      healthCheckNodePort = allocateNodePort(nodePorts, random);
      nodePorts.add(healthCheckNodePort);
    }
    return {
      name: service.name,
      namespace: service.namespace,
      type: service.type,
      externalTrafficPolicy: service.externalTrafficPolicy,
      selector: service.selector,
      clusterIP,
      ports,
      healthCheckNodePort,
      origin: originOf(service),
    };
  });
}

function selects(service: LabService, pod: LabPod): boolean {
  const entries = Object.entries(service.selector);
  return pod.namespace === service.namespace && entries.length > 0 && entries.every(([k, v]) => pod.labels[k] === v);
}

/** A targetPort as the EndpointSlice controller resolves it for one pod; null when the pod has no such named port. */
function resolveTargetPort(port: LabServicePort, pod: LabPod): number | null {
  if (typeof port.targetPort === 'number') return port.targetPort;
  const named = pod.container.ports.find((p) => p.name === port.targetPort && p.protocol === port.protocol);
  return named === undefined ? null : named.containerPort;
}

/** The ready endpoints of every Service port, given the pods that are running and ready. */
export function serviceEndpoints(services: LabService[], readyPods: LabPod[], nodes: LabNode[]): ProxyEndpoint[] {
  const endpoints: ProxyEndpoint[] = [];
  for (const service of services) {
    for (const pod of readyPods.filter((p) => selects(service, p))) {
      const node = nodes.find((n) => n.name === pod.node) as LabNode;
      for (const port of service.ports) {
        const target = resolveTargetPort(port, pod);
        if (target === null) continue;
        endpoints.push({ namespace: service.namespace, service: service.name, portName: port.name, ip: pod.ip, port: target, nodeName: node.k8sName });
      }
    }
  }
  return endpoints;
}

export function proxyServicePorts(services: LabService[]): ProxyServicePort[] {
  return services.flatMap((service) =>
    service.ports.map((port): ProxyServicePort => ({
      namespace: service.namespace,
      name: service.name,
      portName: port.name,
      protocol: port.protocol,
      clusterIP: service.clusterIP,
      port: port.port,
      nodePort: port.allocatedNodePort,
      healthCheckNodePort: service.healthCheckNodePort,
      externalTrafficPolicy: service.externalTrafficPolicy,
    })),
  );
}

/** kube-proxy's view on one node. */
export function proxyInput(layout: LabLayout, node: LabNode, services: LabService[], readyPods: LabPod[]): ProxyNodeInput {
  return {
    nodeName: node.k8sName,
    clusterCIDR: layout.podSubnet,
    services: proxyServicePorts(services),
    endpoints: serviceEndpoints(services, readyPods, layout.nodes),
  };
}

function serviceInfo(service: LabService, pods: LabPod[]): ServiceInfo {
  if (service.ports.length !== 1) {
    throw new LabLayoutError(`${service.origin}: spec.ports: expected one port (run.yaml records one port per Service), got ${service.ports.length}`);
  }
  const port = service.ports[0] as LabServicePort;
  if (port.allocatedNodePort === null) {
    throw new LabLayoutError(`${service.origin}: spec.type: expected NodePort or LoadBalancer (run.yaml records a NodePort per Service), got ${service.type}`);
  }
  let targetPort: number | null = typeof port.targetPort === 'number' ? port.targetPort : null;
  for (const pod of pods.filter((p) => selects(service, p))) targetPort ??= resolveTargetPort(port, pod);
  if (targetPort === null) {
    throw new LabLayoutError(`${service.origin}: spec.ports[0].targetPort: expected a number or the name of a selected pod's container port, got ${JSON.stringify(port.targetPort)}`);
  }
  return {
    name: service.name,
    namespace: service.namespace,
    type: service.type,
    externalTrafficPolicy: service.externalTrafficPolicy,
    clusterIP: service.clusterIP,
    port: port.port,
    targetPort,
    nodePort: port.allocatedNodePort,
    healthCheckNodePort: service.healthCheckNodePort,
  };
}

/** What the run found: the lab's nodes, pods and Services in the snapshot's vocabulary. */
export function labTopology(layout: LabLayout, services: LabService[]): Topology {
  return {
    nodes: layout.nodes.map(({ name, k8sName, role, internalIP, podCIDR }) => ({ name, k8sName, role, internalIP, podCIDR })),
    pods: layout.pods.map((pod): PodInfo => ({ name: pod.name, namespace: pod.namespace, node: pod.node, ip: pod.ip, image: LAB_NGINX })),
    services: services.map((service) => serviceInfo(service, layout.pods)),
  };
}
