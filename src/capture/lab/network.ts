// The ip(8) commands that build the lab's network, as argv lists. Every address,
// route and interface lives in a namespace the lab creates: veths are created
// inside the namespaces (`ip -n A link add ... peer ... netns B`), so the root
// namespace never sees them.
import type { LabLayout, LabNode, LabPod } from './layout.ts';
import { BRIDGE_INTERFACE, INNER_INTERFACE } from './names.ts';

export interface SetupPhase {
  /** One short progress line. */
  title: string;
  /** Command sequences that touch different namespaces: each runs in order, the sequences side by side. */
  sequences: string[][][];
}

/** A phase's commands in one list, as --dry-run prints them. */
export function phaseCommands(phase: SetupPhase): string[][] {
  return phase.sequences.flat();
}

function prefixLength(cidr: string): string {
  return cidr.split('/')[1] as string;
}

export function netnsExec(netns: string, command: string[]): string[] {
  return ['ip', 'netns', 'exec', netns, ...command];
}

/** Node sysctls: forwarding (kind's node image has it on) and route_localnet (kube-proxy sets it for localhost NodePorts). */
function nodeSysctls(node: LabNode): string[][] {
  return [
    netnsExec(node.netns, ['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']),
    netnsExec(node.netns, ['sysctl', '-q', '-w', 'net.ipv4.conf.all.route_localnet=1']),
  ];
}

function nodeOnBridge(layout: LabLayout, node: LabNode, nodeSubnet: string): string[][] {
  const br = layout.bridgeNetns;
  return [
    ['ip', '-n', node.netns, 'link', 'set', 'lo', 'up'],
    ['ip', '-n', node.netns, 'link', 'add', INNER_INTERFACE, 'type', 'veth', 'peer', 'name', node.bridgePort, 'netns', br],
    ['ip', '-n', br, 'link', 'set', node.bridgePort, 'master', BRIDGE_INTERFACE],
    ['ip', '-n', br, 'link', 'set', node.bridgePort, 'up'],
    ['ip', '-n', node.netns, 'addr', 'add', `${node.internalIP}/${prefixLength(nodeSubnet)}`, 'dev', INNER_INTERFACE],
    ['ip', '-n', node.netns, 'link', 'set', INNER_INTERFACE, 'up'],
    ...nodeSysctls(node),
  ];
}

/** kindnetd routes every other node's pod CIDR via that node's address. */
function podRoutes(layout: LabLayout, node: LabNode): string[][] {
  return layout.nodes
    .filter((other) => other.name !== node.name)
    .map((other) => ['ip', '-n', node.netns, 'route', 'add', other.podCIDR, 'via', other.internalIP]);
}

export function networkPhases(layout: LabLayout, nodeSubnet: string): SetupPhase[] {
  const namespaces = [layout.bridgeNetns, ...layout.nodes.map((n) => n.netns)];
  return [
    {
      title: `namespaces for the bridge and the nodes ${layout.nodes.map((n) => n.name).join(', ')}`,
      sequences: [namespaces.map((ns) => ['ip', 'netns', 'add', ns])],
    },
    {
      title: `bridge ${BRIDGE_INTERFACE} for ${nodeSubnet}`,
      sequences: [[
        ['ip', '-n', layout.bridgeNetns, 'link', 'set', 'lo', 'up'],
        ['ip', '-n', layout.bridgeNetns, 'link', 'add', BRIDGE_INTERFACE, 'type', 'bridge'],
        ['ip', '-n', layout.bridgeNetns, 'link', 'set', BRIDGE_INTERFACE, 'up'],
      ]],
    },
    {
      title: `nodes on the bridge: ${layout.nodes.map((n) => `${n.name} ${n.internalIP}`).join(', ')}`,
      sequences: layout.nodes.map((node) => nodeOnBridge(layout, node, nodeSubnet)),
    },
    {
      title: `pod CIDR routes: ${layout.nodes.map((n) => `${n.podCIDR} via ${n.name}`).join(', ')}`,
      sequences: layout.nodes.map((node) => podRoutes(layout, node)),
    },
  ];
}

/** What the CNI ptp plugin does for one pod: a veth, the gateway as /32 on the host side, a host route to the pod. */
export function podNetworkCommands(layout: LabLayout, pod: LabPod): string[][] {
  const node = layout.nodes.find((n) => n.name === pod.node) as LabNode;
  return [
    ['ip', 'netns', 'add', pod.netns],
    ['ip', '-n', pod.netns, 'link', 'set', 'lo', 'up'],
    ['ip', '-n', node.netns, 'link', 'add', pod.hostVeth, 'type', 'veth', 'peer', 'name', INNER_INTERFACE, 'netns', pod.netns],
    ['ip', '-n', node.netns, 'addr', 'add', `${pod.gateway}/32`, 'dev', pod.hostVeth],
    ['ip', '-n', node.netns, 'link', 'set', pod.hostVeth, 'up'],
    ['ip', '-n', node.netns, 'route', 'add', `${pod.ip}/32`, 'dev', pod.hostVeth, 'scope', 'link'],
    ['ip', '-n', pod.netns, 'addr', 'add', `${pod.ip}/${prefixLength(node.podCIDR)}`, 'dev', INNER_INTERFACE],
    ['ip', '-n', pod.netns, 'link', 'set', INNER_INTERFACE, 'up'],
    ['ip', '-n', pod.netns, 'route', 'add', 'default', 'via', pod.gateway],
  ];
}

/** Deleting a namespace destroys its interfaces and their veth peers; pods first, the bridge last. */
export function teardownCommands(namespaces: string[]): string[][] {
  return [...namespaces].reverse().map((ns) => ['ip', 'netns', 'del', ns]);
}
