// The lab's stand-in for kube-proxy on one node: program the generated rules
// with iptables-restore inside the node's namespace, then publish the local
// endpoint counts its health-check servers answer with.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { localEndpointCounts, type ProxyNodeInput } from '../kubeproxy/model.ts';
import { renderFullRestore, renderSyncRestore, savedChains } from '../kubeproxy/restore.ts';
import { buildProxyRules } from '../kubeproxy/rules.ts';
import { writeHealthState } from './health-state.ts';
import type { LabNode } from './layout.ts';
import { netnsExec } from './network.ts';
import { runChecked } from './processes.ts';

export function nodeFolder(runFolder: string, node: string): string {
  return join(runFolder, 'nodes', node);
}

export function healthStateFile(runFolder: string, node: string, service: string): string {
  return join(nodeFolder(runFolder, node), `health.${service.replace('/', '.')}.json`);
}

/** The restore commands, as kube-proxy runs them: a plain first load, then `--noflush --counters` syncs. */
export const RESTORE_FIRST = ['iptables-restore'];
export const RESTORE_SYNC = ['iptables-restore', '--noflush', '--counters'];

/**
 * One sync of `node`: the first fills the node's empty filter and nat tables
 * (jump rules included, as kube-proxy's start-up leaves them); later ones send
 * kube-proxy's sync payload, deleting service chains that are no longer used.
 */
export async function syncNode(
  node: LabNode,
  input: ProxyNodeInput,
  options: { runFolder: string; first: boolean; sequence: number; signal?: AbortSignal },
): Promise<void> {
  const rules = buildProxyRules(input);
  let text: string;
  if (options.first) {
    text = renderFullRestore(rules);
  } else {
    const saved = await runChecked(netnsExec(node.netns, ['iptables-save', '-t', 'nat']), { signal: options.signal });
    text = renderSyncRestore(rules, savedChains(saved.stdout));
  }
  const folder = nodeFolder(options.runFolder, node.name);
  mkdirSync(folder, { recursive: true });
  // Kept for whoever inspects a kept lab: exactly what was restored, in order.
  writeFileSync(join(folder, `iptables-restore.${options.sequence}.txt`), text);
  await runChecked(netnsExec(node.netns, options.first ? RESTORE_FIRST : RESTORE_SYNC), { input: text, signal: options.signal });
  for (const [service, count] of localEndpointCounts(input)) {
    writeHealthState(healthStateFile(options.runFolder, node.name, service), { localEndpoints: count, serviceProxyHealthy: true });
  }
}
