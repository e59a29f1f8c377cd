// Article 075's experiment: three pods of one Deployment, two on one worker and
// one on the other (the scheduler's choice under the manifest's constraints),
// and the same number of requests sent to each worker's NodePort, once per
// traffic policy. Both drivers read this file; facts.ts derives the counts.
import { NGINX_AS_DEBIAN_NGINX_LIGHT } from '../../../src/experiment/substitutes.ts';
import type { Experiment, ExecStep, TopologyView } from '../../../src/experiment/types.ts';

/** How many requests each worker receives per policy, as an external load balancer with equal weights would send them. */
export const REQUESTS_PER_NODE = 300;
/** A single request gives up after this many seconds. */
export const CURL_TIMEOUT_SECONDS = '2';

/**
 * One curl, many requests: the URL glob sends REQUESTS_PER_NODE to worker, then as
 * many to worker2. `Connection: close` makes each a new connection, which
 * kube-proxy balances on its own; every answer prints one line:
 * "<the pod's name> <HTTP status> <the node address it entered by>".
 */
const spread = (service: string) => (t: TopologyView): string[] => [
  'curl', '--silent', '--show-error', '--max-time', CURL_TIMEOUT_SECONDS,
  '--header', 'Connection: close',
  '--write-out', ' %{http_code} %{remote_ip}\\n',
  `http://{${t.ip('worker')},${t.ip('worker2')}}:${t.nodePort(service)}/?request=[1-${REQUESTS_PER_NODE}]`,
];

const healthCheck = (node: string) => (t: TopologyView): string[] => [
  'curl', '--silent', '--show-error', '--include', '--max-time', CURL_TIMEOUT_SECONDS,
  `http://${t.ip(node)}:${t.healthCheckNodePort('s-local')}/`,
];

const fromClient = (id: string, title: string, command: (t: TopologyView) => string[]): ExecStep => ({
  kind: 'exec', id, node: 'control-plane', title, command,
});

export const experiment: Experiment = {
  slug: '075-local-uneven-weights',
  cluster: {
    name: 'kx-main',
    nodes: [
      { name: 'control-plane', role: 'control-plane' },
      { name: 'worker', role: 'worker' },
      { name: 'worker2', role: 'worker' },
    ],
    podSubnet: '10.244.0.0/16',
    serviceSubnet: '10.96.0.0/16',
    kubeProxyMode: 'iptables',
  },
  // Where no registry answers, the kind driver runs Debian's nginx-light in place of the nginx image (said on the page).
  imageSubstitutes: [NGINX_AS_DEBIAN_NGINX_LIGHT],
  // Measured on a real kind cluster (the headline: the system the article is about) and in the namespace lab.
  environments: ['kind', 'lab'],
  manifests: ['manifests/web.yaml', 'manifests/services.yaml'],
  client: 'control-plane',
  steps: [
    fromClient('health-worker', "s-local's health check on worker", healthCheck('worker')),
    fromClient('health-worker2', "s-local's health check on worker2", healthCheck('worker2')),
    fromClient('spread-cluster', 's-cluster: the same number of requests to each worker', spread('s-cluster')),
    fromClient('spread-local', 's-local: the same number of requests to each worker', spread('s-local')),
  ],
};
