// The kind cluster config the capture writes for itself (never the user's).
import { dump } from 'js-yaml';
import type { ClusterSpec } from '../../experiment/types.ts';

/** Node label that says "shice created this cluster"; checked again on --reuse. */
export const OWNER_LABEL = 'shice/created-by';
export const OWNER_VALUE = 'shice';
/** Node label carrying the run id that created the cluster (when it is a valid label value). */
export const RUN_LABEL = 'shice/run-id';

// Kubernetes label values: at most 63 chars, alphanumeric at both ends.
const LABEL_VALUE = /^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$/;

export function ownerLabels(runId: string): Record<string, string> {
  return LABEL_VALUE.test(runId) ? { [OWNER_LABEL]: OWNER_VALUE, [RUN_LABEL]: runId } : { [OWNER_LABEL]: OWNER_VALUE };
}

/**
 * What the node image and the Docker host make the cluster differ from kind's
 * defaults; every field is said in the run's provenance. All false: kind's own.
 */
export interface NodeSetup {
  /** The node image has no kindnetd: kind installs no CNI, and shice's stand-in writes kindnetd's part. */
  cniStandIn: boolean;
  /** The node image has no CoreDNS image: kubeadm's CoreDNS addon is skipped, deliberately, not left to ImagePullBackOff. */
  withoutCoreDNS: boolean;
  /** The Docker host runs cgroup v1: kubelet 1.37 must be allowed it, with the cgroupfs driver (containerd too). */
  cgroupV1: boolean;
}

export const KIND_DEFAULT_SETUP: NodeSetup = { cniStandIn: false, withoutCoreDNS: false, cgroupV1: false };

/** kind's kubeadm InitConfiguration skips these already (pkg/cluster/internal/kubeadm/config.go); a patch replaces the list. */
const KIND_INIT_SKIP_PHASES = ['preflight'];

function kubeadmPatches(setup: NodeSetup): string[] {
  const patches: string[] = [];
  if (setup.withoutCoreDNS) {
    patches.push(dump({ kind: 'InitConfiguration', skipPhases: [...KIND_INIT_SKIP_PHASES, 'addon/coredns'] }, { lineWidth: -1 }));
  }
  if (setup.cgroupV1) patches.push(dump({ kind: 'KubeletConfiguration', cgroupDriver: 'cgroupfs', failCgroupV1: false }, { lineWidth: -1 }));
  return patches;
}

/**
 * kind.x-k8s.io/v1alpha4 Cluster: the experiment's nodes in order, kube-proxy's
 * mode stated explicitly (kind's default could change), the experiment's subnets,
 * and what `setup` asks of kind's defaults.
 */
export function renderKindConfig(cluster: ClusterSpec, runId: string, setup: NodeSetup = KIND_DEFAULT_SETUP): string {
  const controlPlanes = cluster.nodes.filter((n) => n.role === 'control-plane');
  if (controlPlanes.length !== 1) {
    throw new Error(`article.ts experiment.cluster.nodes: expected exactly one control-plane node, got ${controlPlanes.length}`);
  }
  const labels = ownerLabels(runId);
  const patches = kubeadmPatches(setup);
  const config = {
    kind: 'Cluster',
    apiVersion: 'kind.x-k8s.io/v1alpha4',
    name: cluster.name,
    networking: {
      kubeProxyMode: cluster.kubeProxyMode,
      podSubnet: cluster.podSubnet,
      serviceSubnet: cluster.serviceSubnet,
      ...(setup.cniStandIn ? { disableDefaultCNI: true } : {}),
    },
    nodes: cluster.nodes.map((n) => ({ role: n.role, labels })),
    ...(patches.length ? { kubeadmConfigPatches: patches } : {}),
    ...(setup.cgroupV1
      ? { containerdConfigPatches: ['[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n  SystemdCgroup = false\n'] }
      : {}),
  };
  return `# Written by shice's capture (kind driver); the cluster it creates is the capture's own.\n${dump(config, { lineWidth: -1 })}`;
}

/**
 * kind names nodes by role and order: the control-plane `<cluster>-control-plane`,
 * workers `<cluster>-worker`, `<cluster>-worker2`, ... The experiment's logical
 * names must be exactly those, or steps would land on the wrong container.
 */
export function expectedNodeNames(cluster: ClusterSpec): string[] {
  let workers = 0;
  return cluster.nodes.map((n) => {
    if (n.role === 'control-plane') return 'control-plane';
    workers += 1;
    return workers === 1 ? 'worker' : `worker${workers}`;
  });
}

export function checkNodeNaming(cluster: ClusterSpec): void {
  const expected = expectedNodeNames(cluster);
  cluster.nodes.forEach((n, i) => {
    if (n.name !== expected[i]) {
      throw new Error(`article.ts experiment.cluster.nodes[${i}].name: kind names this ${n.role} "${expected[i]}", the experiment says "${n.name}"`);
    }
  });
}
