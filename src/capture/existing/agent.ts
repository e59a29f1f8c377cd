// What a verify run creates in a reader's cluster, as data: its namespace, and
// on each of the experiment's nodes a node agent, a privileged pod with the
// node's network and process namespaces, as `kubectl debug node` makes one. A
// command on a node is run by the agent entering the node's own namespaces
// (nsenter into its init), so it is the node's own program on the node's own
// tables, as `docker exec` into a kind node is. Pure: no I/O.
import { kubectl, type KubectlTarget } from '../kubectl/commands.ts';

/** The label every object of a verify run carries: the run it belongs to. */
export const VERIFY_RUN_LABEL = 'shice.dev/verify-run';
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'shice-verify' } as const;
/** The agents' image when none is named: Debian's, whose util-linux has nsenter. */
export const DEFAULT_AGENT_IMAGE = 'debian:trixie-slim';

/** A verify run's namespace: named for the run, in the form the run registry accepts. */
export const verifyNamespace = (runId: string): string => `shice-verify-${runId.toLowerCase()}`;
export const agentName = (node: string): string => `shice-agent-${node}`;

export function namespaceObject(namespace: string, runId: string): object {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { ...MANAGED_BY, [VERIFY_RUN_LABEL]: runId } } };
}

/** The node agent of one node: pinned to it by name, tolerating every taint, doing nothing until a command enters it. */
export function agentObject(input: { namespace: string; runId: string; node: string; k8sName: string; image: string }): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: agentName(input.node), namespace: input.namespace, labels: { ...MANAGED_BY, [VERIFY_RUN_LABEL]: input.runId } },
    spec: {
      nodeName: input.k8sName,
      hostNetwork: true,
      hostPID: true,
      tolerations: [{ operator: 'Exists' }],
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      containers: [
        {
          name: 'agent',
          image: input.image,
          imagePullPolicy: 'IfNotPresent',
          command: ['sleep', 'infinity'],
          securityContext: { privileged: true },
        },
      ],
    },
  };
}

/** The argv that runs `command` on a node, through its agent, in every namespace of the node's init. */
export const agentExec = (t: KubectlTarget, namespace: string, node: string, command: string[]): string[] =>
  kubectl(t, 'exec', '--namespace', namespace, agentName(node), '--container', 'agent', '--', ...nodeCommand(command));

/** `command` entered into the node's own mount, UTS, IPC, network and PID namespaces (its init's, PID 1 in the host's PID namespace). */
export const nodeCommand = (command: string[]): string[] => ['nsenter', '--target', '1', '--mount', '--uts', '--ipc', '--net', '--pid', '--', ...command];
