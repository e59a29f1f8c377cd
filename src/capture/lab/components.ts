// How the lab starts the real Kubernetes components, with the flags kubeadm
// (and so kind) gives them where they matter to the experiment. Pure: argvs and
// config files only; the driver runs them inside the node namespaces.
import { join } from 'node:path';
import type { KubeComponent } from '../machine/kube-bin.ts';
import { PKI_FILES } from './pki.ts';

/** The secure port of the API server, as in kind. */
export const APISERVER_PORT = 6443;
/** etcd listens on the control-plane node's loopback only: nothing outside its namespace can reach it. */
export const ETCD_CLIENT_URL = 'http://127.0.0.1:2379';
const ETCD_PEER_URL = 'http://127.0.0.1:2380';

export interface ControlPlaneInput {
  /** Where the component binaries are. */
  binDir: string;
  /** The run folder: pki/, kubeconfigs, etcd's data. */
  folder: string;
  clusterName: string;
  /** The control-plane node's Kubernetes name and address. */
  nodeName: string;
  nodeIP: string;
  podSubnet: string;
  serviceSubnet: string;
}

export const bin = (binDir: string, component: KubeComponent): string => join(binDir, component);
export const pkiDir = (folder: string): string => join(folder, 'pki');
export const kubeconfigPath = (folder: string, client: string): string => join(folder, 'kubeconfig', `${client}.conf`);
/** The admin kubeconfig relative to the run folder (kubectl runs there): no machine path in a step's argv. */
export const ADMIN_KUBECONFIG = join('kubeconfig', 'admin.conf');

export function apiserverURL(nodeIP: string): string {
  return `https://${nodeIP}:${APISERVER_PORT}`;
}

/** The first address of the service range: the `kubernetes` Service's ClusterIP, in the serving certificate. */
export function kubernetesServiceIP(serviceSubnet: string): string {
  const [base] = serviceSubnet.split('/');
  const octets = (base as string).split('.').map(Number);
  octets[3] = (octets[3] as number) + 1;
  return octets.join('.');
}

export function etcdArgv(input: ControlPlaneInput): string[] {
  return [
    bin(input.binDir, 'etcd'),
    `--name=${input.nodeName}`,
    `--data-dir=${join(input.folder, 'etcd')}`,
    `--listen-client-urls=${ETCD_CLIENT_URL}`,
    `--advertise-client-urls=${ETCD_CLIENT_URL}`,
    `--listen-peer-urls=${ETCD_PEER_URL}`,
    `--initial-advertise-peer-urls=${ETCD_PEER_URL}`,
    `--initial-cluster=${input.nodeName}=${ETCD_PEER_URL}`,
    '--listen-metrics-urls=',
    '--log-level=warn',
  ];
}

export function apiserverArgv(input: ControlPlaneInput): string[] {
  const pki = (file: string) => join(pkiDir(input.folder), file);
  return [
    bin(input.binDir, 'kube-apiserver'),
    `--advertise-address=${input.nodeIP}`,
    `--bind-address=${input.nodeIP}`,
    `--secure-port=${APISERVER_PORT}`,
    `--etcd-servers=${ETCD_CLIENT_URL}`,
    `--service-cluster-ip-range=${input.serviceSubnet}`,
    '--allow-privileged=true',
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
    `--client-ca-file=${pki(PKI_FILES.caCert)}`,
    `--tls-cert-file=${pki(PKI_FILES.apiserverCert)}`,
    `--tls-private-key-file=${pki(PKI_FILES.apiserverKey)}`,
    `--kubelet-client-certificate=${pki('admin.crt')}`,
    `--kubelet-client-key=${pki('admin.key')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki(PKI_FILES.saPub)}`,
    `--service-account-signing-key-file=${pki(PKI_FILES.saKey)}`,
    // The Node's port range as kind has it: the default.
    '--service-node-port-range=30000-32767',
  ];
}

export function controllerManagerArgv(input: ControlPlaneInput): string[] {
  const pki = (file: string) => join(pkiDir(input.folder), file);
  const conf = kubeconfigPath(input.folder, 'controller-manager');
  return [
    bin(input.binDir, 'kube-controller-manager'),
    `--kubeconfig=${conf}`,
    `--authentication-kubeconfig=${conf}`,
    `--authorization-kubeconfig=${conf}`,
    '--bind-address=127.0.0.1',
    `--cluster-name=${input.clusterName}`,
    // kubeadm's list; `*` holds the node IPAM, EndpointSlice, Deployment/ReplicaSet, garbage-collector and node-lifecycle controllers.
    '--controllers=*,bootstrapsigner,tokencleaner',
    '--allocate-node-cidrs=true',
    `--cluster-cidr=${input.podSubnet}`,
    `--service-cluster-ip-range=${input.serviceSubnet}`,
    `--root-ca-file=${pki(PKI_FILES.caCert)}`,
    `--service-account-private-key-file=${pki(PKI_FILES.saKey)}`,
    `--cluster-signing-cert-file=${pki(PKI_FILES.caCert)}`,
    `--cluster-signing-key-file=${pki(PKI_FILES.caKey)}`,
    '--use-service-account-credentials=true',
    // kubeadm leaves the client limit at 20 requests/s, burst 30: minting a token for each of ~45
    // controllers then waits about 5 s on the limiter at every start (measured: nodes Ready in
    // 6.5 s, 1.4-2.1 s without it). The run's own few requests never reach either limit.
    '--kube-api-qps=200',
    '--kube-api-burst=400',
    '--leader-elect=false',
  ];
}

export function schedulerArgv(input: ControlPlaneInput): string[] {
  const conf = kubeconfigPath(input.folder, 'scheduler');
  return [
    bin(input.binDir, 'kube-scheduler'),
    `--kubeconfig=${conf}`,
    `--authentication-kubeconfig=${conf}`,
    `--authorization-kubeconfig=${conf}`,
    '--bind-address=127.0.0.1',
    '--leader-elect=false',
  ];
}

export type ProxyMode = 'iptables' | 'nftables';

/**
 * kube-proxy's configuration as kind writes it (pkg/cluster/internal/kubeadm/config.go):
 * the mode, the cluster CIDR, a 1 s minimum sync period, conntrack's table size left
 * to the kernel (maxPerCore 0: a child namespace cannot set nf_conntrack_max anyway).
 */
export function kubeProxyConfig(options: { mode: ProxyMode; podSubnet: string; kubeconfig: string }): string {
  return [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1',
    'kind: KubeProxyConfiguration',
    `mode: ${options.mode}`,
    `clusterCIDR: ${options.podSubnet}`,
    'clientConnection:',
    `  kubeconfig: ${options.kubeconfig}`,
    'conntrack:',
    '  maxPerCore: 0',
    ...(options.mode === 'nftables' ? ['  tcpBeLiberal: true'] : []),
    'iptables:',
    '  minSyncPeriod: 1s',
    'nftables:',
    '  minSyncPeriod: 1s',
    '',
  ].join('\n');
}

/** One configuration for every node, as kubeadm's DaemonSet has it; the node's name comes as a flag. */
export function kubeProxyArgv(binDir: string, configFile: string, nodeName: string): string[] {
  return [bin(binDir, 'kube-proxy'), `--config=${configFile}`, `--hostname-override=${nodeName}`];
}

/** kubeadm keeps kube-proxy's configuration in kube-system/kube-proxy (key config.conf): so does the lab. */
export const KUBE_PROXY_CONFIGMAP = { namespace: 'kube-system', name: 'kube-proxy', key: 'config.conf' } as const;
