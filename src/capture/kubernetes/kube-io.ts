// How the platform reaches the cluster: kubectl with the capture's kubeconfig,
// a command on a node through its provider, and a bounded poll. Every call has
// a time limit; an interrupt is a DriverError naming what was being done.
import { judged } from '../machine/checked-run.ts';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { firstLine, runProcess, seconds, sleep, text, type ProcessResult } from '../machine/process.ts';
import type { ClusterAccess } from '../kubectl/access.ts';
import { apiGet, kubeconfigCredentials, type ApiCredentials } from '../kubectl/api-get.ts';
import { kubectlGetPods } from '../kubectl/commands.ts';
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

/** Every pod of the cluster, as the API serves the list (the health check's). */
export const PODS_PATH = '/api/v1/pods';

/** Whether the health check asks the API from the capture's own process: where kubectl would ask from this machine (no runner). */
export const asksApiItself = (target: { runner?: string[] }): boolean => target.runner === undefined;

export class KubeIo {
  readonly provider: NodeProvider;
  readonly access: ClusterAccess;
  readonly timeouts: ApiTimeouts;

  /** The kubeconfig's client certificate, read at the first list of pods (the cluster is up by then); null: kubectl asks. */
  private credentials: ApiCredentials | null | undefined;

  constructor(provider: NodeProvider, access: ClusterAccess, timeouts: ApiTimeouts) {
    this.provider = provider;
    this.access = access;
    this.timeouts = timeouts;
  }

  /**
   * Every pod as the API server lists it now, bounded by the quick limit: the JSON, or why there is none.
   * Asked from this process where kubectl would ask from this machine with a client certificate; by kubectl otherwise.
   */
  async podsNow(ctx: ProviderContext): Promise<{ json: string } | { failed: string }> {
    const what = 'read the pods (health check)';
    const { target, cwd } = this.access;
    if (this.credentials === undefined) {
      const file = resolve(cwd, target.kubeconfig);
      this.credentials = asksApiItself(target) ? kubeconfigCredentials(readFileSync(file, 'utf8'), file, (path) => readFileSync(path)) : null;
    }
    if (this.credentials !== null) {
      const answer = await apiGet(this.credentials, PODS_PATH, this.timeouts.quickMs, ctx.signal);
      if (ctx.signal.aborted) throw new DriverError(`interrupted while: ${what}`);
      if ('failed' in answer) return { failed: answer.failed };
      return answer.status === 200 ? { json: answer.body } : { failed: `HTTP ${answer.status}: ${firstLine(answer.body) || 'no message'}` };
    }
    const run = await this.kubectl(kubectlGetPods(target), this.timeouts.quickMs, what, ctx, false);
    if (run.exitCode === 0) return { json: text(run.stdout) };
    return { failed: run.timedOut ? `no answer within ${seconds(this.timeouts.quickMs)}` : firstLine(text(run.stderr)) || `kubectl exited ${run.exitCode}` };
  }

  /** A command on a node through the provider; interrupts become DriverErrors, a timeout is the caller's to judge. */
  async onNode(node: string, command: string[], timeoutMs: number, ctx: ProviderContext): Promise<ProcessResult> {
    const run = await this.provider.exec(node, command, { timeoutMs }, ctx);
    if (run.canceled) throw new DriverError(`interrupted while: ${command[0]} on ${node}`);
    return run;
  }

  /** A host tool in the node's network (a health probe), bounded; its exit is the caller's to judge. */
  async probeNode(node: string, command: string[], timeoutMs: number, ctx: ProviderContext): Promise<ProcessResult> {
    const run = await this.provider.probe(node, command, { timeoutMs }, ctx);
    if (run.canceled) throw new DriverError(`interrupted while: ${command[0]} probing ${node}`);
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
