// What the lab kubelet writes to the API and to the CNI plugins, as pure
// functions: the Node it registers (as kubelet and kubeadm shape it), its
// status and Lease, a Pod's status, kindnet's CNI configuration, and which
// files a container sees from its ConfigMap volumes.
import { posix } from 'node:path';

export type Json = Record<string, unknown>;

export const CONTROL_PLANE_TAINT = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };
/** The labels kubeadm's mark-control-plane phase puts on a control-plane node. */
export const CONTROL_PLANE_LABELS = ['node-role.kubernetes.io/control-plane', 'node.kubernetes.io/exclude-from-external-load-balancers'];
/** What the lab puts where kubelet reports its version and the runtime's: it is neither. */
export const LAB_KUBELET_VERSION = 'shice-lab-kubelet';
export const LAB_RUNTIME_VERSION = 'shice-lab://netns+process';

export interface NodeIdentity {
  name: string;
  ip: string;
  role: 'control-plane' | 'worker';
  kernel: string;
  arch: string;
  /** Capacity and allocatable in the API's quantities (machine.ts's nodeResources). */
  resources: Record<string, string>;
}

function condition(type: string, status: 'True' | 'False', reason: string, message: string, now: string): Json {
  return { type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: now };
}

function nodeConditions(ready: boolean, now: string): Json[] {
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available', now),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure', now),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available', now),
    ready
      ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', now)
      : condition(
          'Ready',
          'False',
          'KubeletNotReady',
          'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:cni config uninitialized',
          now,
        ),
  ];
}

/**
 * The Node as kubelet registers it. A control-plane node carries the taint
 * kubeadm has kubelet register with (--register-with-taints); its role labels
 * are kubeadm's to add afterwards (NodeRestriction forbids a node to set them).
 */
export function nodeObject(node: NodeIdentity, now: string): Json {
  const arch = node.arch === 'x64' ? 'amd64' : node.arch;
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': node.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': arch,
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': arch,
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name, labels },
    spec: node.role === 'control-plane' ? { taints: [CONTROL_PLANE_TAINT] } : {},
    status: {
      addresses: [
        { type: 'InternalIP', address: node.ip },
        { type: 'Hostname', address: node.name },
      ],
      capacity: node.resources,
      allocatable: node.resources,
      conditions: nodeConditions(false, now),
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: node.kernel,
        osImage: 'Linux network namespace (shice lab)',
        containerRuntimeVersion: LAB_RUNTIME_VERSION,
        kubeletVersion: LAB_KUBELET_VERSION,
        operatingSystem: 'linux',
        architecture: arch,
      },
    },
  };
}

/** The status patch of a heartbeat (strategic merge: conditions merge by type). */
export function nodeStatusPatch(ready: boolean, now: string): Json {
  return { status: { conditions: nodeConditions(ready, now) } };
}

/** Kubernetes' MicroTime: RFC 3339 with microseconds. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function leaseObject(nodeName: string, nodeUid: string, now: Date): Json {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: nodeName,
      namespace: 'kube-node-lease',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid }],
    },
    spec: { holderIdentity: nodeName, leaseDurationSeconds: 40, renewTime: microTime(now) },
  };
}

/**
 * kindnet's CNI configuration (10-kindnet.conflist): ptp without masquerade,
 * host-local addresses from the node's podCIDR, then portmap. The IPAM state
 * lives in the node's own folder, since the lab's nodes share one filesystem.
 */
export function kindnetConflist(podCIDR: string, ipamDir: string, mtu: number): Json {
  return {
    cniVersion: '0.3.1',
    name: 'kindnet',
    plugins: [
      {
        type: 'ptp',
        ipMasq: false,
        ipam: { type: 'host-local', dataDir: ipamDir, routes: [{ dst: '0.0.0.0/0' }], ranges: [[{ subnet: podCIDR }]] },
        mtu,
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  };
}

/** containerd's loopback network, brought up in every sandbox before the pod's network. */
export const LOOPBACK_CONF: Json = { cniVersion: '0.3.1', name: 'cni-loopback', type: 'loopback' };

/** What one plugin of a conflist reads on stdin: its own config with the list's name and version, and the result so far. */
export function pluginInput(list: Json, plugin: Json, prevResult: Json | null): Json {
  return { ...plugin, name: list.name, cniVersion: list.cniVersion, ...(prevResult === null ? {} : { prevResult }) };
}

/** The pod's IPv4 address from a CNI result (`ips[].address`, e.g. 10.244.1.2/24). */
export function podIPFromResult(result: Json): string {
  const ips = result.ips;
  const v4 = Array.isArray(ips) ? (ips as Json[]).find((ip) => typeof ip.address === 'string' && (ip.address as string).includes('.')) : undefined;
  if (v4 === undefined) throw new Error(`CNI result: field ips: expected an IPv4 address, got ${JSON.stringify(ips)}`);
  return (v4.address as string).split('/')[0] as string;
}

export interface ContainerFile {
  /** Path inside the container: mountPath + key (or item path). */
  containerPath: string;
  content: string;
}

interface VolumeMount {
  name?: string;
  mountPath?: string;
  subPath?: string;
}

/** The files a container sees from its ConfigMap volumes, as kubelet projects them. */
export function configMapFiles(pod: Json, container: Json, configMaps: Map<string, Json>): ContainerFile[] {
  const volumes = ((pod.spec as Json | undefined)?.volumes ?? []) as Json[];
  const files: ContainerFile[] = [];
  for (const mount of (container.volumeMounts ?? []) as VolumeMount[]) {
    const volume = volumes.find((v) => v.name === mount.name);
    const source = volume?.configMap as { name?: string; items?: { key: string; path: string }[] } | undefined;
    if (source?.name === undefined || mount.mountPath === undefined) continue;
    const data = (configMaps.get(source.name)?.data ?? {}) as Record<string, string>;
    const items = source.items ?? Object.keys(data).map((key) => ({ key, path: key }));
    for (const item of items) {
      const content = data[item.key];
      if (content === undefined) continue;
      if (mount.subPath !== undefined && mount.subPath !== item.path) continue;
      const containerPath = mount.subPath !== undefined ? mount.mountPath : posix.join(mount.mountPath, item.path);
      files.push({ containerPath, content });
    }
  }
  return files;
}

/** The ConfigMaps a pod's volumes name. */
export function configMapNames(pod: Json): string[] {
  const volumes = ((pod.spec as Json | undefined)?.volumes ?? []) as Json[];
  return volumes.map((v) => (v.configMap as { name?: string } | undefined)?.name).filter((n): n is string => typeof n === 'string');
}

/**
 * The hostname a container sees, as kubelet sets it: the pod's spec.hostname,
 * else its name, cut to 63 characters (a DNS label) without a trailing dash or dot.
 */
export function podHostname(pod: Json): string {
  const spec = (pod.spec ?? {}) as Json;
  const meta = (pod.metadata ?? {}) as Json;
  const wanted = typeof spec.hostname === 'string' && spec.hostname !== '' ? spec.hostname : String(meta.name ?? '');
  if (wanted === '') throw new Error('pod: field metadata.name: expected a name to use as the hostname');
  return wanted.slice(0, 63).replace(/[-.]+$/, '');
}

/**
 * The argv that runs a container's process as a runtime would, as far as the
 * lab goes: in the pod's network namespace and in a UTS namespace of its own
 * whose hostname is the pod's. `sh` runs a fixed script; the hostname and the
 * process's argv are its positional arguments, never part of the script.
 */
export function containerArgv(netns: string, hostname: string, argv: readonly string[]): string[] {
  if (!/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(hostname)) throw new Error(`hostname ${JSON.stringify(hostname)}: expected a DNS name`);
  return ['ip', 'netns', 'exec', netns, 'unshare', '--uts', '--', 'sh', '-c', 'hostname "$1" && shift && exec "$@"', 'sh', hostname, ...argv];
}

/** The images the lab can run: nginx's, served by Debian's nginx. */
export function labCanRun(image: string): boolean {
  const name = image.split('@')[0]!.replace(/:[^/]*$/, '');
  return /(^|\/)nginx$/.test(name);
}

export interface PodStatusInput {
  phase: 'Pending' | 'Running' | 'Failed';
  podIP: string | null;
  hostIP: string;
  startTime: string;
  ready: boolean;
  container: {
    name: string;
    /** What really ran (runtime.ts's whatRan): the binary and what it and dpkg said of it. */
    image: string;
    state:
      | { running: { startedAt: string } }
      | { terminated: { exitCode: number; reason: string; startedAt: string; finishedAt: string } }
      | { waiting: { reason: string; message: string } };
    pid: number | null;
  };
  now: string;
}

/** The Pod's status as kubelet reports it (a strategic merge patch of the status subresource). */
export function podStatus(input: PodStatusInput): Json {
  const bool = (b: boolean) => (b ? 'True' : 'False');
  const running = 'running' in input.container.state;
  const started = running || 'terminated' in input.container.state;
  const cond = (type: string, status: boolean) => ({ type, status: bool(status), lastProbeTime: null, lastTransitionTime: input.now });
  return {
    status: {
      phase: input.phase,
      hostIP: input.hostIP,
      hostIPs: [{ ip: input.hostIP }],
      ...(input.podIP === null ? {} : { podIP: input.podIP, podIPs: [{ ip: input.podIP }] }),
      startTime: input.startTime,
      conditions: [
        cond('PodReadyToStartContainers', input.podIP !== null),
        cond('Initialized', true),
        cond('ContainersReady', input.ready),
        cond('Ready', input.ready),
        cond('PodScheduled', true),
      ],
      containerStatuses: [
        {
          name: input.container.name,
          image: input.container.image,
          imageID: '',
          ...(input.container.pid === null ? {} : { containerID: `shice-lab://${input.container.pid}` }),
          ready: input.ready,
          started,
          restartCount: 0,
          state: input.container.state,
        },
      ],
    },
  };
}
