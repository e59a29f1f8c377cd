// The lab's stand-in for kube-proxy on the nodes: program the generated rules
// with iptables-restore inside each node's namespace, then publish the local
// endpoint counts its health-check servers answer with. All nodes of a sync go
// through one root-level `ip -batch` (one `netns exec` line per node) instead of
// a process per node and command.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { localEndpointCounts, type ProxyNodeInput } from '../kubeproxy/model.ts';
import { renderFullRestore, renderSyncRestore, savedChains } from '../kubeproxy/restore.ts';
import { buildProxyRules } from '../kubeproxy/rules.ts';
import { writeHealthState } from './health-state.ts';
import { netnsExecCommand, runIpBatch, type IpBatch } from './ip-batch.ts';
import type { LabNode } from './layout.ts';
import { netnsExec } from './network.ts';

export function nodeFolder(runFolder: string, node: string): string {
  return join(runFolder, 'nodes', node);
}

export function healthStateFile(runFolder: string, node: string, service: string): string {
  return join(nodeFolder(runFolder, node), `health.${service.replace('/', '.')}.json`);
}

/** The restore commands, as kube-proxy runs them: a plain first load, then `--noflush --counters` syncs. */
export const RESTORE_FIRST = ['iptables-restore'];
export const RESTORE_SYNC = ['iptables-restore', '--noflush', '--counters'];
/** What kube-proxy reads before a sync to find stale chains. */
export const SAVE_NAT = ['iptables-save', '-t', 'nat'];

/** Files of one node's sync number `sequence`: kept for whoever inspects a kept lab, and read by the commands. */
export function syncFiles(runFolder: string, node: string, sequence: number): { save: string; restore: string } {
  const folder = nodeFolder(runFolder, node);
  return { save: join(folder, `iptables-save.${sequence}.txt`), restore: join(folder, `iptables-restore.${sequence}.txt`) };
}

/** The argvs one node's sync runs (a re-sync saves the nat table first), for --dry-run. */
export function syncCommands(node: LabNode, files: { save: string; restore: string }, first: boolean): string[][] {
  const restore = netnsExec(node.netns, [...(first ? RESTORE_FIRST : RESTORE_SYNC), files.restore]);
  return first ? [restore] : [netnsExec(node.netns, [...SAVE_NAT, '-f', files.save]), restore];
}

export interface NodeSync {
  node: LabNode;
  input: ProxyNodeInput;
}

/**
 * One sync of every node. The first fills each node's empty filter and nat
 * tables (jump rules included, as kube-proxy's start-up leaves them); later
 * ones send kube-proxy's sync payload, deleting service chains no longer used,
 * which needs the nat table as it is (iptables-save) first.
 */
export async function syncNodes(nodes: NodeSync[], options: { runFolder: string; first: boolean; sequence: number; signal: AbortSignal }): Promise<void> {
  const files = new Map(nodes.map(({ node }) => [node.name, syncFiles(options.runFolder, node.name, options.sequence)]));
  const filesOf = (node: LabNode) => files.get(node.name) as { save: string; restore: string };
  for (const { node } of nodes) mkdirSync(nodeFolder(options.runFolder, node.name), { recursive: true });
  if (!options.first) {
    const saves: IpBatch = { netns: null, commands: nodes.map(({ node }) => netnsExecCommand(node.netns, [...SAVE_NAT, '-f', filesOf(node).save])) };
    await runIpBatch(saves, { signal: options.signal });
  }
  for (const { node, input } of nodes) {
    const rules = buildProxyRules(input);
    const text = options.first ? renderFullRestore(rules) : renderSyncRestore(rules, savedChains(readFileSync(filesOf(node).save, 'utf8')));
    writeFileSync(filesOf(node).restore, text);
  }
  const restores: IpBatch = {
    netns: null,
    commands: nodes.map(({ node }) => netnsExecCommand(node.netns, [...(options.first ? RESTORE_FIRST : RESTORE_SYNC), filesOf(node).restore])),
  };
  await runIpBatch(restores, { signal: options.signal });
  for (const { node, input } of nodes) {
    for (const [service, count] of localEndpointCounts(input)) {
      writeHealthState(healthStateFile(options.runFolder, node.name, service), { localEndpoints: count, serviceProxyHealthy: true });
    }
  }
}
