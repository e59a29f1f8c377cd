// The ip(8) commands that build the lab's network. Every address, route and
// interface lives in a namespace the lab creates: veths are created inside the
// namespaces (`ip -n A link add ... peer ... netns B`), so the root namespace
// never sees them.
//
// Each namespace's ip commands form one batch; the capture creates the
// namespaces with one root-level `ip -batch`, then runs the rest of the network
// as another (each namespace's batch from a file, in build order), while a dry
// run prints every command as the standalone command line it is equivalent to.
import { hostAddress } from './allocate.ts';
import { batchCommands, netnsExecCommand, type IpBatch } from './ip-batch.ts';
import type { LabLayout, LabNode } from './layout.ts';
import { BRIDGE_INTERFACE, INNER_INTERFACE } from './names.ts';

/** Where `ip netns add` mounts a named namespace (iproute2's NETNS_RUN_DIR). */
export const NETNS_RUN_DIR = '/var/run/netns';

/** The whole network of a lab, in the order it can be built. */
export interface LabNetwork {
  /** The bridge's and every node's: everything else runs inside them (pods' are the lab kubelet's). */
  namespaces: string[];
  /** The bridge, and every node's veth with its bridge end enslaved (the node end lands in the node's namespace). */
  bridge: IpBatch;
  /** Per node, after the bridge: its address; and its sysctls. */
  nodes: { node: LabNode; batch: IpBatch; sysctl: string[] }[];
}

function prefixLength(cidr: string): string {
  return cidr.split('/')[1] as string;
}

export function netnsExec(netns: string, command: string[]): string[] {
  return ['ip', 'netns', 'exec', netns, ...command];
}

/**
 * Runs `command` in a named network namespace and nothing else: unlike
 * `ip netns exec`, which also gives the command a mount namespace of its own,
 * whatever it mounts (the namespaces it adds with `ip netns add`) is seen by all.
 */
export function nsenterNet(netns: string, command: string[]): string[] {
  return ['nsenter', `--net=${NETNS_RUN_DIR}/${netns}`, '--', ...command];
}

/** Forwarding, which kind's node containers have on; kube-proxy sets its own sysctls itself. */
const NODE_SYSCTL = ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1'];

/**
 * The nodes' default gateway, as docker's network gives kind's node containers one (its first
 * address). Here it is the bridge's own address, inside the bridge's namespace, which forwards
 * nothing: a packet a node routes by default (to a ClusterIP no rule rewrote) meets the node's own
 * filter rules first, as on kind, instead of "network unreachable".
 */
export const gatewayOf = (nodeSubnet: string) => hostAddress(nodeSubnet, 1);

function bridgeBatch(layout: LabLayout): IpBatch {
  return {
    netns: layout.bridgeNetns,
    commands: [
      ['link', 'set', 'lo', 'up'],
      ['link', 'add', BRIDGE_INTERFACE, 'type', 'bridge'],
      ['addr', 'add', `${gatewayOf(layout.nodeSubnet)}/${prefixLength(layout.nodeSubnet)}`, 'dev', BRIDGE_INTERFACE],
      ['link', 'set', BRIDGE_INTERFACE, 'up'],
      ...layout.nodes.flatMap((node) => [
        ['link', 'add', node.bridgePort, 'type', 'veth', 'peer', 'name', INNER_INTERFACE, 'netns', node.netns],
        ['link', 'set', node.bridgePort, 'master', BRIDGE_INTERFACE],
        ['link', 'set', node.bridgePort, 'up'],
      ]),
    ],
  };
}

/** A node's address on the bridge. Routes to the pod CIDRs come later, from the lab kubelet (as kindnetd's do). */
function nodeBatch(node: LabNode, nodeSubnet: string): IpBatch {
  return {
    netns: node.netns,
    commands: [
      ['link', 'set', 'lo', 'up'],
      ['addr', 'add', `${node.internalIP}/${prefixLength(nodeSubnet)}`, 'dev', INNER_INTERFACE],
      ['link', 'set', INNER_INTERFACE, 'up'],
      ['route', 'add', 'default', 'via', gatewayOf(nodeSubnet)],
    ],
  };
}

export function labNetwork(layout: LabLayout, nodeSubnet: string): LabNetwork {
  return {
    namespaces: [layout.bridgeNetns, ...layout.nodes.map((n) => n.netns)],
    bridge: bridgeBatch(layout),
    nodes: layout.nodes.map((node) => ({ node, batch: nodeBatch(node, nodeSubnet), sysctl: NODE_SYSCTL })),
  };
}

/** Each namespace's batch, in build order: the bridge, then the nodes. */
export function namespaceBatches(network: LabNetwork): IpBatch[] {
  return [network.bridge, ...network.nodes.map((n) => n.batch)];
}

/** The namespaces, created first: everything else runs inside them. */
export function namespacesBatch(network: LabNetwork): IpBatch {
  return { netns: null, commands: network.namespaces.map((ns) => ['netns', 'add', ns]) };
}

/**
 * The network inside the namespaces as one root-level batch: in build order,
 * each namespace's batch read from `fileOf(batch)` inside it, and each node's
 * sysctls.
 */
export function networkScript(network: LabNetwork, fileOf: (batch: IpBatch) => string): IpBatch {
  const inside = (batch: IpBatch): string[] => netnsExecCommand(batch.netns as string, ['ip', '-batch', fileOf(batch)]);
  return {
    netns: null,
    commands: [inside(network.bridge), ...network.nodes.flatMap(({ node, batch, sysctl }) => [inside(batch), netnsExecCommand(node.netns, sysctl)])],
  };
}

/** Every command of the network as a standalone argv, in an order that builds it (for --dry-run and checks). */
export function networkCommands(network: LabNetwork): string[][] {
  return [
    ...network.namespaces.map((ns) => ['ip', 'netns', 'add', ns]),
    ...batchCommands(network.bridge),
    ...network.nodes.flatMap(({ node, batch, sysctl }) => [...batchCommands(batch), netnsExec(node.netns, sysctl)]),
  ];
}

/** Deleting a namespace destroys its interfaces and their veth peers; pods first, the bridge last. */
export function teardownCommands(namespaces: string[]): string[][] {
  return [...namespaces].reverse().map((ns) => ['ip', 'netns', 'del', ns]);
}
