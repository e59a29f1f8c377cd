// The health check's list of pods, asked from this process: a kubeconfig read as
// kubectl reads it, and a GET to an HTTPS server that holds its clients to the
// CA, with certificates made by openssl from the lab's own PKI plan and the
// lab's own kubeconfig (file paths) or kind's shape of it (the same bytes inline).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, test } from 'node:test';
import { apiGet, kubeconfigCredentials } from '../../src/capture/kubectl/api-get.ts';
import { kubeconfig, PKI_FILES, pkiPlan } from '../../src/capture/lab/pki.ts';

const dir = mkdtempSync(join(tmpdir(), 'shice-api-get-'));
const pki = join(dir, 'pki');
const file = join(dir, 'kubeconfig');
const strangers = join(dir, 'other-pki');
const read = (name: string, from = pki) => readFileSync(join(from, name));
let server: Server;
let port = 0;
const never = new AbortController().signal;

before(async () => {
  // The cluster's PKI, and another cluster's: its admin is a stranger here.
  for (const at of [pki, strangers]) {
    const plan = pkiPlan(at, { apiserverIPs: ['127.0.0.1'], apiserverNames: [], nodeNames: [] });
    mkdirSync(at, { recursive: true });
    writeFileSync(plan.config.path, plan.config.content);
    for (const argv of [...plan.first, ...plan.then]) execFileSync(argv[0]!, argv.slice(1), { stdio: 'ignore' });
  }
  server = createServer(
    { cert: read(PKI_FILES.apiserverCert), key: read(PKI_FILES.apiserverKey), ca: read(PKI_FILES.caCert), requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      if (req.url === '/stalls') return;
      const cn = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
      res.writeHead(req.url === '/api/v1/pods' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'PodList', items: [], client: cn }));
    },
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
  writeFileSync(file, kubeconfig({ cluster: 'lab', server: `https://127.0.0.1:${port}`, user: 'admin', pkiRelative: 'pki', client: 'admin' }));
});

after(() => {
  server?.closeAllConnections();
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the lab's kubeconfig (files beside it): the current context's server and client certificate, and the API answers as that client", async () => {
  const credentials = kubeconfigCredentials(readFileSync(file, 'utf8'), file, (path) => readFileSync(path));
  assert.ok(credentials);
  assert.equal(credentials.server, `https://127.0.0.1:${port}`);
  const answer = await apiGet(credentials, '/api/v1/pods', 5000, never);
  assert.deepEqual(answer, { status: 200, body: JSON.stringify({ kind: 'PodList', items: [], client: 'kubernetes-admin' }) });
  assert.deepEqual(await apiGet(credentials, '/api/v1/nodes', 5000, never), {
    status: 404,
    body: JSON.stringify({ kind: 'PodList', items: [], client: 'kubernetes-admin' }),
  });
});

test("kind's shape of a kubeconfig (the same bytes inline, base64) reads the same", async () => {
  const data = (name: string) => read(name).toString('base64');
  const text = [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${data(PKI_FILES.caCert)}`,
    `    server: https://127.0.0.1:${port}`,
    '  name: kind-kx-main',
    'contexts:',
    '- context:',
    '    cluster: kind-kx-main',
    '    user: kind-kx-main',
    '  name: kind-kx-main',
    'current-context: kind-kx-main',
    'kind: Config',
    'users:',
    '- name: kind-kx-main',
    '  user:',
    `    client-certificate-data: ${data('admin.crt')}`,
    `    client-key-data: ${data('admin.key')}`,
    '',
  ].join('\n');
  const credentials = kubeconfigCredentials(text, '/nowhere/kubeconfig', () => assert.fail('inline data reads no file'));
  assert.ok(credentials);
  assert.deepEqual(await apiGet(credentials, '/api/v1/pods', 5000, never), {
    status: 200,
    body: JSON.stringify({ kind: 'PodList', items: [], client: 'kubernetes-admin' }),
  });
});

test('a kubeconfig without a client certificate, or without its current context, is left to kubectl (null)', () => {
  const text = readFileSync(file, 'utf8');
  const token = text.replace(/ {4}client-certificate: .*\n {4}client-key: .*\n/, '    token: abc\n');
  assert.notEqual(token, text);
  assert.equal(
    kubeconfigCredentials(token, file, (path) => readFileSync(path)),
    null,
  );
  assert.equal(
    kubeconfigCredentials(text.replace(/current-context: .*/, 'current-context: other'), file, (path) => readFileSync(path)),
    null,
  );
  assert.equal(
    kubeconfigCredentials('apiVersion: v1\nkind: Config\n', file, (path) => readFileSync(path)),
    null,
  );
  assert.equal(
    kubeconfigCredentials(text.replace(/https:/, 'http:'), file, (path) => readFileSync(path)),
    null,
  );
});

test('no answer is a phrase, never a throw: a client the server refuses, a port nobody listens on, a server that stalls past the limit', async () => {
  const credentials = kubeconfigCredentials(readFileSync(file, 'utf8'), file, (path) => readFileSync(path))!;
  // The admin of another cluster's CA: the server refuses the handshake.
  const stranger = { ...credentials, cert: read('admin.crt', strangers), key: read('admin.key', strangers) };
  const refused = await apiGet(stranger, '/api/v1/pods', 5000, never);
  assert.ok('failed' in refused, JSON.stringify(refused));
  const closed = await apiGet({ ...credentials, server: 'https://127.0.0.1:1' }, '/api/v1/pods', 5000, never);
  assert.ok('failed' in closed && /ECONNREFUSED/.test(closed.failed), JSON.stringify(closed));
  const started = performance.now();
  const stalled = await apiGet(credentials, '/stalls', 300, never);
  assert.deepEqual(stalled, { failed: 'no answer within 0.3 s' });
  assert.ok(performance.now() - started < 3000);
});
