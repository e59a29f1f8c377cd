// The kindnetd part of the lab kubelet: with kindnet's own identity it watches
// every Node, routes each other node's pod CIDR via that node's InternalIP,
// and once its own node has a podCIDR writes kindnet's CNI conflist (the MTU
// read from the node's interface), which is when the node's network is ready.
import { join } from 'node:path';
import type { WatchEvent } from './api.ts';
import { kindnetConflist, type Json } from './objects.ts';

export interface Route {
  node: string;
  cidr: string;
  via: string;
}

/** A Node's podCIDR and InternalIP, or null while the API has not given it both. */
export function nodeRoute(node: Json): Route | null {
  const name = String((node.metadata as Json | undefined)?.name ?? '');
  const cidr = (node.spec as Json | undefined)?.podCIDR;
  const addresses = (node.status as Json | undefined)?.addresses as { type?: string; address?: string }[] | undefined;
  const via = addresses?.find((a) => a.type === 'InternalIP')?.address;
  if (name === '' || typeof cidr !== 'string' || typeof via !== 'string') return null;
  return { node: name, cidr, via };
}

/** The `ip route replace` kindnetd's route amounts to. */
export function routeArgv(route: Route): string[] {
  return ['ip', 'route', 'replace', route.cidr, 'via', route.via];
}

/** The MTU of the interface that holds `address`, from `ip -j address show` (iproute2's JSON). */
export function mtuOfAddress(ipJson: string, address: string): number {
  const links = JSON.parse(ipJson) as { ifname?: string; mtu?: number; addr_info?: { local?: string }[] }[];
  const link = links.find((l) => (l.addr_info ?? []).some((a) => a.local === address));
  if (link === undefined || typeof link.mtu !== 'number') throw new Error(`ip -j address show: expected an interface with address ${address} and its mtu`);
  return link.mtu;
}

export interface KindnetIO {
  run(argv: string[]): Promise<{ stdout: string; stderr: string }>;
  writeFile(path: string, content: string): void;
  log(line: string): void;
}

export class Kindnet {
  private readonly nodeName: string;
  private readonly nodeIP: string;
  private readonly stateDir: string;
  private readonly io: KindnetIO;
  private readonly onConfigured: (conflist: Json) => Promise<void>;
  /** The routes programmed so far: pod CIDR to the address it goes via. */
  private readonly routed = new Map<string, string>();
  private configuring: Promise<void> | null = null;
  private mtuRead: number | null = null;
  conflist: Json | null = null;

  constructor(options: { nodeName: string; nodeIP: string; stateDir: string; io: KindnetIO; onConfigured: (conflist: Json) => Promise<void> }) {
    this.nodeName = options.nodeName;
    this.nodeIP = options.nodeIP;
    this.stateDir = options.stateDir;
    this.io = options.io;
    this.onConfigured = options.onConfigured;
  }

  /** The MTU the conflist was written with, once it was. */
  get mtu(): number | null {
    return this.mtuRead;
  }

  /** What kindnetd does when it sees a Node: its own gets the CNI conflist, any other a route. */
  async onNode(node: Json): Promise<void> {
    const route = nodeRoute(node);
    if (route === null) return;
    if (route.node === this.nodeName) {
      // One configuration; a failed one is tried again on the next event.
      this.configuring ??= this.configure(route.cidr).catch((error: unknown) => {
        this.configuring = null;
        throw error;
      });
      return this.configuring;
    }
    if (this.routed.get(route.cidr) === route.via) return;
    await this.io.run(routeArgv(route));
    this.routed.set(route.cidr, route.via);
    this.io.log(`route ${route.cidr} via ${route.via} (${route.node})`);
  }

  onEvent(event: WatchEvent): Promise<void> {
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return Promise.resolve();
    return this.onNode(event.object);
  }

  private async configure(podCIDR: string): Promise<void> {
    this.mtuRead = mtuOfAddress((await this.io.run(['ip', '-j', 'address', 'show'])).stdout, this.nodeIP);
    const conflist = kindnetConflist(podCIDR, join(this.stateDir, 'cni-ipam-state'), this.mtuRead);
    this.io.writeFile(join(this.stateDir, 'cni', '10-kindnet.conflist'), `${JSON.stringify(conflist, null, 2)}\n`);
    this.conflist = conflist;
    this.io.log(`podCIDR ${podCIDR}: CNI configured (mtu ${this.mtuRead})`);
    await this.onConfigured(conflist);
  }
}
