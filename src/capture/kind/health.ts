// Whether a kind run's nodes are as up() left them: the node containers as docker
// reports them (running, started at; a stopped, restarted or vanished node is
// named). kubelet's /healthz inside each is the platform's to ask, with its own
// probes of the node (KIND_AGENT_HEALTHZ). Also what up() reports of each node,
// its address read from the same docker inspect. The probes of the platform's
// health check enter a node's network by nsenter where they can (0.02 s against
// docker exec's 0.1 s, asked of every node after every step).
import type { ProvidedNode, ProviderContext } from '../provider/node-provider.ts';
import * as cmd from './commands.ts';
import { OWNER_LABEL, OWNER_VALUE } from './config.ts';
import { containerOf, type KindScope } from './settings.ts';
import { nodeProblems, parseContainerPids, parseContainerStates, type ContainerState } from './tool-output.ts';

/** kubelet's own health server, on every node's loopback. */
export const KIND_AGENT_HEALTHZ: readonly (readonly [string, string])[] = [['kubelet', 'http://127.0.0.1:10248/healthz']];

/** Whether this process enters the nodes from this machine: their pids are this kernel's (shice's own engine), and entering takes root. */
export function entersNodes(scope: KindScope): boolean {
  return scope.engine !== null && process.getuid?.() === 0;
}

/** Each node container's init pid, by container, as docker reports it now. */
export async function nodePids(scope: KindScope, containers: string[], ctx: ProviderContext): Promise<Map<string, string>> {
  const run = await scope.tools.run(cmd.dockerContainerPids(containers), { what: "read the node containers' pids", ctx });
  return parseContainerPids(run.stdout);
}

export class NodeHealth {
  /** The node containers as the steps began: every later reading is compared with it. */
  private baseline: ContainerState[] = [];

  /**
   * Each node container's init pid as up() left it, by container, when the nodes run on this machine's
   * kernel (shice's own engine) and this process may enter them (root); otherwise none, and probes use docker exec.
   */
  private pids = new Map<string, string>();

  private readonly scope: KindScope;

  constructor(scope: KindScope) {
    this.scope = scope;
  }

  /** Reads the node containers as up() leaves them, and says what each node is. */
  async settle(ctx: ProviderContext): Promise<ProvidedNode[]> {
    this.baseline = await this.readStates(ctx);
    if (entersNodes(this.scope))
      this.pids = await nodePids(
        this.scope,
        this.scope.experiment.cluster.nodes.map((n) => containerOf(this.scope, n.name)),
        ctx,
      );
    return this.scope.experiment.cluster.nodes.map((node) => ({
      name: node.name,
      // kind names a node's container, and so its kubelet's node, <cluster>-<node>.
      k8sName: containerOf(this.scope, node.name),
      role: node.role,
      address: this.baseline.find((s) => s.name === containerOf(this.scope, node.name))?.address ?? null,
      // What the capture's kind config has every node register with.
      labels: { [OWNER_LABEL]: OWNER_VALUE },
    }));
  }

  /**
   * The argv of a host tool in the node's network namespace (a probe of its loopback): nsenter into the
   * container's init as settle() read it, or docker exec where this process cannot enter it. A restarted
   * node has another pid: the probe fails, and changes() names the restart.
   */
  probeArgv(node: string, command: string[]): string[] {
    const container = containerOf(this.scope, node);
    if (!entersNodes(this.scope)) return cmd.dockerExec(container, command);
    return cmd.nsenterNet(this.pids.get(container) ?? `<pid of ${container}, from docker container inspect>`, command);
  }

  /** What changed in the node containers since up(), one phrase each (a cluster deleted from outside said as that). */
  async changes(ctx?: ProviderContext): Promise<string[]> {
    return nodeProblems(this.scope.target.cluster, this.baseline, await this.readStates(ctx));
  }

  /** The node containers as up() left them: not stopped, not restarted, not gone. */
  problems(ctx: ProviderContext): Promise<string[]> {
    return this.changes(ctx);
  }

  private async readStates(ctx?: ProviderContext): Promise<ContainerState[]> {
    const containers = this.scope.experiment.cluster.nodes.map((n) => containerOf(this.scope, n.name));
    if (containers.length === 0) return [];
    const run = await this.scope.tools.run(cmd.dockerContainerStates(containers), {
      what: "read the node containers' state",
      check: 'exit',
      ...(ctx ? { ctx } : {}),
    });
    // A container docker no longer knows makes inspect fail for all: read it as gone.
    if (run.exitCode !== 0) return parseContainerStates(run.stdout).filter((c) => containers.includes(c.name));
    return parseContainerStates(run.stdout);
  }
}
