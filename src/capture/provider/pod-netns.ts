// A pod's network namespace on a node, as the node's container runtime made it:
// its one ready sandbox through crictl, then the sandbox's spec. Any provider
// whose nodes run a CRI runtime with crictl asks it this way.
import { crictlInspectPod, crictlReadyPods, parseCrictlPodIds, parseCrictlPodNetns } from '../kubectl/crictl.ts';
import { firstLine, text, type ProcessResult } from '../machine/process.ts';
import { DriverError } from './node-provider.ts';

/** crictl answers from the node's runtime at once; longer, the node is stuck. */
export const POD_LOOKUP_TIMEOUT_MS = 15_000;

/** The path of the pod's network namespace on `node`; `onNode` runs a command there under POD_LOOKUP_TIMEOUT_MS. */
export async function crictlPodNetns(
  node: string,
  pod: { namespace: string; name: string },
  onNode: (command: string[]) => Promise<ProcessResult>,
): Promise<string> {
  const ask = async (command: string[]) => {
    const run = await onNode(command);
    if (run.canceled) throw new DriverError(`interrupted while: ${command.slice(0, 2).join(' ')} on ${node}`);
    if (run.exitCode !== 0)
      throw new DriverError(`${command.slice(0, 2).join(' ')} on ${node} exited ${run.exitCode}: ${firstLine(text(run.stderr)) || 'no message'}`);
    return text(run.stdout);
  };
  const ids = parseCrictlPodIds(await ask(crictlReadyPods(pod)));
  if (ids.length !== 1) throw new DriverError(`pod ${pod.namespace}/${pod.name}: expected one ready sandbox on ${node}, crictl lists ${ids.length}`);
  return parseCrictlPodNetns(await ask(crictlInspectPod(ids[0]!)));
}

/** What podNetns answers in a dry run, where no pod runs yet. */
export const podNetnsPlaceholder = (pod: { namespace: string; name: string }): string =>
  `<network namespace of pod ${pod.namespace}/${pod.name}, from crictl inspectp>`;
