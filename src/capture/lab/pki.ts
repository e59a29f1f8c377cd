// The run's own PKI, made with openssl inside the run folder: a cluster CA,
// the API server's serving certificate, a client certificate per component
// (with the user and group names Kubernetes' built-in RBAC binds), and the
// ServiceAccount signing key. Same subjects as kubeadm's, so the components
// are authorised exactly as in a kind cluster. Pure: the argvs only.
import { join } from 'node:path';

/** What a client certificate says: the user (CN) and groups (O) the API server sees. */
export interface ClientIdentity {
  /** File name stem under pki/ */
  file: string;
  cn: string;
  groups: string[];
}

export interface PkiPlan {
  dir: string;
  /** openssl's config: only the prompt-less distinguished name, so no default extension sneaks in. */
  config: { path: string; content: string };
  /** In order: the CA and the SA key first, then the rest (which can run side by side). */
  first: string[][];
  then: string[][];
}

/** Certificates live a day: a run takes seconds, and a kept lab is for looking, not for keeping. */
const DAYS = '1';
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export const PKI_FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  apiserverCert: 'apiserver.crt',
  apiserverKey: 'apiserver.key',
  saKey: 'sa.key',
  saPub: 'sa.pub',
} as const;

export const KINDNET_USER = 'kindnet';

/** kind's ClusterRole for kindnetd, as far as routing needs it, bound to the lab's kindnet user. */
export function kindnetRbac(): string {
  return [
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: ClusterRole',
    'metadata:',
    '  name: kindnet',
    'rules:',
    '- apiGroups: [""]',
    '  resources: [nodes]',
    '  verbs: [list, watch, get]',
    '---',
    'apiVersion: rbac.authorization.k8s.io/v1',
    'kind: ClusterRoleBinding',
    'metadata:',
    '  name: kindnet',
    'roleRef:',
    '  apiGroup: rbac.authorization.k8s.io',
    '  kind: ClusterRole',
    '  name: kindnet',
    'subjects:',
    '- apiGroup: rbac.authorization.k8s.io',
    '  kind: User',
    `  name: ${KINDNET_USER}`,
    '',
  ].join('\n');
}

/** The clients of the API in a kind cluster, with kubeadm's subjects. */
export function clientIdentities(nodeNames: string[]): ClientIdentity[] {
  return [
    { file: 'admin', cn: 'kubernetes-admin', groups: ['system:masters'] },
    { file: 'controller-manager', cn: 'system:kube-controller-manager', groups: [] },
    { file: 'scheduler', cn: 'system:kube-scheduler', groups: [] },
    { file: 'kube-proxy', cn: 'system:kube-proxy', groups: [] },
    // kindnetd's part of the lab kubelet (routes to other nodes' pod CIDRs) lists nodes, as kindnetd's ServiceAccount does.
    { file: 'kindnet', cn: KINDNET_USER, groups: [] },
    // The lab kubelet authenticates as the node, as kubelet does (Node authorizer).
    ...nodeNames.map((name) => ({ file: `kubelet-${name}`, cn: `system:node:${name}`, groups: ['system:nodes'] })),
  ];
}

function subject(identity: Pick<ClientIdentity, 'cn' | 'groups'>): string {
  return [...identity.groups.map((g) => `/O=${g}`), `/CN=${identity.cn}`].join('');
}

export function pkiPlan(dir: string, options: { apiserverIPs: string[]; apiserverNames: string[]; nodeNames: string[] }): PkiPlan {
  const at = (file: string) => join(dir, file);
  const config = at('openssl.cnf');
  const base = ['openssl', 'req', '-config', config, '-x509', ...EC, '-days', DAYS];
  const signed = (key: string, cert: string, subj: string, ...ext: string[]) => [
    ...base,
    '-keyout',
    at(key),
    '-out',
    at(cert),
    '-subj',
    subj,
    '-CA',
    at(PKI_FILES.caCert),
    '-CAkey',
    at(PKI_FILES.caKey),
    '-addext',
    'basicConstraints=critical,CA:FALSE',
    '-addext',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    ...ext.flatMap((e) => ['-addext', e]),
  ];
  const san = [...options.apiserverIPs.map((ip) => `IP:${ip}`), ...options.apiserverNames.map((n) => `DNS:${n}`)].join(',');
  return {
    dir,
    config: { path: config, content: '[req]\nprompt = no\ndistinguished_name = dn\n[dn]\n' },
    first: [
      [
        ...base,
        '-keyout',
        at(PKI_FILES.caKey),
        '-out',
        at(PKI_FILES.caCert),
        '-subj',
        '/CN=kubernetes',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign',
      ],
      ['openssl', 'genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at(PKI_FILES.saKey)],
    ],
    then: [
      signed(PKI_FILES.apiserverKey, PKI_FILES.apiserverCert, '/CN=kube-apiserver', 'extendedKeyUsage=serverAuth', `subjectAltName=${san}`),
      ['openssl', 'pkey', '-in', at(PKI_FILES.saKey), '-pubout', '-out', at(PKI_FILES.saPub)],
      ...clientIdentities(options.nodeNames).map((id) => signed(`${id.file}.key`, `${id.file}.crt`, subject(id), 'extendedKeyUsage=clientAuth')),
    ],
  };
}

/**
 * A kubeconfig for one client. Paths are relative to the kubeconfig's own
 * folder (kubectl and client-go resolve them so), which keeps argvs and
 * snapshots free of this machine's paths.
 */
export function kubeconfig(options: { cluster: string; server: string; user: string; pkiRelative: string; client: string }): string {
  const pki = (file: string) => `${options.pkiRelative}/${file}`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${options.cluster}`,
    '  cluster:',
    `    server: ${options.server}`,
    `    certificate-authority: ${pki(PKI_FILES.caCert)}`,
    'users:',
    `- name: ${options.user}`,
    '  user:',
    `    client-certificate: ${pki(`${options.client}.crt`)}`,
    `    client-key: ${pki(`${options.client}.key`)}`,
    'contexts:',
    `- name: ${options.user}@${options.cluster}`,
    '  context:',
    `    cluster: ${options.cluster}`,
    `    user: ${options.user}`,
    `current-context: ${options.user}@${options.cluster}`,
    '',
  ].join('\n');
}
