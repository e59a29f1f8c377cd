// The kind config the capture writes, what it reads from the manifests, and the argv builders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import { experiment074 as experiment } from '../support/articles.ts';
import { checkNodeNaming, expectedNodeNames, ownerLabels, renderKindConfig } from '../../src/capture/kind/config.ts';
import { declaredObjects } from '../../src/capture/kubectl/manifest-objects.ts';
import * as cmd from '../../src/capture/kind/commands.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';

const manifest = (name: string) => readFile(new URL(`../../content/articles/074-external-traffic-policy/manifests/${name}`, import.meta.url), 'utf8');

test("kind config: v1alpha4, one control-plane and two workers, iptables stated, the experiment's subnets, owner labels", () => {
  const config = load(renderKindConfig(experiment.cluster, '20261202-110800-k7q2')) as Record<string, any>;
  assert.equal(config.apiVersion, 'kind.x-k8s.io/v1alpha4');
  assert.equal(config.kind, 'Cluster');
  assert.equal(config.name, 'kx-main');
  assert.deepEqual(config.networking, { kubeProxyMode: 'iptables', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/16' });
  assert.deepEqual(
    config.nodes.map((n: { role: string }) => n.role),
    ['control-plane', 'worker', 'worker'],
  );
  for (const n of config.nodes) assert.deepEqual(n.labels, { 'shice/created-by': 'shice', 'shice/run-id': '20261202-110800-k7q2' });
  const other = load(renderKindConfig({ ...experiment.cluster, podSubnet: '10.32.0.0/16', serviceSubnet: '10.112.0.0/16' }, 'r')) as Record<string, any>;
  assert.deepEqual(other.networking, { kubeProxyMode: 'iptables', podSubnet: '10.32.0.0/16', serviceSubnet: '10.112.0.0/16' });
});

test("kind config: each variant's kube-proxy mode goes to kind's networking.kubeProxyMode, ipvs included", () => {
  for (const mode of ['iptables', 'nftables', 'ipvs'] as const) {
    const config = load(renderKindConfig(experimentForVariant(experiment, mode).cluster, 'r')) as { networking: { kubeProxyMode: string } };
    assert.equal(config.networking.kubeProxyMode, mode);
  }
});

test('kind config: exactly one control-plane; a run id that is no label value is left out', () => {
  const twoCP = { ...experiment.cluster, nodes: [...experiment.cluster.nodes, { name: 'control-plane2', role: 'control-plane' as const }] };
  assert.throws(() => renderKindConfig(twoCP, 'r'), /article\.ts experiment\.cluster\.nodes: expected exactly one control-plane node, got 2/);
  assert.deepEqual(ownerLabels('-bad-'), { 'shice/created-by': 'shice' });
  assert.deepEqual(ownerLabels('x'.repeat(64)), { 'shice/created-by': 'shice' });
});

test('node names must be the ones kind gives: control-plane, worker, worker2', () => {
  assert.deepEqual(expectedNodeNames(experiment.cluster), ['control-plane', 'worker', 'worker2']);
  checkNodeNaming(experiment.cluster);
  const renamed = { ...experiment.cluster, nodes: [experiment.cluster.nodes[0]!, { name: 'worker1', role: 'worker' as const }, experiment.cluster.nodes[2]!] };
  assert.throws(
    () => checkNodeNaming(renamed),
    /article\.ts experiment\.cluster\.nodes\[1\]\.name: kind names this worker "worker", the experiment says "worker1"/,
  );
});

test('manifests: declared pods, services (which get a health check) and images', async () => {
  const objects = declaredObjects([
    { file: 'manifests/backend.yaml', text: await manifest('backend.yaml') },
    { file: 'manifests/services.yaml', text: await manifest('services.yaml') },
  ]);
  assert.deepEqual(objects.pods, [{ name: 'backend', namespace: 'default' }]);
  assert.deepEqual(objects.services, [
    { name: 's-cluster', namespace: 'default', healthCheck: false },
    { name: 's-local', namespace: 'default', healthCheck: false },
    { name: 's-lb', namespace: 'default', healthCheck: true },
  ]);
  assert.deepEqual(objects.images, ['nginx:1.27-alpine']);
});

test('manifests: workload images are found; broken documents name the file and field', () => {
  const deployment =
    'kind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    spec:\n      initContainers: [{name: i, image: busybox:1.37}]\n      containers: [{name: c, image: nginx:1.27-alpine}]\n---\n';
  assert.deepEqual(declaredObjects([{ file: 'd.yaml', text: deployment }]), {
    pods: [],
    workloads: [{ kind: 'Deployment', name: 'web', namespace: 'default', selector: { app: 'web' } }],
    services: [],
    images: ['busybox:1.37', 'nginx:1.27-alpine'],
  });
  assert.throws(
    () => declaredObjects([{ file: 'd.yaml', text: 'kind: Deployment\nmetadata: {name: web}\nspec: {}\n' }]),
    /d\.yaml \(document 1\): field spec\.selector\.matchLabels: expected the labels of the Deployment's Pods/,
  );
  assert.deepEqual(
    declaredObjects([{ file: 'r.yaml', text: 'kind: NetworkPolicy\nmetadata: {name: n}\nspec: {}\n' }]).workloads,
    [],
    "other kinds are the API server's to judge",
  );
  const internal =
    'kind: Service\nmetadata: {name: db}\nspec: {selector: {app: db}, ports: [{port: 5432}]}\n---\nkind: Service\nmetadata: {name: ext}\nspec: {type: ExternalName, externalName: example.org}\n';
  assert.deepEqual(
    declaredObjects([{ file: 's.yaml', text: internal }]).services,
    [{ name: 'db', namespace: 'default', healthCheck: false }],
    'a ClusterIP Service is read back (its address); an ExternalName Service is applied and left alone',
  );
  const headless = 'kind: Service\nmetadata: {name: peers}\nspec: {clusterIP: None, selector: {app: db}, ports: [{port: 5432}]}\n';
  assert.deepEqual(declaredObjects([{ file: 'h.yaml', text: headless }]).services, [], 'a headless Service has no address to read back');
  assert.throws(
    () => declaredObjects([{ file: 'x.yaml', text: 'kind: Pod\nmetadata: {}\n' }]),
    /x\.yaml \(document 1\): field metadata\.name: expected a string/,
  );
  assert.throws(
    () => declaredObjects([{ file: 'x.yaml', text: 'kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n' }]),
    /x\.yaml \(document 1\): field spec\.containers\[0\]\.image: expected an image name/,
  );
  assert.throws(() => declaredObjects([{ file: 'x.yaml', text: 'kind: [\n' }]), /x\.yaml: not valid YAML/);
});

test('argv builders: kubectl always gets the kubeconfig first; kind only where it takes one', () => {
  const t = { cluster: 'kx-main', kubeconfig: '/s/kubeconfig' };
  assert.deepEqual(cmd.kubectlGetNodes(t), ['kubectl', '--kubeconfig', '/s/kubeconfig', 'get', 'nodes', '-o', 'json']);
  assert.deepEqual(cmd.kindCreateCluster(t, '/s/c.yaml'), [
    'kind',
    'create',
    'cluster',
    '--name',
    'kx-main',
    '--config',
    '/s/c.yaml',
    '--kubeconfig',
    '/s/kubeconfig',
    '--wait',
    '120s',
  ]);
  assert.deepEqual(cmd.kindGetClusters(), ['kind', 'get', 'clusters']);
  assert.deepEqual(cmd.kindLoadImage(t, 'nginx:1.27-alpine'), ['kind', 'load', 'docker-image', 'nginx:1.27-alpine', '--name', 'kx-main']);
  assert.deepEqual(cmd.kubectlDeletePod(t, 'default', 'backend').slice(3), cmd.deletePodCommand('default', 'backend').slice(1));
  assert.deepEqual(cmd.dockerListClusterContainers('kx-main'), [
    'docker',
    'ps',
    '--all',
    '--no-trunc',
    '--filter',
    'label=io.x-k8s.kind.cluster=kx-main',
    '--format',
    '{{.ID}}\t{{.Names}}',
  ]);
});
