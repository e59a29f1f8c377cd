// Whether a kind run's nodes are as up() left them: the node containers as docker
// reports them (running, started at; a stopped, restarted or vanished node is
// named), and kubelet's /healthz inside each. Also what up() reports of each
// node, its address read from the same docker inspect.
import type { ProvidedNode, ProviderContext } from '../provider/node-provider.ts';
import * as cmd from './commands.ts';
import { OWNER_LABEL, OWNER_VALUE } from './config.ts';
import { containerOf, type KindScope } from './settings.ts';
import { nodeProblems, parseContainerStates, type ContainerState } from './tool-output.ts';

/** kubelet's own health server, on every node's loopback. */
const KUBELET_HEALTHZ = 'http://127.0.0.1:10248/healthz';

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

  /** The node containers as up() left them (not stopped, not restarted), and kubelet answering on each. */
  async problems(ctx: ProviderContext): Promise<string[]> {
    const changes = await this.changes(ctx);
    if (changes.length > 0) return changes;
    const { experiment, tools } = this.scope;
    const kubelets = await Promise.all(
      experiment.cluster.nodes.map(async (node) => {
        const container = containerOf(this.scope, node.name);
        const probe = cmd.dockerExec(container, ['curl', '--silent', '--max-time', '2', KUBELET_HEALTHZ]);
        const run = await tools.run(probe, { what: `ask kubelet on ${node.name}`, check: 'none', ctx });
        return run.exitCode === 0 && run.stdout.trim() === 'ok'
          ? null
          : `kubelet on ${node.name} (node container ${container}) did not answer ${KUBELET_HEALTHZ} with ok (${run.timedOut ? 'no answer' : `exit ${run.exitCode}`})`;
      }),
    );
    const silent = kubelets.filter((p): p is string => p !== null);
    if (silent.length === 0) return [];
    // A node container dying as it is probed: docker's own word on it says more than the probe.
    const after = await this.changes(ctx);
    return after.length > 0 ? after : silent;
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
