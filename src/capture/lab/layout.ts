// The lab's nodes, decided before anything is created: a network namespace per
// node on one bridge, with kind's addressing. Everything else (pod CIDRs, pod
// addresses, ClusterIPs, NodePorts) is the real control plane's to allocate.
// Pure: no I/O.
import type { Experiment, NodeRole } from '../../experiment/types.ts';
import { hostAddress } from './allocate.ts';
import { bridgeNamespace, bridgePortName, MAX_INTERFACE_NAME, nodeNamespace, runNamespacePrefix } from './names.ts';

/** docker's network for kind, often 172.18.0.0/16 (docker picks it; kind does not fix it): the lab's default. */
export const NODE_SUBNET = '172.18.0.0/16';

export interface LabNode {
  /** Logical name used by steps: control-plane, worker, worker2. */
  name: string;
  /** The Kubernetes node name, e.g. kx-main-worker. */
  k8sName: string;
  role: NodeRole;
  internalIP: string;
  netns: string;
  /** The node's veth end inside the bridge namespace. */
  bridgePort: string;
}

export interface LabLayout {
  runId: string;
  /** The nodes' network (docker's `kind` network in a kind cluster). */
  nodeSubnet: string;
  clusterName: string;
  podSubnet: string;
  serviceSubnet: string;
  bridgeNetns: string;
  /** Pods' namespaces are made by the lab kubelet: `<prefix>pod.<namespace>.<name>`. */
  podNetnsPrefix: string;
  nodes: LabNode[];
}

/** An experiment the lab cannot build; the message names what and why. */
export class LabLayoutError extends Error {
  override name = 'LabLayoutError';
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

export function buildLabLayout(experiment: Experiment, runId: string, nodeSubnet: string = NODE_SUBNET): LabLayout {
  const { cluster } = experiment;
  const controlPlanes = cluster.nodes.filter((n) => n.role === 'control-plane');
  if (controlPlanes.length !== 1) {
    throw new LabLayoutError(`experiment ${experiment.slug}: cluster.nodes: the lab runs exactly one control-plane node, got ${controlPlanes.length}`);
  }
  const ipOf = new Map(addressOrder(cluster.nodes).map((n, i) => [n.name, hostAddress(nodeSubnet, 2 + i)]));
  const nodes = cluster.nodes.map((spec): LabNode => {
    const node: LabNode = {
      name: spec.name,
      k8sName: `${cluster.name}-${spec.name}`,
      role: spec.role,
      internalIP: ipOf.get(spec.name) as string,
      netns: nodeNamespace(runId, spec.name),
      bridgePort: bridgePortName(spec.name),
    };
    if (node.bridgePort.length > MAX_INTERFACE_NAME) {
      throw new LabLayoutError(`node ${spec.name}: interface name ${node.bridgePort} is longer than ${MAX_INTERFACE_NAME} characters`);
    }
    return node;
  });
  if (new Set(nodes.map((n) => n.bridgePort)).size !== nodes.length) {
    throw new LabLayoutError(`experiment ${experiment.slug}: two nodes hash to the same bridge port name`);
  }
  return {
    runId,
    nodeSubnet,
    clusterName: cluster.name,
    podSubnet: cluster.podSubnet,
    serviceSubnet: cluster.serviceSubnet,
    bridgeNetns: bridgeNamespace(runId),
    podNetnsPrefix: runNamespacePrefix(runId),
    nodes,
  };
}

export function controlPlaneOf(layout: LabLayout): LabNode {
  return layout.nodes.find((n) => n.role === 'control-plane') as LabNode;
}
