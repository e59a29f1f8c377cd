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
import { DriverError } from '../provider/node-provider.ts';
import type { Decision, NodeDecisions } from '../provider/stand-in.ts';

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

/**
 * What the stand-in wrote on one node, each value with where it came from: the
 * conflist's shape is kindnetd's template (the stand-in's), its MTU and range and
 * the routes are read from the node and the API server.
 */
export function kindnetDecisions(node: StandInNode, all: StandInNode[], mtu: number): Decision[] {
  const routes = kindnetRoutes(node, all).map((r) => `${r[3]} via ${r[5]}`);
  return [
    {
      field: 'cni.conflist',
      value: 'ptp (ipMasq false, host-local IPAM), portmap',
      source: 'stand-in',
      en: 'The CNI configuration is kindnetd’s template for 10-kindnet.conflist, written by shice’s stand-in: kindnetd itself did not run.',
      zh: 'CNI 配置按 kindnetd 的 10-kindnet.conflist 模板由 shice 的替身写入：kindnetd 本身没有运行。',
    },
    {
      field: 'cni.conflist.mtu',
      value: String(mtu),
      source: 'read',
      from: '/sys/class/net/eth0/mtu on the node',
      en: 'The pods’ MTU is that of the node’s eth0, as kindnetd sets it.',
      zh: 'Pod 的 MTU 取自节点 eth0 的 MTU，与 kindnetd 的做法相同。',
    },
    {
      field: `cni.conflist.ranges (${node.container})`,
      value: node.podCIDR,
      source: 'read',
      from: "the Node's spec.podCIDR (kube-controller-manager's node IPAM)",
      en: 'The node’s pod range is the podCIDR kube-controller-manager gave the Node.',
      zh: '节点的 Pod 地址段是 kube-controller-manager 分给这个 Node 的 podCIDR。',
    },
    {
      field: `routes (${node.container})`,
      value: routes.join('; ') || 'none',
      source: 'read',
      from: "the other Nodes' spec.podCIDR and InternalIP",
      en: 'A route to every other node’s pod range via that node’s address, programmed by the stand-in (ip route replace) as kindnetd programs it.',
      zh: '到其他每个节点 Pod 地址段的路由，经由那个节点的地址，由替身按 kindnetd 的方式写入（ip route replace）。',
    },
    {
      field: 'masquerade',
      value: 'none',
      source: 'stand-in',
      en: 'kindnetd’s masquerade rules for pod traffic leaving the cluster were not written; no step of the experiments sends such traffic.',
      zh: 'kindnetd 为离开集群的 Pod 流量设置的伪装规则没有写；实验里没有哪一步发出这样的流量。',
    },
  ];
}

/**
 * What kindnetd would have done on each node, done once the nodes have their podCIDRs; what was
 * written, per node. Each node's part is its own (kindnetd runs on every node at once), so the
 * nodes are done side by side; a failure is the first node's in order.
 */
export async function standInForKindnetd(nodes: StandInNode[], run: NodeCommand): Promise<NodeDecisions[]> {
  const onNode = async (node: StandInNode): Promise<NodeDecisions> => {
    // What does not wait on another runs beside it: the MTU and the folder, then the conflist (which needs
    // both) and the routes (which need neither). Each is one exec on the node; side by side they take one's time.
    const [mtuText] = await Promise.all([
      run(node.container, ['cat', '/sys/class/net/eth0/mtu'], `read eth0's MTU on ${node.container}`),
      run(node.container, ['mkdir', '-p', '/etc/cni/net.d'], `create /etc/cni/net.d on ${node.container}`),
    ]);
    const mtu = parseMtu(mtuText, node.container);
    await Promise.all([
      run(node.container, ['tee', KINDNET_CONFLIST], `write ${KINDNET_CONFLIST} on ${node.container}`, kindnetConflist(node.podCIDR, mtu)),
      ...kindnetRoutes(node, nodes).map((route) => run(node.container, route, `route ${route[3]} via ${route[5]} on ${node.container}`)),
    ]);
    return { node: node.container, decisions: kindnetDecisions(node, nodes, mtu) };
  };
  const settled = await Promise.allSettled(nodes.map(onNode));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<NodeDecisions>).value);
}
