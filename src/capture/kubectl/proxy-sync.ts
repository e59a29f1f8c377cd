// Whether kube-proxy has put every Service's endpoints into its rules, read
// from what the API and kube-proxy themselves say: the EndpointSlices list
// each Service's ready Pods, then every node's kube-proxy has no change
// pending and no sync queued (its metrics server's /metrics). A wait on this
// replaces a fixed pause. Pure.
import { parseJson, ToolOutputError } from './api-output.ts';
import { selects, type KubePod, type KubeService } from './topology.ts';
import type { ObjectRef } from './manifest-objects.ts';

/** kube-proxy's own metrics server, beside /proxyMode (metricsBindAddress, kubeadm's default port). */
export const KUBE_PROXY_METRICS = 'http://127.0.0.1:10249/metrics';

/** The ready addresses each Service's EndpointSlices list, by `namespace/name`. */
export function parseEndpointSlices(stdout: string): Map<string, Set<string>> {
  const source = 'kubectl get endpointslices -o json';
  const data = parseJson(stdout, source) as { items?: unknown };
  if (!Array.isArray(data.items)) throw new ToolOutputError(`${source}: expected a List with items`);
  const ready = new Map<string, Set<string>>();
  for (const item of data.items as Array<Record<string, any>>) {
    const service = item.metadata?.labels?.['kubernetes.io/service-name'];
    if (typeof service !== 'string') continue;
    const key = `${item.metadata.namespace}/${service}`;
    const addresses = ready.get(key) ?? new Set<string>();
    for (const endpoint of (item.endpoints ?? []) as Array<Record<string, any>>) {
      // An endpoint without conditions.ready is ready (discovery.k8s.io/v1: "nil should be interpreted as true").
      if (endpoint.conditions?.ready === false) continue;
      for (const address of endpoint.addresses ?? []) addresses.add(String(address));
    }
    ready.set(key, addresses);
  }
  return ready;
}

/**
 * The declared Services whose EndpointSlices do not yet list exactly their ready Pods, each as
 * one phrase; empty once the API has caught up with the Pods.
 */
export function endpointsBehind(
  wanted: readonly ObjectRef[],
  services: readonly KubeService[],
  pods: readonly KubePod[],
  slices: Map<string, Set<string>>,
): string[] {
  const behind: string[] = [];
  for (const ref of wanted) {
    const service = services.find((s) => s.name === ref.name && s.namespace === ref.namespace);
    if (!service || Object.keys(service.selector).length === 0) continue;
    const expected = pods
      .filter((p) => p.namespace === service.namespace && p.ready && !p.terminating && p.ip && selects(service.selector, p.labels))
      .map((p) => p.ip!)
      .sort();
    const listed = [...(slices.get(`${service.namespace}/${service.name}`) ?? [])].sort();
    if (expected.join() !== listed.join())
      behind.push(`${service.namespace}/${service.name} lists ${listed.join(', ') || 'no endpoint'}, its ready pods are ${expected.join(', ') || 'none'}`);
  }
  return behind;
}

export interface ProxySync {
  /**
   * When kube-proxy last finished syncing its rules (IPv4), in seconds since the epoch; null before
   * its first sync, when the labelled gauge has no IPv4 series yet.
   */
  lastSync: number | null;
  /** When it last queued a sync (IPv4), null before it first queued one; a sync is outstanding while this is later than lastSync. */
  lastQueued: number | null;
  /** Changes it has received and not yet synced. */
  pending: number;
}

const sample = (metrics: string, name: string, labels = ''): number | null => {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  if (line === undefined) return null;
  const value = Number(line.slice(line.lastIndexOf(' ') + 1));
  return Number.isFinite(value) ? value : null;
};

/**
 * kube-proxy's sync state from its /metrics (Prometheus text), or a ToolOutputError naming the
 * missing metric. The pending counts are plain gauges, there from the start: their absence means
 * the text is not kube-proxy's. The timestamps are labelled by IP family, and a labelled series
 * exists only once it is first set: before kube-proxy's first sync of IPv4 there is none, which is
 * "not yet", not an error.
 */
export function parseProxySync(metrics: string, source: string): ProxySync {
  const read = (name: string) => {
    const value = sample(metrics, `kubeproxy_sync_proxy_rules_${name}`);
    if (value === null) throw new ToolOutputError(`${source}: no kubeproxy_sync_proxy_rules_${name} in kube-proxy's metrics`);
    return value;
  };
  const v4 = '{ip_family="IPv4"}';
  return {
    pending: read('endpoint_changes_pending') + read('service_changes_pending'),
    lastSync: sample(metrics, 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', v4),
    lastQueued: sample(metrics, 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds', v4),
  };
}

/**
 * Why a node's kube-proxy has not yet put into its rules every change it received (null once it
 * has). Asked after the EndpointSlices were read complete: by then kube-proxy, which watches the
 * same API server, has been told of them.
 */
export function notSynced(sync: ProxySync): string | null {
  if (sync.pending > 0) return `${sync.pending} change(s) pending`;
  if (sync.lastSync === null) return 'no sync of its IPv4 rules yet';
  if (sync.lastQueued !== null && sync.lastQueued > sync.lastSync) return 'a sync queued and not yet run';
  return null;
}
