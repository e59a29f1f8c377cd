// What a kind run records of where it ran (run.yaml's versions): kind's,
// docker's and the host's versions, the node image and how it was chosen, and
// what the nodes themselves report (kubelet, containerd, runc, iptables), each
// tool's own word; with kind:prepare's host, what the cluster differs in from
// kind's defaults and why. Asked once the nodes are up.
import { arch, release, type as osType } from 'node:os';
import { agreedValue } from '../kubectl/api-output.ts';
import type { KubeNode } from '../kubectl/topology.ts';
import { DriverError, type ProviderContext } from '../provider/node-provider.ts';
import * as cmd from './commands.ts';
import { containerOf, type KindScope } from './settings.ts';
import { parseContainerdVersion, parseDockerVersion, parseIptablesVersion, parseKindVersion, parseKubeletVersion, parseRuncVersion } from './tool-output.ts';

/** What went into a local node image, in one line for run.yaml. */
export function localImageInputs(inputs: Record<string, string>): string {
  const keys = ['debian', 'kind', 'kubernetes', 'containerd', 'runc', 'containernetworking-plugins', 'crictl', 'etcd', 'pause', 'coredns'];
  return keys
    .filter((k) => inputs[k])
    .map((k) => `${k} ${inputs[k]}`)
    .join('; ');
}

const controlPlaneContainer = (scope: KindScope): string => containerOf(scope, scope.experiment.cluster.nodes.find((n) => n.role === 'control-plane')!.name);

/** The run's facts from the API's nodes: the container runtime the control plane's kubelet reports. */
export function kindApiFacts(scope: KindScope, nodes: readonly KubeNode[]): Record<string, string> {
  const runtime = nodes.find((n) => n.k8sName === controlPlaneContainer(scope))?.containerRuntime;
  return runtime ? { 'container-runtime': runtime } : {};
}

/** kind's, docker's and the host's versions, and what the nodes themselves report (their image, kubelet, runtime, iptables). */
export async function kindFacts(scope: KindScope, ctx: ProviderContext): Promise<Record<string, string>> {
  const ask = async (argv: string[], what: string) => (await scope.tools.run(argv, { what, ctx })).stdout;
  const versions: Record<string, string> = {};
  versions.kind = parseKindVersion(await ask(cmd.kindVersion(), 'read the kind version'));
  const docker = parseDockerVersion(await ask(cmd.dockerVersion(), 'read the docker version'));
  if (!docker.server) throw new DriverError('docker version: the Docker daemon is not reachable (no "Server" in its answer)');
  versions.docker = docker.server.version;
  versions['docker-host'] = `${docker.server.os}/${docker.server.arch}`;
  // The kernel every kind node runs on (the Docker host's, e.g. Docker Desktop's VM).
  versions['docker-kernel'] = docker.server.kernel;
  versions['host-os'] = `${osType()} ${release()}`;
  versions['host-arch'] = arch();
  const { options, state, engine, experiment } = scope;
  const controlPlane = controlPlaneContainer(scope);
  versions['node-image'] = (await ask(cmd.dockerNodeImage(controlPlane), 'read the node image')).trim();
  if (options.host) {
    versions['node-image-id'] = (await ask(cmd.dockerContainerImageId(controlPlane), "read the node image's id")).trim();
    versions['node-image-source'] = {
      option: 'chosen with --image',
      official: "kind's official node image (a registry answered)",
      local: 'built on this machine by npm run kind:prepare (no registry answered)',
    }[state.nodeImage.source];
    if (state.nodeImage.local) versions['node-image-inputs'] = localImageInputs(state.nodeImage.local.inputs);
  }

  // Read on the nodes themselves: each tool's own word, once when all nodes agree.
  const perNode = async (argv: string[], what: string, parse: (stdout: string) => string): Promise<[string, string][]> => {
    const found: [string, string][] = [];
    for (const node of experiment.cluster.nodes) {
      found.push([node.name, parse(await ask(cmd.dockerExec(containerOf(scope, node.name), argv), `read ${what} on ${node.name}`))]);
    }
    return found;
  };
  if (options.host) {
    versions.kubelet = agreedValue(await perNode(['kubelet', '--version'], "kubelet's version", parseKubeletVersion));
    versions.containerd = agreedValue(await perNode(['containerd', '--version'], "containerd's version", parseContainerdVersion));
    versions.runc = agreedValue(await perNode(['runc', '--version'], "runc's version", parseRuncVersion));
  }
  const iptables = await perNode(cmd.iptablesVersionCommand(), "iptables' version", (s) => {
    const v = parseIptablesVersion(s);
    return `${v.version} ${v.backend}`;
  });
  if (new Set(iptables.map(([, v]) => v)).size === 1) {
    const [version, backend] = iptables[0]![1].split(' ');
    versions.iptables = version!;
    versions['iptables-backend'] = backend!;
  } else {
    for (const [node, v] of iptables) {
      const [version, backend] = v.split(' ');
      versions[`iptables@${node}`] = version!;
      versions[`iptables-backend@${node}`] = backend!;
    }
  }
  if (!options.host) return versions;
  versions.cni = state.setup.cniStandIn
    ? "shice's kindnetd stand-in (src/capture/kind/kindnet-stand-in.ts): 10-kindnet.conflist (ptp, host-local, portmap) and routes to the other nodes' pod CIDRs; no masquerade agent"
    : "kindnetd (kind's default CNI)";
  if (state.setup.withoutCoreDNS) versions.coredns = "left out: kubeadm's CoreDNS addon skipped (no CoreDNS image without a registry)";
  if (state.setup.cgroupV1)
    versions['kubelet-cgroups'] = 'cgroup v1 host: kubelet with cgroupDriver cgroupfs and failCgroupV1: false, containerd with SystemdCgroup = false';
  versions['docker-engine'] = engine
    ? "shice's own dockerd (npm run kind:prepare): its own data root, no iptables rules in the host's root namespace"
    : "the host's Docker daemon";
  versions['runtime-adaptation'] = engine?.adaptation?.summary ?? 'none';
  if (state.substitutions.length > 0)
    versions['image-substitutes'] = state.substitutions.map((sub) => `${sub.image} -> ${sub.ranInstead} (${sub.what})`).join('; ');
  return versions;
}
