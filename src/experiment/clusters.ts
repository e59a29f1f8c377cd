// The cluster the series measures on, written once: kind's names for one
// control-plane and two workers, kubeadm's default subnets, kube-proxy in
// iptables mode. An experiment that needs another changes what differs.
import type { ClusterSpec } from './types.ts';

export function threeNodeCluster(changes: Partial<ClusterSpec> = {}): ClusterSpec {
  return {
    name: 'kx-main',
    nodes: [
      { name: 'control-plane', role: 'control-plane' },
      { name: 'worker', role: 'worker' },
      { name: 'worker2', role: 'worker' },
    ],
    podSubnet: '10.244.0.0/16',
    serviceSubnet: '10.96.0.0/16',
    kubeProxyMode: 'iptables',
    ...changes,
  };
}
