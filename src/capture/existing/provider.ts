// The existing-cluster node provider: a cluster the reader already has, reached
// by their kubeconfig and context, never changed beyond one namespace of the
// run's own. Its nodes are the cluster's, mapped to the experiment's by name;
// up() creates the namespace and a node agent on each mapped node, a command on
// a node runs through that node's agent, and down() deletes the namespace.
// Nothing here reads or writes a Node, kube-proxy, the CNI or anything else
// cluster-wide: the node list is read, once, to know the nodes' roles.
import { resolve } from 'node:path';
import type { Experiment } from '../../experiment/types.ts';
import { kubectl, type KubectlTarget } from '../kubectl/commands.ts';
import { parseNodeList } from '../kubectl/topology.ts';
import { judged } from '../machine/checked-run.ts';
import { firstLine, runProcess, text, type ProcessResult } from '../machine/process.ts';
import { DriverError, PrerequisiteError, type ExecLimits, type NodeProvider, type ProvidedNode, type ProviderContext } from '../provider/node-provider.ts';
import { crictlPodNetns, podNetnsPlaceholder, POD_LOOKUP_TIMEOUT_MS } from '../provider/pod-netns.ts';
import { forgetRecord, recordExistingRun } from '../recovery/run-registry.ts';
import { agentExec, agentName, agentObject, namespaceObject, VERIFY_RUN_LABEL } from './agent.ts';

/** One verify run on one cluster. */
export interface ExistingScope {
  experiment: Experiment;
  runId: string;
  /** The user's kubeconfig (as given, relative to cwd) and the context the run uses: every kubectl call names both. */
  kubeconfig: string;
  context: string;
  /** The run's own namespace: everything it creates is in it. */
  namespace: string;
  /** The experiment's node -> the cluster's node, as the reader named them or verify chose and printed them. */
  nodes: Readonly<Record<string, string>>;
  agentImage: string;
  keep: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** A command asked of a node whose agent the cluster refused (Pod Security admission, a policy, RBAC). */
export class AgentsRefused extends DriverError {
  override name = 'AgentsRefused';
}

/** Reads of the API: bounded, the cluster is someone's and may be far. */
const API_MS = 30_000;
/** The agents' image may be pulled from a registry first. */
const AGENTS_READY = '180s';
const AGENTS_READY_MS = 200_000;
const DELETE_NAMESPACE = '180s';
const DELETE_NAMESPACE_MS = 200_000;

/** Words kubectl itself prints when its exec failed, as opposed to the command's own stderr. */
const KUBECTL_FAILURE = /^(error: |Error from server|Unable to connect to the server|unable to upgrade connection)/m;

export const existingTarget = (scope: Pick<ExistingScope, 'kubeconfig' | 'context'>): KubectlTarget => ({
  kubeconfig: scope.kubeconfig,
  runner: ['kubectl', '--context', scope.context],
});

export class ExistingProvider implements NodeProvider {
  readonly name = 'existing' as const;
  readonly reuses = false;
  readonly agentHealthz = [] as const;
  /** Whether the node playing the control plane is one (its components answer on its loopback); known once up() read the nodes. */
  controlPlaneHealthz = false;
  /** What the cluster said refusing the agents (kubectl's first line), when it did: the run goes on without a command on any node. */
  agentsRefusedWith: string | null = null;
  private readonly scope: ExistingScope;
  private readonly target: KubectlTarget;
  private created = false;

  constructor(scope: ExistingScope) {
    this.scope = scope;
    this.target = existingTarget(scope);
  }

  private async kubectl(args: string[], what: string, timeoutMs: number, ctx: Pick<ProviderContext, 'signal'>, input?: string, mustSucceed = true) {
    const run = await runProcess(kubectl(this.target, ...args), {
      timeoutMs,
      env: this.scope.env,
      cwd: this.scope.cwd,
      signal: ctx.signal,
      ...(input === undefined ? {} : { input }),
    });
    return judged(run, what, timeoutMs, mustSucceed);
  }

  async preflight(): Promise<void> {
    const run = await runProcess(['kubectl', 'version', '--client', '-o', 'json'], { timeoutMs: API_MS, env: this.scope.env });
    if (run.missing) throw new PrerequisiteError('kubectl is not installed (no `kubectl` on PATH): https://kubernetes.io/docs/tasks/tools/');
  }

  async up(ctx: ProviderContext): Promise<ProvidedNode[]> {
    const { namespace, runId, experiment, nodes } = this.scope;
    const json = text((await this.kubectl(['get', 'nodes', '-o', 'json'], 'read the nodes', API_MS, ctx)).stdout);
    const apiNodes = parseNodeList(json);
    const provided = experiment.cluster.nodes.map((spec) => {
      const k8sName = nodes[spec.name];
      const node = apiNodes.find((n) => n.k8sName === k8sName);
      if (k8sName === undefined || node === undefined) throw new DriverError(`no node ${JSON.stringify(k8sName ?? '')} in the cluster to play ${spec.name}`);
      return { spec, node };
    });
    const controlPlane = provided.find((p) => p.spec.role === 'control-plane');
    this.controlPlaneHealthz = controlPlane?.node.role === 'control-plane';
    // On disk before the namespace exists: a run killed from here on is cleaned up by the next one.
    recordExistingRun({ runId, kubeconfig: resolve(this.scope.cwd, this.scope.kubeconfig), context: this.scope.context, namespace });
    ctx.log(`creating namespace ${namespace} and a node agent on each of ${provided.map((p) => p.node.k8sName).join(', ')}`);
    this.created = true;
    // A namespace of that name made by someone else fails the create; down() then finds it without the run's label and leaves it.
    await this.kubectl(['create', '-f', '-'], `create namespace ${namespace}`, API_MS, ctx, JSON.stringify(namespaceObject(namespace, runId)));
    const agents = provided.map((p) => agentObject({ namespace, runId, node: p.spec.name, k8sName: p.node.k8sName, image: this.scope.agentImage }));
    const made = await this.kubectl(
      ['create', '-f', '-'],
      'create the node agents',
      API_MS,
      ctx,
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: agents }),
      false,
    );
    if (made.exitCode !== 0) {
      // What needs no node still runs: the manifests, the API's objects and the claims that rest on them alone.
      this.agentsRefusedWith = firstLine(text(made.stderr)) || `kubectl exited ${made.exitCode}`;
      ctx.log(`${this.nodesRefused}; no command runs on a node, so no step runs`);
      return this.provided(provided);
    }
    const ready = await this.kubectl(
      ['wait', '--for=condition=Ready', 'pod', '--selector', `${VERIFY_RUN_LABEL}=${runId}`, '--namespace', namespace, `--timeout=${AGENTS_READY}`],
      'wait for the node agents',
      AGENTS_READY_MS,
      ctx,
      undefined,
      false,
    );
    if (ready.exitCode !== 0) {
      const agents = await this.agentStates(ctx);
      throw new DriverError(`the node agents did not become Ready within ${AGENTS_READY} (${agents.join('; ') || firstLine(text(ready.stderr))})`);
    }
    return this.provided(provided);
  }

  private provided(mapped: ReadonlyArray<{ spec: Experiment['cluster']['nodes'][number]; node: { k8sName: string; internalIP: string } }>): ProvidedNode[] {
    return mapped.map(({ spec, node }) => ({ name: spec.name, k8sName: node.k8sName, role: spec.role, address: node.internalIP, labels: {} }));
  }

  get nodesRefused(): string | null {
    return this.agentsRefusedWith === null ? null : `the cluster refused the run's node agents: ${this.agentsRefusedWith}`;
  }

  nodeArgv(node: string, command: string[]): string[] {
    if (this.nodesRefused !== null) throw new AgentsRefused(`${command[0]} on ${node}: ${this.nodesRefused}`);
    if (this.scope.nodes[node] === undefined) throw new DriverError(`no node "${node}" among the experiment's (${Object.keys(this.scope.nodes).join(', ')})`);
    return agentExec(this.target, this.scope.namespace, node, command);
  }

  async exec(node: string, command: string[], limits: ExecLimits, ctx: ProviderContext): Promise<ProcessResult> {
    const run = await runProcess(this.nodeArgv(node, command), {
      timeoutMs: limits.timeoutMs,
      env: this.scope.env,
      cwd: this.scope.cwd,
      signal: ctx.signal,
      ...(limits.keepBytes === undefined ? {} : { keepBytes: limits.keepBytes }),
    });
    if (run.missing) throw new DriverError(`could not run ${command[0]} on ${node}: \`kubectl\` is not on PATH`);
    if (run.canceled || run.exitCode === 0) return run;
    // The command's own failure is a result; kubectl failing to reach the agent is not.
    const agents = await this.problems(ctx);
    if (agents.length > 0) throw new DriverError(`${agents.join('; ')} during ${command[0]} on ${node}`);
    const stderr = text(run.stderr);
    if (!run.timedOut && KUBECTL_FAILURE.test(stderr))
      throw new DriverError(`kubectl exec into ${agentName(node)} failed (exit ${run.exitCode}): ${firstLine(stderr)}`);
    return run;
  }

  probeArgv(node: string, command: string[]): string[] {
    return this.nodeArgv(node, command);
  }

  probe(node: string, command: string[], limits: ExecLimits, ctx: ProviderContext): Promise<ProcessResult> {
    return runProcess(this.probeArgv(node, command), { timeoutMs: limits.timeoutMs, env: this.scope.env, cwd: this.scope.cwd, signal: ctx.signal });
  }

  podNetns(node: string, pod: { namespace: string; name: string }, ctx: ProviderContext): Promise<string> {
    return crictlPodNetns(node, pod, (command) => this.exec(node, command, { timeoutMs: POD_LOOKUP_TIMEOUT_MS }, ctx));
  }

  podNetnsPlaceholder(_node: string, pod: { namespace: string; name: string }): string {
    return podNetnsPlaceholder(pod);
  }

  /** Each agent that is not running, Ready and unrestarted, one phrase each. */
  async problems(ctx: ProviderContext): Promise<string[]> {
    if (this.nodesRefused !== null) return [];
    const states = await this.agentStates(ctx);
    return states.filter((s) => !s.endsWith(': running'));
  }

  /** Each agent's state as the API reports it ("shice-agent-worker: running"). */
  private async agentStates(ctx: Pick<ProviderContext, 'signal'>): Promise<string[]> {
    const run = await this.kubectl(
      ['get', 'pods', '--namespace', this.scope.namespace, '--selector', `${VERIFY_RUN_LABEL}=${this.scope.runId}`, '-o', 'json'],
      'read the node agents',
      API_MS,
      ctx,
      undefined,
      false,
    );
    if (run.exitCode !== 0) return [`the API server did not list the node agents (${firstLine(text(run.stderr)) || `kubectl exited ${run.exitCode}`})`];
    return agentStates(text(run.stdout), Object.keys(this.scope.nodes).map(agentName));
  }

  async facts(ctx: ProviderContext): Promise<Record<string, string>> {
    // Both are read through an agent: without one, neither is known.
    if (this.nodesRefused !== null) return {};
    const run = await this.kubectl(
      ['get', 'pod', agentName(this.scope.experiment.cluster.nodes[0]!.name), '--namespace', this.scope.namespace, '-o', 'json'],
      'read a node agent',
      API_MS,
      ctx,
    );
    const pod = JSON.parse(text(run.stdout)) as { status?: { containerStatuses?: Array<{ image?: string; imageID?: string }> } };
    const status = pod.status?.containerStatuses?.[0];
    return { 'agent-image': `${this.scope.agentImage}${status?.imageID ? ` (${status.imageID})` : ''}`, 'cni-config': await this.cniConfig(ctx) };
  }

  /** The CNI configuration the container runtime uses on the first node (the first file of /etc/cni/net.d by name), as its plugins' types. */
  private async cniConfig(ctx: ProviderContext): Promise<string> {
    const node = this.scope.experiment.cluster.nodes[0]!.name;
    const read = async (command: string[]) => {
      const run = await this.exec(node, command, { timeoutMs: API_MS }, ctx);
      if (run.exitCode !== 0)
        throw new DriverError(`could not read the CNI configuration on ${node}: ${command.join(' ')} exited ${run.exitCode}: ${firstLine(text(run.stderr))}`);
      return text(run.stdout);
    };
    const file = cniConfigFile(await read(['ls', '-1', CNI_CONFIG_DIR]));
    if (file === null) return `none in ${CNI_CONFIG_DIR}`;
    return `${file}: ${cniPluginTypes(await read(['cat', `${CNI_CONFIG_DIR}/${file}`]), file)}`;
  }

  async down(ctx: { log: (line: string) => void }): Promise<void> {
    const { namespace, runId } = this.scope;
    if (this.created && this.scope.keep) {
      recordExistingRun({ runId, kubeconfig: resolve(this.scope.cwd, this.scope.kubeconfig), context: this.scope.context, namespace, kept: true });
      ctx.log(`keeping namespace ${namespace} (--keep): kubectl delete namespace ${namespace} removes it`);
      return;
    }
    if (this.created) {
      ctx.log(`deleting namespace ${namespace}`);
      const said = await deleteOwnNamespace(this.target, namespace, runId, { env: this.scope.env, cwd: this.scope.cwd });
      if (said.startsWith('left ')) ctx.log(said);
    }
    forgetRecord('existing', runId);
  }

  plan(): { setup: string[][]; teardown: string[][] } {
    const { namespace, runId } = this.scope;
    return {
      setup: [
        kubectl(this.target, 'get', 'nodes', '-o', 'json'),
        kubectl(this.target, 'create', '-f', '-'),
        kubectl(this.target, 'create', '-f', '-'),
        kubectl(
          this.target,
          'wait',
          '--for=condition=Ready',
          'pod',
          '--selector',
          `${VERIFY_RUN_LABEL}=${runId}`,
          '--namespace',
          namespace,
          `--timeout=${AGENTS_READY}`,
        ),
      ],
      teardown: this.scope.keep ? [] : [deleteNamespaceArgv(this.target, namespace)],
    };
  }
}

export const deleteNamespaceArgv = (t: KubectlTarget, namespace: string): string[] =>
  kubectl(t, 'delete', 'namespace', namespace, '--ignore-not-found', '--wait=true', `--timeout=${DELETE_NAMESPACE}`);

/**
 * Deletes the run's namespace and waits until it is gone, only when it carries the run's label (the run made it);
 * one line saying what it did. A DriverError when the namespace cannot be read or does not go.
 */
export async function deleteOwnNamespace(
  t: KubectlTarget,
  namespace: string,
  runId: string,
  options: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<string> {
  const read = await runProcess(kubectl(t, 'get', 'namespace', namespace, '--ignore-not-found', '-o', 'json'), { timeoutMs: API_MS, ...options });
  const body = text(judged(read, `read namespace ${namespace}`, API_MS).stdout).trim();
  if (body === '') return `namespace ${namespace} was already gone`;
  const labels = (JSON.parse(body) as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
  if (labels[VERIFY_RUN_LABEL] !== runId) return `left namespace ${namespace}: it does not carry ${VERIFY_RUN_LABEL}=${runId}, so the run did not create it`;
  judged(
    await runProcess(deleteNamespaceArgv(t, namespace), { timeoutMs: DELETE_NAMESPACE_MS, ...options }),
    `delete namespace ${namespace}`,
    DELETE_NAMESPACE_MS,
  );
  return `namespace ${namespace}`;
}

const CNI_CONFIG_DIR = '/etc/cni/net.d';

/** The file the runtime loads from `ls -1 /etc/cni/net.d`: the first .conflist, .conf or .json by name (libcni's ConfFiles, sorted). Pure. */
export function cniConfigFile(listing: string): string | null {
  return (
    listing
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /\.(conflist|conf|json)$/.test(l))
      .sort()[0] ?? null
  );
}

/** The plugins' types of a CNI configuration list (or the one plugin of a .conf), in order. Pure. */
export function cniPluginTypes(json: string, file: string): string {
  let config: { type?: unknown; plugins?: Array<{ type?: unknown }> };
  try {
    config = JSON.parse(json) as typeof config;
  } catch {
    return `${file} is not JSON`;
  }
  const types = (config.plugins ?? [config]).map((p) => (typeof p.type === 'string' ? p.type : '?'));
  return types.join(', ');
}

/** Each wanted agent's state from `kubectl get pods -o json`: running (Ready, never restarted), or what it is instead. Pure. */
export function agentStates(json: string, wanted: readonly string[]): string[] {
  const list = JSON.parse(json) as {
    items?: Array<{
      metadata?: { name?: string; deletionTimestamp?: string };
      status?: {
        phase?: string;
        conditions?: Array<{ type?: string; status?: string }>;
        containerStatuses?: Array<{ restartCount?: number; state?: Record<string, { reason?: string; message?: string }> }>;
      };
    }>;
  };
  return wanted.map((name) => {
    const pod = list.items?.find((p) => p.metadata?.name === name);
    if (!pod) return `${name}: gone`;
    if (pod.metadata?.deletionTimestamp) return `${name}: being deleted`;
    const container = pod.status?.containerStatuses?.[0];
    const waiting = container?.state?.['waiting'];
    if (waiting) return `${name}: waiting (${waiting.reason ?? 'no reason'}${waiting.message ? `: ${firstLine(waiting.message)}` : ''})`;
    if ((container?.restartCount ?? 0) > 0) return `${name}: restarted ${container!.restartCount} times`;
    const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    if (pod.status?.phase !== 'Running' || !ready) return `${name}: ${pod.status?.phase ?? 'no phase'}${ready ? '' : ', not Ready'}`;
    return `${name}: running`;
  });
}
