// How the platform reaches the cluster: kubectl with the capture's kubeconfig,
// a command on a node through its provider, and a bounded poll. Every call has
// a time limit; an interrupt is a DriverError naming what was being done.
import { judged } from '../checked-run.ts';
import { runProcess, seconds, sleep, type ProcessResult } from '../process.ts';
import type { ClusterAccess } from '../kubectl/access.ts';
import { DriverError, type NodeProvider, type ProviderContext } from '../provider/node-provider.ts';

/** Upper bounds of the API calls and waits, in milliseconds. */
export interface ApiTimeouts {
  /** single reads, version checks, health probes */
  quickMs: number;
  /** `kubectl apply` and `kubectl get` */
  kubectlMs: number;
  /** `kubectl wait` (which has its own --timeout) */
  waitMs: number;
  /** `kubectl delete pod --wait=true` */
  deletePodMs: number;
  /** interval and bound of the polls (the default ServiceAccount, the endpoints, kube-proxy's syncs, the health checks) */
  settlePollMs: number;
  settleTimeoutMs: number;
}

export const DEFAULT_API_TIMEOUTS: ApiTimeouts = {
  quickMs: 15_000,
  kubectlMs: 60_000,
  waitMs: 150_000,
  deletePodMs: 90_000,
  settlePollMs: 100,
  settleTimeoutMs: 30_000,
};

/** kube-proxy's own health server (healthzBindAddress, kubeadm's default port) and metrics server. */
export const KUBE_PROXY_HEALTHZ = 'http://127.0.0.1:10256/healthz';
export const KUBE_PROXY_MODE = 'http://127.0.0.1:10249/proxyMode';
/** The control plane's secure health endpoints, bound to the node's loopback by kubeadm and by the lab. */
export const CONTROL_PLANE_HEALTHZ: [string, string][] = [
  ['kube-controller-manager', 'https://127.0.0.1:10257/healthz'],
  ['kube-scheduler', 'https://127.0.0.1:10259/healthz'],
];

/** A probe answered with the body text or the reason it did not answer. */
export const probeOf = (url: string, insecure = false): string[] => ['curl', '--silent', '--max-time', '2', ...(insecure ? ['--insecure'] : []), url];

/**
 * Several health endpoints of one node asked at once by one curl (one command through the provider,
 * not one each): per URL a line `<url> <HTTP status> <curl exit>`, in the order they answered, each
 * transfer bounded by 2 s. curl 7.75 or later (%{url}, %{exitcode}).
 */
export const probesOf = (urls: readonly string[]): string[] => [
  'curl',
  '--silent',
  '--no-progress-meter',
  '--insecure',
  '--max-time',
  '2',
  '--parallel',
  '--parallel-immediate',
  ...urls.flatMap(() => ['--output', '/dev/null']),
  '--write-out',
  '%{url} %{http_code} %{exitcode}\\n',
  ...urls,
];

/** How one endpoint answered: its HTTP status (0 for none) and curl's exit code for it (0: answered). */
export interface ProbeAnswer {
  status: number;
  curlExit: number;
}

/** The lines probesOf's curl printed, by URL; a line that is not one is ignored. Pure. */
export function parseProbeAnswers(stdout: string): Map<string, ProbeAnswer> {
  const answers = new Map<string, ProbeAnswer>();
  for (const line of stdout.split('\n')) {
    const m = /^(\S+) (\d{3}) (\d+)$/.exec(line.trim());
    if (m) answers.set(m[1]!, { status: Number(m[2]), curlExit: Number(m[3]) });
  }
  return answers;
}

/** `command` in the network namespace at `path` (a pod's), the rest of its world the node's: util-linux's nsenter, on every node. */
export const inNetns = (path: string, command: string[]): string[] => ['nsenter', `--net=${path}`, '--', ...command];

export class KubeIo {
  readonly provider: NodeProvider;
  readonly access: ClusterAccess;
  readonly timeouts: ApiTimeouts;

  constructor(provider: NodeProvider, access: ClusterAccess, timeouts: ApiTimeouts) {
    this.provider = provider;
    this.access = access;
    this.timeouts = timeouts;
  }

  /** A command on a node through the provider; interrupts become DriverErrors, a timeout is the caller's to judge. */
  async onNode(node: string, command: string[], timeoutMs: number, ctx: ProviderContext): Promise<ProcessResult> {
    const run = await this.provider.exec(node, command, { timeoutMs }, ctx);
    if (run.canceled) throw new DriverError(`interrupted while: ${command[0]} on ${node}`);
    return run;
  }

  /** kubectl with the capture's kubeconfig; with `mustSucceed`, anything but exit 0 is a DriverError naming what and why. */
  async kubectl(argv: string[], timeoutMs: number, what: string, ctx: ProviderContext, mustSucceed = true, input?: string): Promise<ProcessResult> {
    const run = await runProcess(argv, {
      env: this.access.env,
      cwd: this.access.cwd,
      timeoutMs,
      signal: ctx.signal,
      ...(input === undefined ? {} : { input }),
    });
    return judged(run, what, timeoutMs, mustSucceed);
  }

  /** Calls `check` every settlePollMs until it holds; past settleTimeoutMs, a DriverError names what did not happen. */
  async poll(check: () => Promise<boolean>, ctx: ProviderContext, what: string, why: () => string = () => 'did not appear'): Promise<void> {
    const { settlePollMs, settleTimeoutMs } = this.timeouts;
    const deadline = performance.now() + settleTimeoutMs;
    for (;;) {
      if (await check()) return;
      if (performance.now() >= deadline) throw new DriverError(`${what} ${why()} after ${seconds(settleTimeoutMs)}`);
      try {
        await sleep(settlePollMs, ctx.signal);
      } catch {
        throw new DriverError(`interrupted while waiting for ${what}`);
      }
    }
  }
}
