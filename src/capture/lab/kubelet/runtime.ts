// The container runtime part of the lab kubelet (what containerd and runc do
// for kubelet): a pod's sandbox (a network namespace set up by the CNI plugins
// of kindnet's conflist), its container's process (Debian's nginx for an nginx
// image) in a UTS namespace named after the pod, with the ConfigMap files it
// mounts, and the stop sequence: the image's stop signal, the grace period,
// then SIGKILL. Every side effect goes through RuntimeIO.
import { dirname, join } from 'node:path';
import { NGINX_BINARY, nginxMainConfig, nginxPaths } from '../nginx.ts';
import { containerArgv, LOOPBACK_CONF, pluginInput, podIPFromResult, type ContainerFile, type Json } from './objects.ts';

/** The nginx image's STOPSIGNAL (its Dockerfile): the lab has no image to read it from, so it is named here. */
export const NGINX_STOP_SIGNAL = 'SIGQUIT';
/** kubelet never gives a container less (minimumGracePeriodInSeconds in kuberuntime_manager.go). */
export const KUBELET_MINIMUM_GRACE_S = 2;
/** The API server's default terminationGracePeriodSeconds, kubelet's when a pod names none. */
export const DEFAULT_GRACE_S = 30;

export interface Exit {
  code: number | null;
  signal: string | null;
}

export interface ContainerProcess {
  pid: number | null;
  exited: Promise<Exit>;
}

export interface RuntimeIO {
  /** Runs a command to its end, under a time limit; rejects when it fails. */
  run(argv: string[]): Promise<{ stdout: string; stderr: string }>;
  /** Runs one CNI plugin with `stdin` and the CNI_* variables, under a time limit; resolves with its stdout. */
  cniPlugin(path: string, env: Record<string, string>, stdin: string): Promise<string>;
  /** Starts a long-running process, its output appended to `logFile`; rejects when it cannot start. */
  spawn(argv: string[], logFile: string): Promise<ContainerProcess>;
  kill(pid: number, signal: string): void;
  /** Writes a file, making its folder first. */
  writeFile(path: string, content: string): void;
  sleep(ms: number): Promise<void>;
  log(line: string): void;
}

export interface PodRef {
  uid: string;
  namespace: string;
  name: string;
}

export interface Sandbox {
  netns: string;
  ip: string;
}

/** The CNI_* variables of one plugin call for a pod's sandbox (the CNI spec's runtime parameters). */
export function cniEnv(command: 'ADD' | 'DEL', pod: PodRef, netns: string, cniBin: string, ifname: string): Record<string, string> {
  return {
    CNI_COMMAND: command,
    CNI_CONTAINERID: pod.uid,
    CNI_NETNS: `/var/run/netns/${netns}`,
    CNI_IFNAME: ifname,
    CNI_PATH: cniBin,
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${pod.namespace};K8S_POD_NAME=${pod.name};K8S_POD_INFRA_CONTAINER_ID=${pod.uid}`,
  };
}

/**
 * The grace period kubelet gives a container being stopped: the deletion's,
 * else the pod spec's terminationGracePeriodSeconds, never under 2 s.
 */
export function gracePeriodSeconds(pod: Json | null): number {
  const meta = (pod?.metadata ?? {}) as Json;
  const spec = (pod?.spec ?? {}) as Json;
  const asked = [meta.deletionGracePeriodSeconds, spec.terminationGracePeriodSeconds].find((v) => typeof v === 'number');
  return Math.max(typeof asked === 'number' ? asked : DEFAULT_GRACE_S, KUBELET_MINIMUM_GRACE_S);
}

/** The parts of what ran, each as a tool printed it. */
export interface WhatRan {
  binary: string;
  /** `nginx -v`'s line, e.g. "nginx version: nginx/1.22.1". */
  version: string;
  /** `dpkg-query --search` and `--show` on the binary, e.g. "nginx 1.22.1-9+deb12u11"; null when dpkg knows no package. */
  debianPackage: string | null;
}

/**
 * The lab's image string for status.containerStatuses[].image, where a runtime
 * reports the image it ran: the binary it started and, verbatim, what the
 * binary and dpkg said of it. Only the way they are joined is the lab's.
 */
export function whatRanImage(ran: WhatRan): string {
  return `${ran.binary} (${ran.version}${ran.debianPackage === null ? '' : `; Debian package ${ran.debianPackage}`})`;
}

/** The first non-empty line of a tool's output. */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

/** `dpkg-query --search PATH` prints "package: path" (a diversion: "diversion by ..." lines first). */
export function packageOfPath(searchOutput: string, path: string): string | null {
  for (const line of searchOutput.split('\n')) {
    const match = /^([^\s:,]+)(?:, [^\s:,]+)*: (.+)$/.exec(line.trim());
    if (match !== null && match[2] === path) return match[1] as string;
  }
  return null;
}

export class LabRuntime {
  private readonly io: RuntimeIO;
  private readonly runFolder: string;
  private readonly netnsPrefix: string;
  private readonly cniBin: string;
  private whatRanAsked: Promise<WhatRan> | null = null;

  constructor(options: { io: RuntimeIO; runFolder: string; netnsPrefix: string; cniBin: string }) {
    this.io = options.io;
    this.runFolder = options.runFolder;
    this.netnsPrefix = options.netnsPrefix;
    this.cniBin = options.cniBin;
  }

  netnsOf(pod: PodRef): string {
    return `${this.netnsPrefix}pod.${pod.namespace}.${pod.name}`;
  }

  private async cni(command: 'ADD' | 'DEL', config: Json, pod: PodRef, ifname: string): Promise<Json> {
    const stdout = await this.io.cniPlugin(
      join(this.cniBin, String(config.type)),
      cniEnv(command, pod, this.netnsOf(pod), this.cniBin, ifname),
      JSON.stringify(config),
    );
    return stdout.trim() === '' ? {} : (JSON.parse(stdout) as Json);
  }

  /** The pod's network namespace, its loopback, then the conflist's plugins in order; the pod's IP from the last result. */
  async runSandbox(pod: PodRef, conflist: Json): Promise<Sandbox> {
    const netns = this.netnsOf(pod);
    await this.io.run(['ip', 'netns', 'add', netns]);
    await this.cni('ADD', LOOPBACK_CONF, pod, 'lo');
    let result: Json | null = null;
    for (const plugin of conflist.plugins as Json[]) result = await this.cni('ADD', pluginInput(conflist, plugin, result), pod, 'eth0');
    return { netns, ip: podIPFromResult(result ?? {}) };
  }

  /** The plugins' DEL in reverse order, then the namespace; each failure is logged and the rest still runs. */
  async removeSandbox(pod: PodRef, conflist: Json): Promise<void> {
    for (const plugin of [...(conflist.plugins as Json[])].reverse()) {
      await this.cni('DEL', pluginInput(conflist, plugin, null), pod, 'eth0').catch((e) => this.io.log((e as Error).message));
    }
    await this.cni('DEL', LOOPBACK_CONF, pod, 'lo').catch((e) => this.io.log((e as Error).message));
    const netns = this.netnsOf(pod);
    await this.io.run(['ip', 'netns', 'del', netns]).catch((e) => this.io.log(`ip netns del ${netns}: ${(e as Error).message}`));
  }

  /** The container's files (the ConfigMap files at their mount paths, nginx's main config) and its process. */
  startContainer(pod: PodRef, sandbox: Sandbox, hostname: string, files: ContainerFile[]): Promise<ContainerProcess> {
    const paths = nginxPaths(this.runFolder, pod);
    for (const file of files) this.io.writeFile(join(paths.rootfs, file.containerPath), file.content);
    this.io.writeFile(paths.config, nginxMainConfig(paths));
    const argv = containerArgv(sandbox.netns, hostname, [NGINX_BINARY, '-p', paths.root, '-c', paths.config, '-e', paths.errorLog]);
    return this.io.spawn(argv, join(dirname(paths.config), 'container.log'));
  }

  /**
   * kubelet's kill: the stop signal, up to the grace period for the process to
   * end, then SIGKILL. The pid is `ip netns exec`'s, which execs unshare, sh and
   * then nginx: the same process. Says whether SIGKILL was needed.
   */
  async stopContainer(container: ContainerProcess, graceSeconds: number): Promise<{ signal: string; killed: boolean; exit: Exit }> {
    if (container.pid === null) return { signal: NGINX_STOP_SIGNAL, killed: false, exit: await container.exited };
    const pid = container.pid;
    const send = (signal: string) => {
      try {
        this.io.kill(pid, signal);
      } catch {} // it may have ended already
    };
    send(NGINX_STOP_SIGNAL);
    const graceOver = Symbol('grace over');
    const first = await Promise.race([container.exited, this.io.sleep(graceSeconds * 1000).then(() => graceOver)]);
    if (first !== graceOver) return { signal: NGINX_STOP_SIGNAL, killed: false, exit: first as Exit };
    send('SIGKILL');
    return { signal: NGINX_STOP_SIGNAL, killed: true, exit: await container.exited };
  }

  /** What the runtime runs for an nginx image, asked of the binary and of dpkg once. */
  whatRan(): Promise<WhatRan> {
    this.whatRanAsked ??= this.readWhatRan();
    return this.whatRanAsked;
  }

  private async readWhatRan(): Promise<WhatRan> {
    const version = await this.io.run([NGINX_BINARY, '-v']);
    const line = firstLine(version.stderr) || firstLine(version.stdout);
    if (line === '') throw new Error(`${NGINX_BINARY} -v: expected a version line, got nothing`);
    let debianPackage: string | null = null;
    try {
      const name = packageOfPath((await this.io.run(['dpkg-query', '--search', NGINX_BINARY])).stdout, NGINX_BINARY);
      if (name !== null) debianPackage = firstLine((await this.io.run(['dpkg-query', '--show', '--showformat=${Package} ${Version}', name])).stdout) || null;
    } catch (error) {
      this.io.log(`dpkg-query on ${NGINX_BINARY}: ${(error as Error).message} (the status names no package)`);
    }
    return { binary: NGINX_BINARY, version: line, debianPackage };
  }
}
