// Article 074's experiment: what runs, where, in what order. Both drivers read
// this file; the facts the article binds are derived in facts.ts.
import { NGINX_AS_DEBIAN_NGINX_LIGHT } from '../../../src/experiment/substitutes.ts';
import type { Experiment, ExecStep, TopologyView } from '../../../src/experiment/types.ts';

/** curl gives up after this many seconds; the DROP under Local shows up as curl's exit code 28. */
export const CURL_TIMEOUT_SECONDS = '3';

const curl = (url: string): string[] => ['curl', '--silent', '--show-error', '--max-time', CURL_TIMEOUT_SECONDS, url];
/** --include keeps the status line and headers: the health check's answer is its status and body. */
const curlWithHeaders = (url: string): string[] => [
  'curl', '--silent', '--show-error', '--include', '--max-time', CURL_TIMEOUT_SECONDS, url,
];

const fromClient = (id: string, title: string, command: (t: TopologyView) => string[]): ExecStep => ({
  kind: 'exec', id, node: 'control-plane', title, command,
});

export const experiment: Experiment = {
  slug: '074-external-traffic-policy',
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
  manifests: ['manifests/backend.yaml', 'manifests/services.yaml'],
  client: 'control-plane',
  steps: [
    fromClient('cluster-via-worker', 's-cluster via the node with the backend',
      (t) => curl(`http://${t.ip('worker')}:${t.nodePort('s-cluster')}/`)),
    {
      // The gateway the CNI put on the host side of the backend's veth, as worker holds it.
      kind: 'exec', id: 'addresses-worker', node: 'worker',
      title: "worker's IPv4 addresses",
      command: () => ['ip', '-j', '-4', 'address', 'show'],
    },
    fromClient('cluster-via-worker2', 's-cluster via the node without a backend',
      (t) => curl(`http://${t.ip('worker2')}:${t.nodePort('s-cluster')}/`)),
    {
      kind: 'exec', id: 'conntrack-worker2', node: 'worker2',
      title: "worker2's conntrack entries for s-cluster's NodePort",
      command: (t) => ['conntrack', '-L', '-p', 'tcp', '--orig-port-dst', t.nodePort('s-cluster')],
    },
    fromClient('local-via-worker', 's-local via the node with the backend',
      (t) => curl(`http://${t.ip('worker')}:${t.nodePort('s-local')}/`)),
    fromClient('local-via-worker2', 's-local via the node without a backend',
      (t) => curl(`http://${t.ip('worker2')}:${t.nodePort('s-local')}/`)),
    {
      kind: 'exec', id: 'filter-worker2', node: 'worker2',
      title: "worker2's filter table",
      command: () => ['iptables-save', '-t', 'filter'],
      variants: ['iptables'],
    },
    {
      // Where the masquerade the article explains is written: worker, with the backend, holds both
      // Services' external chains (Cluster marks every connection, Local only the node's own).
      kind: 'exec', id: 'nat-worker', node: 'worker',
      title: "worker's nat table",
      command: () => ['iptables-save', '-t', 'nat'],
      variants: ['iptables'],
    },
    {
      // In nftables mode kube-proxy keeps its rules in its own table: the drop lives there.
      kind: 'exec', id: 'nft-worker2', node: 'worker2',
      title: "kube-proxy's nftables table on worker2",
      command: () => ['nft', 'list', 'table', 'ip', 'kube-proxy'],
      variants: ['nftables'],
    },
    fromClient('health-worker', "s-lb's health check on worker",
      (t) => curlWithHeaders(`http://${t.ip('worker')}:${t.healthCheckNodePort('s-lb')}/`)),
    fromClient('health-worker2', "s-lb's health check on worker2",
      (t) => curlWithHeaders(`http://${t.ip('worker2')}:${t.healthCheckNodePort('s-lb')}/`)),
    fromClient('health-control-plane', "s-lb's health check on the control-plane",
      (t) => curlWithHeaders(`http://${t.ip('control-plane')}:${t.healthCheckNodePort('s-lb')}/`)),
    {
      kind: 'delete-pod', id: 'delete-backend', title: 'delete the backend pod',
      pod: 'backend', namespace: 'default', settleNode: 'worker', settleService: 's-lb',
    },
    fromClient('health-worker-after-delete', "s-lb's health check on worker after the delete",
      (t) => curlWithHeaders(`http://${t.ip('worker')}:${t.healthCheckNodePort('s-lb')}/`)),
  ],
  // The same experiment under each of kube-proxy's modes; iptables (the first) is the default run.
  // ipvs needs IPVS in the kernel: the lab refuses it, kind passes it to its cluster config.
  variants: { axis: 'kubeProxyMode', values: ['iptables', 'nftables', 'ipvs'] },
};
