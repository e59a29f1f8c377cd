import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { collectManifests, loadManifests, ManifestError, parseManifests } from '../../src/experiment/manifests.ts';
import { experiment } from '../../content/articles/074-external-traffic-policy/experiment.ts';

const ARTICLE = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/', import.meta.url));

test("article 074's manifests load into typed objects", () => {
  const set = loadManifests(ARTICLE, experiment.manifests);
  assert.deepEqual(set.configMaps.map((c) => c.name), ['backend-nginx']);
  assert.match(set.configMaps[0]?.data['default.conf'] ?? '', /return 200 "client=\$remote_addr\\n";/);

  assert.equal(set.pods.length, 1);
  const pod = set.pods[0];
  assert.equal(pod?.name, 'backend');
  assert.equal(pod?.namespace, 'default');
  assert.deepEqual(pod?.labels, { app: 'backend' });
  assert.equal(pod?.hostname, 'kx-main-worker');
  assert.deepEqual(pod?.containers, [
    {
      name: 'nginx',
      image: 'nginx:1.27-alpine',
      ports: [{ name: null, containerPort: 80, protocol: 'TCP' }],
      configMapMounts: [{ volume: 'conf', mountPath: '/etc/nginx/conf.d', configMap: 'backend-nginx' }],
    },
  ]);

  assert.deepEqual(
    set.services.map((s) => [s.name, s.type, s.externalTrafficPolicy, s.selector, s.ports]),
    [
      ['s-cluster', 'NodePort', 'Cluster', { app: 'backend' }, [{ name: null, port: 80, targetPort: 80, protocol: 'TCP', nodePort: null }]],
      ['s-local', 'NodePort', 'Local', { app: 'backend' }, [{ name: null, port: 80, targetPort: 80, protocol: 'TCP', nodePort: null }]],
      ['s-lb', 'LoadBalancer', 'Local', { app: 'backend' }, [{ name: null, port: 80, targetPort: 80, protocol: 'TCP', nodePort: null }]],
    ],
  );
  assert.deepEqual(set.services.map((s) => [s.file, s.document]), [
    ['manifests/services.yaml', 0],
    ['manifests/services.yaml', 1],
    ['manifests/services.yaml', 2],
  ]);
});

test('defaults follow the API server: namespace default, type ClusterIP, policy Cluster, targetPort = port, TCP', () => {
  const [service] = parseManifests(
    'apiVersion: v1\nkind: Service\nmetadata: {name: plain}\nspec:\n  type: NodePort\n  selector: {app: x}\n  ports: [{port: 8080}]\n',
    'plain.yaml',
  );
  assert.equal(service?.kind, 'Service');
  if (service?.kind !== 'Service') return;
  assert.equal(service.namespace, 'default');
  assert.equal(service.externalTrafficPolicy, 'Cluster');
  assert.deepEqual(service.ports, [{ name: null, port: 8080, targetPort: 8080, protocol: 'TCP', nodePort: null }]);

  const [clusterIP] = parseManifests('apiVersion: v1\nkind: Service\nmetadata: {name: c}\nspec: {ports: [{port: 53, protocol: UDP, targetPort: dns}]}\n', 'c.yaml');
  assert.equal(clusterIP?.kind === 'Service' && clusterIP.type, 'ClusterIP');
  assert.deepEqual(clusterIP?.kind === 'Service' && clusterIP.ports[0], { name: null, port: 53, targetPort: 'dns', protocol: 'UDP', nodePort: null });
});

test('empty documents (a trailing ---) are skipped; document indexes still count them', () => {
  const objects = parseManifests(
    '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\n',
    'maps.yaml',
  );
  assert.deepEqual(objects.map((o) => [o.name, o.document]), [['a', 0], ['b', 2]]);
  assert.deepEqual(objects[1]?.kind === 'ConfigMap' && objects[1].data, {});
});

test('an unpinned pod has hostname null; a non-ConfigMap volume is not a ConfigMap mount', () => {
  const [pod] = parseManifests(
    [
      'apiVersion: v1', 'kind: Pod', 'metadata: {name: p}', 'spec:',
      '  containers:',
      '    - name: c',
      '      image: nginx',
      '      volumeMounts: [{name: scratch, mountPath: /tmp}]',
      '  volumes: [{name: scratch, emptyDir: {}}]',
    ].join('\n'),
    'p.yaml',
  );
  assert.equal(pod?.kind === 'Pod' && pod.hostname, null);
  assert.deepEqual(pod?.kind === 'Pod' && pod.containers[0]?.configMapMounts, []);
});

const bad: [string, string, RegExp][] = [
  ['unknown kind', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n', /^bad\.yaml: document 1: kind: expected one of ConfigMap, Pod, Service, got "Deployment"$/],
  ['wrong apiVersion', 'apiVersion: v2\nkind: Pod\nmetadata: {name: p}\n', /^bad\.yaml: document 1: apiVersion: expected "v1" for a Pod, got "v2"$/],
  ['missing name', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n', /^bad\.yaml: document 1: metadata\.name: expected a non-empty string, got nothing \(the field is missing\)$/],
  ['a document that is not a mapping', '- a\n- b\n', /^bad\.yaml: document 1: \(document\): expected a mapping, got a list$/],
  [
    'a port out of range',
    'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: NodePort, ports: [{port: 70000}]}\n',
    /^bad\.yaml: document 1 \(Service s\): spec\.ports\[0\]\.port: expected an integer from 1 to 65535, got 70000$/,
  ],
  [
    'an unknown Service type',
    'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: ExternalName, ports: [{port: 80}]}\n',
    /^bad\.yaml: document 1 \(Service s\): spec\.type: expected one of ClusterIP, NodePort, LoadBalancer, got "ExternalName"$/,
  ],
  [
    'externalTrafficPolicy on a ClusterIP Service',
    'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {externalTrafficPolicy: Local, ports: [{port: 80}]}\n',
    /^bad\.yaml: document 1 \(Service s\): spec\.externalTrafficPolicy: expected no value for a Service of type ClusterIP, got "Local"$/,
  ],
  [
    'an unknown policy',
    'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: NodePort, externalTrafficPolicy: Nearby, ports: [{port: 80}]}\n',
    /spec\.externalTrafficPolicy: expected one of Cluster, Local, got "Nearby"$/,
  ],
  [
    'two unnamed ports',
    'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}, {port: 81}]}\n',
    /\(Service s\): spec\.ports\[0\]\.name: expected a name \(a Service with several ports names each\), got nothing/,
  ],
  [
    'a mount of an undeclared volume',
    'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: nginx, volumeMounts: [{name: conf, mountPath: /etc}]}]}\n',
    /\(Pod p\): spec\.containers\[0\]\.volumeMounts\[0\]\.name: expected the name of a volume in spec\.volumes, got "conf"$/,
  ],
  [
    'a pod without containers',
    'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n',
    /\(Pod p\): spec\.containers: expected at least one container, got an empty list$/,
  ],
  [
    'a label that is not a string',
    'apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {tier: 3}}\nspec: {containers: [{name: c, image: nginx}]}\n',
    /\(Pod p\): metadata\.labels\.tier: expected a string, got 3$/,
  ],
  [
    'ConfigMap data that is not text',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata: {n: 1}\n',
    /\(ConfigMap m\): data\.n: expected a string, got 1$/,
  ],
];

for (const [what, source, message] of bad) {
  test(`bad input: ${what}`, () => {
    assert.throws(() => parseManifests(source, 'bad.yaml'), (error: unknown) => {
      assert.ok(error instanceof ManifestError, `expected a ManifestError, got ${String(error)}`);
      assert.match(error.message, message);
      return true;
    });
  });
}

test('later documents are numbered from one, counting from the top of the file', () => {
  const source = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n';
  assert.throws(() => parseManifests(source, 'two.yaml'), /^ManifestError: two\.yaml: document 2 \(Pod p\): spec\.containers: expected a list, got nothing/);
});

test('YAML that does not parse names the file', () => {
  assert.throws(() => parseManifests('a: [1, 2\n', 'broken.yaml'), (error: unknown) => {
    assert.ok(error instanceof ManifestError);
    assert.match(error.message, /^broken\.yaml: not valid YAML: /);
    return true;
  });
});

test('the same object twice is an error naming both places', () => {
  const a = parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n', 'a.yaml');
  const b = parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n', 'b.yaml');
  assert.throws(() => collectManifests([...a, ...b]), /^ManifestError: b\.yaml: document 1 \(ConfigMap m\): metadata\.name: expected a name not used before in namespace default, got "m" \(also in a\.yaml, document 1\)$/);
});

test('loadManifests names a file it cannot read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-manifests-'));
  try {
    writeFileSync(join(dir, 'ok.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n');
    assert.equal(loadManifests(dir, ['ok.yaml']).configMaps.length, 1);
    assert.throws(() => loadManifests(dir, ['ok.yaml', 'missing.yaml']), /^ManifestError: missing\.yaml: cannot read it in .*ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
