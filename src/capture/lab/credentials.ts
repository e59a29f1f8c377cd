// The run's credentials, made in its folder before any component starts: the
// PKI with openssl (pki.ts's plan: the CA and the ServiceAccount key first,
// the rest side by side), then a kubeconfig per client of the API with
// kubeadm's user names.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOrThrow } from '../machine/checked-run.ts';
import { apiserverURL, kubeconfigPath, kubernetesServiceIP, pkiDir } from './components.ts';
import { controlPlaneOf, type LabLayout } from './layout.ts';
import { KINDNET_USER, kubeconfig, pkiPlan, type PkiPlan } from './pki.ts';
import { runTogether } from './together.ts';

/** One openssl call: a key and a certificate, milliseconds each. */
const OPENSSL_TIMEOUT_MS = 60_000;

/** The PKI of the layout's cluster, with the API server's names and addresses in its certificate. */
export function labPki(layout: LabLayout, folder: string): PkiPlan {
  const cp = controlPlaneOf(layout);
  return pkiPlan(pkiDir(folder), {
    apiserverIPs: [cp.internalIP, kubernetesServiceIP(layout.serviceSubnet), '127.0.0.1'],
    apiserverNames: [cp.k8sName, 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'localhost'],
    nodeNames: layout.nodes.map((n) => n.k8sName),
  });
}

/** Each client of the API as [kubeconfig name, the user its certificate names]. */
function apiClients(layout: LabLayout): [string, string][] {
  return [
    ['admin', 'kubernetes-admin'],
    ['controller-manager', 'system:kube-controller-manager'],
    ['scheduler', 'system:kube-scheduler'],
    ['kube-proxy', 'system:kube-proxy'],
    ['kindnet', KINDNET_USER],
    ...layout.nodes.map((n): [string, string] => [`kubelet-${n.k8sName}`, `system:node:${n.k8sName}`]),
  ];
}

/** The run's CA and certificates, then a kubeconfig per client of the API. */
export async function makeCredentials(layout: LabLayout, folder: string, signal: AbortSignal): Promise<void> {
  const plan = labPki(layout, folder);
  mkdirSync(plan.dir, { mode: 0o700 });
  writeFileSync(plan.config.path, plan.config.content);
  const openssl = (argv: string[]) => (together: AbortSignal) =>
    runOrThrow(argv, { timeoutMs: OPENSSL_TIMEOUT_MS }, "make the run's certificates", { signal: together });
  await runTogether(plan.first.map(openssl), signal);
  await runTogether(plan.then.map(openssl), signal);
  const server = apiserverURL(controlPlaneOf(layout).internalIP);
  mkdirSync(join(folder, 'kubeconfig'));
  for (const [client, user] of apiClients(layout)) {
    const content = kubeconfig({ cluster: layout.clusterName, server, user, pkiRelative: '../pki', client });
    writeFileSync(kubeconfigPath(folder, client), content, { mode: 0o600 });
  }
}
