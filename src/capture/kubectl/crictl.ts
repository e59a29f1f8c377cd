// What every node's CRI client is asked, on any node provider: a pod's ready
// sandbox and the network namespace its runtime made for it, where a step runs
// the node's own program in a pod's network. Pure: argv builders and parsers.
import { parseJson, stringAt, ToolOutputError } from './api-output.ts';

/** A pod's ready sandboxes on a node, as its containerd lists them (crictl's --name is a regular expression). */
export const crictlReadyPods = (pod: { namespace: string; name: string }): string[] => [
  'crictl',
  'pods',
  '--namespace',
  pod.namespace,
  '--name',
  `^${pod.name}$`,
  '--state',
  'ready',
  '--output',
  'json',
];
export const crictlInspectPod = (id: string): string[] => ['crictl', 'inspectp', '--output', 'json', id];

/** `crictl pods --output json`: the ids of the pod sandboxes listed. */
export function parseCrictlPodIds(stdout: string): string[] {
  const source = 'crictl pods --output json';
  const data = parseJson(stdout, source) as { items?: unknown };
  if (!Array.isArray(data.items)) throw new ToolOutputError(`${source}: field items: expected a list`);
  return data.items.map((item, i) => stringAt(item, ['id'], `${source} items[${i}]`));
}

/** `crictl inspectp --output json`: the path of the sandbox's network namespace, as its runtime spec names it. */
export function parseCrictlPodNetns(stdout: string): string {
  const source = 'crictl inspectp --output json';
  const data = parseJson(stdout, source) as { info?: { runtimeSpec?: { linux?: { namespaces?: unknown } } } };
  const namespaces = data.info?.runtimeSpec?.linux?.namespaces;
  if (!Array.isArray(namespaces)) throw new ToolOutputError(`${source}: field info.runtimeSpec.linux.namespaces: expected a list`);
  const network = namespaces.find((n: { type?: unknown }) => n?.type === 'network') as { path?: unknown } | undefined;
  if (typeof network?.path !== 'string' || !network.path.startsWith('/'))
    throw new ToolOutputError(
      `${source}: field info.runtimeSpec.linux.namespaces: expected a network namespace with a path, got ${JSON.stringify(network ?? null)}`,
    );
  return network.path;
}
