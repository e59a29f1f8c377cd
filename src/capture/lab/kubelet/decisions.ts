// What the lab kubelet decided, as opposed to what it read from real
// software: one list per node, each value with its source, in both languages,
// for run.yaml and the page. `read` values come from the machine or a tool's
// output; `stand-in` values are the lab's own choice (often kubelet's default).
import { readFileSync } from 'node:fs';
import type { Decision, NodeDecisions } from '../../provider/stand-in.ts';
import { KUBELET_DEFAULT_MAX_PODS, type MachineCapacity } from './machine.ts';
import { LAB_KUBELET_VERSION, LAB_RUNTIME_VERSION } from './objects.ts';
import type { ReadinessProbe } from './probe.ts';
import { HEARTBEAT_MS, type PodObservation, type StopObservation } from './node-agent.ts';
import { whatRanImage, type WhatRan } from './runtime.ts';

export interface NodeObservations {
  capacity: MachineCapacity | null;
  mtu: number | null;
  whatRan: WhatRan | null;
  pods: PodObservation[];
  stops: StopObservation[];
}

function probeValue(probe: ReadinessProbe): string {
  return `httpGet ${probe.path} port ${probe.port}; periodSeconds ${probe.periodSeconds}, initialDelaySeconds ${probe.initialDelaySeconds}, timeoutSeconds ${probe.timeoutSeconds}, successThreshold ${probe.successThreshold}, failureThreshold ${probe.failureThreshold}`;
}

/** Everything the lab kubelet of one node decided or read, in the order a reader meets it. */
export function standInDecisions(seen: NodeObservations): Decision[] {
  const decisions: Decision[] = [];
  if (seen.capacity !== null) {
    decisions.push(
      {
        field: 'node.status.capacity.cpu',
        value: String(seen.capacity.cpu),
        source: 'read',
        from: 'os.cpus()',
        en: 'The node’s CPU capacity is this machine’s count of logical CPUs; every lab node reports the whole machine.',
        zh: '节点的 CPU 容量是本机的逻辑 CPU 数；每个 lab 节点报告的都是整台机器。',
      },
      {
        field: 'node.status.capacity.memory',
        value: `${seen.capacity.memoryKiB}Ki`,
        source: 'read',
        from: '/proc/meminfo MemTotal',
        en: 'The node’s memory capacity is this machine’s MemTotal; every lab node reports the whole machine.',
        zh: '节点的内存容量是本机的 MemTotal；每个 lab 节点报告的都是整台机器。',
      },
      {
        field: 'node.status.capacity.ephemeral-storage',
        value: `${seen.capacity.ephemeralStorageKiB}Ki`,
        source: 'read',
        from: "statfs of the node's state folder",
        en: 'The node’s ephemeral storage is the size of the filesystem that holds its state folder.',
        zh: '节点的临时存储容量是存放其状态目录的文件系统的大小。',
      },
    );
  }
  decisions.push(
    {
      field: 'node.status.capacity.pods',
      value: String(KUBELET_DEFAULT_MAX_PODS),
      source: 'stand-in',
      en: 'The node’s pod capacity is kubelet’s default maxPods, set by the lab kubelet.',
      zh: '节点的 Pod 容量是 kubelet 默认的 maxPods，由 lab kubelet 设定。',
    },
    {
      field: 'node.status.allocatable',
      value: 'capacity',
      source: 'stand-in',
      en: 'Allocatable equals capacity: the lab kubelet reserves nothing for the system and sets no eviction threshold.',
      zh: '可分配资源等于容量：lab kubelet 没有为系统预留资源，也没有设置驱逐阈值。',
    },
    {
      field: 'node.status.nodeInfo',
      value: `kubeletVersion ${LAB_KUBELET_VERSION}, containerRuntimeVersion ${LAB_RUNTIME_VERSION}`,
      source: 'stand-in',
      en: 'The node names the lab kubelet where kubelet and the container runtime report their versions.',
      zh: '节点在 kubelet 和容器运行时报告版本的位置写的是 lab kubelet。',
    },
    {
      field: 'node heartbeat',
      value: `${HEARTBEAT_MS / 1000} s`,
      source: 'stand-in',
      en: 'The lab kubelet patches the node’s conditions and renews its Lease at kubelet’s default interval.',
      zh: 'lab kubelet 按 kubelet 的默认间隔更新节点状态并续约 Lease。',
    },
  );
  if (seen.mtu !== null) {
    decisions.push({
      field: 'cni.conflist.mtu',
      value: String(seen.mtu),
      source: 'read',
      from: "ip -j address show (the interface with the node's InternalIP)",
      en: 'The pods’ MTU in kindnet’s CNI configuration is that of the node’s interface, as the lab reads it.',
      zh: 'kindnet 的 CNI 配置里 Pod 的 MTU 取自节点网卡，由 lab 读取。',
    });
  }
  if (seen.whatRan !== null) {
    decisions.push({
      field: 'pod.status.containerStatuses[].image',
      value: whatRanImage(seen.whatRan),
      source: 'read',
      from: `${seen.whatRan.binary} -v; dpkg-query --search, --show`,
      en: 'The image a pod reports is what the lab really ran: the binary, its own version line and its Debian package, joined by the lab kubelet.',
      zh: 'Pod 报告的镜像是 lab 实际运行的程序：二进制路径、它自己打印的版本行和它的 Debian 包，由 lab kubelet 拼接。',
    });
  }
  decisions.push(
    {
      field: 'pod.status.containerStatuses[].containerID',
      value: 'shice-lab://<pid>',
      source: 'stand-in',
      en: 'A container’s ID is the lab’s name for its process.',
      zh: '容器 ID 是 lab 给其进程起的名字。',
    },
    {
      field: 'pod.status.containerStatuses[].restartCount',
      value: '0',
      source: 'stand-in',
      en: 'A container whose process ends is reported as terminated and not restarted.',
      zh: '进程结束的容器被报告为已终止，不会重启。',
    },
  );
  for (const pod of seen.pods) {
    decisions.push({
      field: `pods.${pod.pod}.hostname`,
      value: pod.hostname,
      source: 'stand-in',
      en: 'The container’s hostname, set by the lab’s runtime in a UTS namespace of its own, by kubelet’s rule (spec.hostname, else the pod’s name).',
      zh: '容器的主机名由 lab 的运行时在独立的 UTS 命名空间里设置，按 kubelet 的规则（spec.hostname，否则用 Pod 名）。',
    });
    if (pod.probe === null) {
      decisions.push({
        field: `pods.${pod.pod}.readiness`,
        value: 'Ready once running',
        source: 'stand-in',
        en: 'The pod has no readiness probe: it is Ready as soon as its process runs, as with kubelet.',
        zh: '这个 Pod 没有就绪探针：进程一运行就是 Ready，和 kubelet 一样。',
      });
    } else {
      decisions.push(
        {
          field: `pods.${pod.pod}.readinessProbe`,
          value: probeValue(pod.probe),
          source: 'read',
          from: "the pod's spec as the API server returned it",
          en: 'The readiness probe runs with the pod spec’s period, delay, timeout and thresholds (the API server’s defaults where the manifest gives none), as kubelet runs it.',
          zh: '就绪探针按 Pod spec 里的周期、延迟、超时和阈值运行（清单没写的取 API server 的默认值），和 kubelet 一样。',
        },
        {
          field: `pods.${pod.pod}.readinessProbe.firstProbe`,
          value: `${pod.probe.periodSeconds} s after the container started`,
          source: 'stand-in',
          en: 'The first probe comes one period after the container started; kubelet’s ticker starts before the container, at a moment of its own.',
          zh: '第一次探测在容器启动后一个周期进行；kubelet 的计时器在容器之前启动，时刻由它自己决定。',
        },
      );
    }
  }
  for (const stop of seen.stops) {
    decisions.push({
      field: `pods.${stop.pod}.stop`,
      value: `${stop.signal}, grace ${stop.graceSeconds} s${stop.killed ? ', then SIGKILL' : ''}; exited after ${stop.exitedInMs} ms`,
      source: 'stand-in',
      en: 'The lab kubelet stopped the container with the nginx image’s stop signal and the pod’s grace period, then tore its network down and deleted the pod; the time a deletion takes is this sequence’s.',
      zh: 'lab kubelet 用 nginx 镜像的停止信号和 Pod 的宽限期停止容器，然后拆除网络并删除 Pod；删除所用的时间就是这一串操作的时间。',
    });
  }
  return decisions;
}

/** The images the node's pods named, each once, in the order met: the lab ran Debian's nginx in their place. */
export function imagesReplaced(pods: readonly PodObservation[]): string[] {
  return [...new Set(pods.map((pod) => pod.image))];
}

/** What a node's decisions.json says the lab kubelet wrote: its decisions, and the images it ran Debian's nginx in place of. */
export interface NodeReport extends NodeDecisions {
  imagesReplaced: string[];
}

/** The images a node's decisions.json names as replaced; a file without that list is one line naming the file and the field. */
export function readImagesReplaced(file: string): string[] {
  const report = readNodeDecisions(file) as Partial<NodeReport>;
  const images = report.imagesReplaced;
  if (!Array.isArray(images) || images.some((image) => typeof image !== 'string')) {
    throw new Error(`${file}: field imagesReplaced: expected a list of image names`);
  }
  return images;
}

/** Reads a node's decisions.json; a malformed one is one line naming the file and the field. */
export function readNodeDecisions(file: string): NodeDecisions {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: expected the lab kubelet's JSON: ${(error as Error).message}`);
  }
  const value = parsed as Partial<NodeDecisions> | null;
  if (typeof value?.node !== 'string') throw new Error(`${file}: field node: expected the node's name`);
  if (!Array.isArray(value.decisions)) throw new Error(`${file}: field decisions: expected a list`);
  value.decisions.forEach((d: Partial<Decision>, i) => {
    for (const field of ['field', 'value', 'zh', 'en'] as const) {
      if (typeof d?.[field] !== 'string') throw new Error(`${file}: field decisions[${i}].${field}: expected a string`);
    }
    if (d.source !== 'stand-in' && d.source !== 'read') throw new Error(`${file}: field decisions[${i}].source: expected "stand-in" or "read"`);
  });
  return value as NodeDecisions;
}
