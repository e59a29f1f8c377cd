// A reused cluster (--reuse) still holds what the run before left in it: the
// declared Services with their node ports and cluster IPs, the pods its steps
// did not delete, and in every node's conntrack table the connections its steps
// made. Taken as found, a step that lists conntrack entries by node port read
// the earlier run's entry first (074 on a kept nftables cluster, 2026-12-06: the
// reply from 10.244.2.2, the earlier backend, where this run's was 10.244.2.3),
// and the claim broke. So before the manifests apply, the declared objects are
// deleted and awaited, and each node's conntrack entries to their ports and
// addresses are removed: the run starts as on a fresh cluster.
import type { Experiment } from '../../experiment/types.ts';
import * as k from '../kubectl/commands.ts';
import type { DeclaredObjects } from '../kubectl/manifest-objects.ts';
import { parseServiceList, type KubeService } from '../kubectl/topology.ts';
import { firstLine, text } from '../machine/process.ts';
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
import type { KubeIo } from './kube-io.ts';

/** Where the earlier run's connections went: the declared Services' node ports (health check's too) and cluster IPs. Pure. */
export function earlierRunTargets(services: readonly KubeService[], declared: DeclaredObjects): { ports: number[]; addresses: string[] } {
  const ours = services.filter((s) => declared.services.some((d) => d.namespace === s.namespace && d.name === s.name));
  const ports = ours.flatMap((s) => [...s.ports.map((p) => p.nodePort), s.healthCheckNodePort]).filter((p): p is number => p !== null);
  const addresses = ours.map((s) => s.clusterIP).filter((ip) => ip !== 'None' && ip !== '');
  return { ports: [...new Set(ports)].sort((a, b) => a - b), addresses: [...new Set(addresses)].sort() };
}

/** The node's conntrack entries to one port or one address, deleted (conntrack-tools, in every kind node). */
export const conntrackDeleteTo = (target: { port: string } | { address: string }): string[] =>
  'port' in target ? ['conntrack', '--delete', '--proto', 'tcp', '--orig-port-dst', target.port] : ['conntrack', '--delete', '--orig-dst', target.address];

/** conntrack --delete exits 1 when nothing matched ("0 flow entries have been deleted"): nothing to remove is no error. */
export const conntrackDeleted = (exitCode: number | null, stderr: string) =>
  exitCode === 0 || (exitCode === 1 && /\b0 flow entries have been deleted/.test(stderr));

/** Removes what the run before left: the declared objects, awaited, then every node's conntrack entries to them. */
export async function clearEarlierRun(
  io: KubeIo,
  experiment: Experiment,
  declared: DeclaredObjects,
  manifestFile: (manifest: string) => string,
  ctx: ProviderContext,
): Promise<void> {
  const t = io.access.target;
  const services = parseServiceList(
    text((await io.kubectl(k.kubectlGetServices(t), io.timeouts.quickMs, 'read the services an earlier run left', ctx)).stdout),
  );
  const { ports, addresses } = earlierRunTargets(services, declared);
  ctx.log("removing what an earlier run left in the reused cluster: the manifests' objects, then the nodes' connections to them");
  for (const manifest of [...experiment.manifests].reverse())
    await io.kubectl(k.kubectlDeleteManifest(t, manifestFile(manifest)), io.timeouts.kubectlMs, `delete what ${manifest} declares`, ctx);
  const targets = [...ports.map((port) => ({ port: String(port) })), ...addresses.map((address) => ({ address }))];
  // Each node's table is its own: the nodes side by side, one target after another on each.
  const forget = async (node: string) => {
    for (const target of targets) {
      const argv = conntrackDeleteTo(target);
      const run = await io.onNode(node, argv, io.timeouts.quickMs, ctx);
      if (!conntrackDeleted(run.exitCode, text(run.stderr)))
        throw new DriverError(`${argv.join(' ')} on ${node} exited ${run.exitCode}: ${firstLine(text(run.stderr)) || 'no message'}`);
    }
  };
  const settled = await Promise.allSettled(experiment.cluster.nodes.map((node) => forget(node.name)));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
}
