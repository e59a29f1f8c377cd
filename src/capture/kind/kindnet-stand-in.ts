// kindnetd's part, and only that, stood in for. kind's default CNI is kindnetd,
// a daemon whose image is not in a node image built without a registry. Where
// the cluster runs without it (kind's `disableDefaultCNI: true`), this writes on
// every node what kindnetd writes and programs there
// (kind images/kindnetd/cmd/kindnetd): the CNI config `10-kindnet.conflist`
// (ptp with host-local IPAM on the node's podCIDR, then portmap) and a route to
// every other node's podCIDR via that node's InternalIP. kubelet, containerd,
// runc, the CNI plugins and the kernel then do the rest, for real. Not stood in
// for: kindnetd's masquerade agent (pod traffic to addresses outside the pod
// subnet), which no path of the experiments takes.
import { DriverError } from '../driver.ts';

export const KINDNET_CONFLIST = '/etc/cni/net.d/10-kindnet.conflist';

export interface StandInNode {
  /** The node container (and Kubernetes node) name. */
  container: string;
  internalIP: string;
  podCIDR: string;
}

/** kindnetd's conflist for one node (cniVersion 0.3.1, as its template writes it). */
export function kindnetConflist(podCIDR: string, mtu: number): string {
  const conflist = {
    cniVersion: '0.3.1',
    name: 'kindnet',
    plugins: [
      {
        type: 'ptp',
        ipMasq: false,
        ipam: { type: 'host-local', dataDir: '/run/cni-ipam-state', routes: [{ dst: '0.0.0.0/0' }], ranges: [[{ subnet: podCIDR }]] },
        mtu,
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
  return `${JSON.stringify(conflist, null, 2)}\n`;
}

/** The routes kindnetd programs on `node`: every other node's podCIDR via its InternalIP. */
export function kindnetRoutes(node: StandInNode, all: StandInNode[]): string[][] {
  return all.filter((other) => other.container !== node.container).map((other) => ['ip', 'route', 'replace', other.podCIDR, 'via', other.internalIP]);
}

/** eth0's MTU as `cat /sys/class/net/eth0/mtu` prints it (kindnetd gives the pods the node's MTU). */
export function parseMtu(stdout: string, node: string): number {
  const mtu = Number(stdout.trim());
  if (!Number.isInteger(mtu) || mtu < 576 || mtu > 65535) {
    throw new DriverError(`${node}: /sys/class/net/eth0/mtu: expected an MTU, got ${JSON.stringify(stdout.trim())}`);
  }
  return mtu;
}

/** Runs an argv on a node container (with `input` on its stdin) and returns its stdout; throws on failure. */
export type NodeCommand = (container: string, argv: string[], what: string, input?: string) => Promise<string>;

/** What kindnetd would have done on each node, done once the nodes have their podCIDRs. */
export async function standInForKindnetd(nodes: StandInNode[], run: NodeCommand): Promise<void> {
  for (const node of nodes) {
    const mtu = parseMtu(await run(node.container, ['cat', '/sys/class/net/eth0/mtu'], `read eth0's MTU on ${node.container}`), node.container);
    await run(node.container, ['mkdir', '-p', '/etc/cni/net.d'], `create /etc/cni/net.d on ${node.container}`);
    await run(node.container, ['tee', KINDNET_CONFLIST], `write ${KINDNET_CONFLIST} on ${node.container}`, kindnetConflist(node.podCIDR, mtu));
    for (const route of kindnetRoutes(node, nodes)) {
      await run(node.container, route, `route ${route[3]} via ${route[5]} on ${node.container}`);
    }
  }
}
