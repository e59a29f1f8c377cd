// Whether a kind run's nodes are as up() left them: the node containers as docker
// reports them (running, started at; a stopped, restarted or vanished node is
// named). kubelet's /healthz inside each is the platform's to ask, with its own
// probes of the node (KIND_AGENT_HEALTHZ). Also what up() reports of each node,
// its address read from the same docker inspect.
import type { ProvidedNode, ProviderContext } from '../provider/node-provider.ts';
import * as cmd from './commands.ts';
import { OWNER_LABEL, OWNER_VALUE } from './config.ts';
import { containerOf, type KindScope } from './settings.ts';
import { nodeProblems, parseContainerStates, type ContainerState } from './tool-output.ts';

/** kubelet's own health server, on every node's loopback. */
export const KIND_AGENT_HEALTHZ: readonly (readonly [string, string])[] = [['kubelet', 'http://127.0.0.1:10248/healthz']];

export class NodeHealth {
  /** The node containers as the steps began: every later reading is compared with it. */
  private baseline: ContainerState[] = [];

  private readonly scope: KindScope;

  constructor(scope: KindScope) {
    this.scope = scope;
  }

  /** Reads the node containers as up() leaves them, and says what each node is. */
  async settle(ctx: ProviderContext): Promise<ProvidedNode[]> {
    this.baseline = await this.readStates(ctx);
    return this.scope.experiment.cluster.nodes.map((node) => ({
      name: node.name,
      role: node.role,
      address: this.baseline.find((s) => s.name === containerOf(this.scope, node.name))?.address ?? null,
      // What the capture's kind config has every node register with.
      labels: { [OWNER_LABEL]: OWNER_VALUE },
    }));
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
