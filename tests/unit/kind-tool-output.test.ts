// The kind driver's parsers, on answers recorded from the real tools where they
// could run here (kubectl client, docker client without a daemon, curl,
// iptables, conntrack) and shaped like them otherwise (see tests/fixtures/kind/README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  isDockerFailure,
  parseContainerList,
  parseCrictlImageId,
  parseDockerVersion,
  parseIptablesVersion,
  parseKindClusters,
  parseKindVersion,
  parseContainerdVersion,
  parseKubectlVersion,
  parseKubeletVersion,
  parseLocalEndpoints,
  parseRuncVersion,
  ToolOutputError,
} from '../../src/capture/kind/tool-output.ts';
import { agreedValue, parseProxyMode } from '../../src/capture/kubectl/api-output.ts';
import { firstLine } from '../../src/capture/machine/process.ts';

const fixture = (name: string) => readFile(new URL(`../fixtures/kind/${name}`, import.meta.url), 'utf8');

test("kind version: the semver from kind's one-line answer", async () => {
  assert.equal(parseKindVersion(await fixture('kind-version.txt')), 'v0.27.0');
  assert.equal(parseKindVersion('kind v0.30.0-alpha+1a2b go1.24.1 darwin/arm64\n'), 'v0.30.0-alpha+1a2b');
  assert.throws(
    () => parseKindVersion('Kubernetes IN Docker\n'),
    (e: Error) => e instanceof ToolOutputError && /kind version: expected "kind vX\.Y\.Z/.test(e.message),
  );
});

test("crictl inspecti: the id a node's containerd holds the image by, which is docker's image id", async () => {
  // The backend preloaded in the node image, as docker image inspect gave its id on the machine that built it.
  assert.equal(
    parseCrictlImageId(await fixture('exec/crictl-inspecti-nginx-light.stdout')),
    'sha256:2ccc6005b38fe41e92b7a14ba9530363f061897d12971cd7e78c87decbed1f4a',
  );
  // An image the node does not hold: exit 1, nothing on stdout, crictl's word on stderr.
  assert.match(await fixture('exec/crictl-inspecti-absent.stderr'), /no such image \\"shice\/nginx-light:absent\\" present/);
  assert.throws(
    () => parseCrictlImageId(''),
    (e: Error) => e instanceof ToolOutputError && /crictl inspecti --output json: expected JSON/.test(e.message),
  );
  assert.throws(() => parseCrictlImageId('{"status":{"id":"nginx"}}'), /field status\.id: expected sha256:<64 hex digits>, got "nginx"/);
});

test('kind get clusters: names one per line; the "none" notice is not a name', () => {
  assert.deepEqual(parseKindClusters('kind\nkx-main\n'), ['kind', 'kx-main']);
  assert.deepEqual(parseKindClusters(''), []);
  assert.deepEqual(parseKindClusters('No kind clusters found.\n'), []);
});

test('docker ps: full container ids and names; anything else is an error', () => {
  const id = 'f'.repeat(64);
  assert.deepEqual(parseContainerList(`${id}\tkx-main-control-plane\n${'0'.repeat(64)}\tkx-main-worker\n`), [
    { id, name: 'kx-main-control-plane' },
    { id: '0'.repeat(64), name: 'kx-main-worker' },
  ]);
  assert.deepEqual(parseContainerList(''), []);
  assert.throws(() => parseContainerList('CONTAINER ID   NAMES\n'), /docker ps: expected "<container id>\\t<name>"/);
});

test('kubectl version -o json: client always, server only when a cluster answered', async () => {
  assert.deepEqual(parseKubectlVersion(await fixture('kubectl-version-no-server.stdout')), { client: 'v1.32.4-dispatcher', server: null });
  assert.deepEqual(parseKubectlVersion(await fixture('kubectl-version.json')), { client: 'v1.32.4-dispatcher', server: 'v1.32.2' });
  assert.throws(() => parseKubectlVersion('Client Version: v1.32.4\n'), /kubectl version -o json: expected JSON/);
  assert.throws(() => parseKubectlVersion('{"clientVersion":{}}'), /field clientVersion\.gitVersion: expected a non-empty string/);
});

test("docker version: the daemon's version, platform and kernel, or null without a daemon", async () => {
  const down = parseDockerVersion(await fixture('docker-version-no-daemon.stdout'));
  assert.deepEqual(down, { client: '28.2.2', server: null });
  assert.deepEqual(parseDockerVersion(await fixture('docker-version.json')).server, {
    version: '28.2.2',
    os: 'linux',
    arch: 'amd64',
    kernel: '6.8.0-49-generic',
  });
  assert.throws(() => parseDockerVersion('{"Client":{"Version":"28.2.2"},"Server":{"Version":"28.2.2"}}'), /field Server\.Os/);
});

test('iptables --version inside a node: version and backend', async () => {
  assert.deepEqual(parseIptablesVersion(await fixture('exec/iptables-version.stdout')), { version: 'v1.8.9', backend: 'nf_tables' });
  assert.deepEqual(parseIptablesVersion('iptables v1.8.7 (legacy)\n'), { version: 'v1.8.7', backend: 'legacy' });
  assert.throws(() => parseIptablesVersion('sh: iptables: not found\n'), /iptables --version: expected/);
});

test('versions read inside a real kind node: kubelet, containerd, runc; anything else is an error', async () => {
  assert.equal(parseKubeletVersion(await fixture('exec/kubelet-version.stdout')), 'v1.37.2');
  assert.equal(parseContainerdVersion(await fixture('exec/containerd-version.stdout')), '1.6.20~ds1 1.6.20~ds1-1+deb12u3');
  assert.equal(parseRuncVersion(await fixture('exec/runc-version.stdout')), '1.1.5+ds1');
  assert.throws(() => parseKubeletVersion('sh: kubelet: not found\n'), /kubelet --version: expected "Kubernetes vX\.Y\.Z", got "sh: kubelet: not found"/);
  assert.throws(() => parseRuncVersion(''), /runc --version: expected/);
});

test("kube-proxy's /proxyMode from a real kind node, one word; anything else is an error", async () => {
  assert.equal(parseProxyMode(await fixture('exec/proxy-mode-iptables.stdout'), '/proxyMode'), 'iptables');
  assert.equal(parseProxyMode(await fixture('exec/proxy-mode-nftables.stdout'), '/proxyMode'), 'nftables');
  assert.throws(() => parseProxyMode('404 page not found\n', 'worker: /proxyMode'), /worker: \/proxyMode: expected kube-proxy's mode/);
  assert.equal(
    agreedValue([
      ['worker', 'iptables'],
      ['worker2', 'iptables'],
    ]),
    'iptables',
  );
  assert.equal(
    agreedValue([
      ['worker', 'iptables'],
      ['worker2', 'nftables'],
    ]),
    'worker=iptables worker2=nftables',
  );
});

test('health-check answers: localEndpoints from the body, null when there is no body', async () => {
  assert.equal(parseLocalEndpoints(await fixture('exec/health-200.stdout')), 1);
  assert.equal(parseLocalEndpoints(await fixture('exec/health-503.stdout')), 0);
  const body = (await fixture('exec/health-503.stdout')).split('\r\n\r\n')[1]!;
  assert.equal(parseLocalEndpoints(body), 0);
  assert.equal(parseLocalEndpoints(''), null, 'curl timed out or was refused');
  assert.equal(parseLocalEndpoints('<html>502 Bad Gateway</html>'), null);
  assert.equal(parseLocalEndpoints('{"localEndpoints": "1"}'), null);
});

test("docker's own failures are told apart from the command's", async () => {
  assert.equal(isDockerFailure('Error response from daemon: No such container: kx-main-worker2\n'), true);
  assert.equal(isDockerFailure(await fixture('docker-version-no-daemon.stderr')), true);
  assert.equal(
    isDockerFailure(
      'OCI runtime exec failed: exec failed: unable to start container process: exec: "conntrack": executable file not found in $PATH: unknown\n',
    ),
    true,
  );
  assert.equal(isDockerFailure(await fixture('exec/curl-timeout.stderr')), false);
  assert.equal(isDockerFailure(await fixture('exec/conntrack-worker2.stderr')), false);
  assert.equal(firstLine('\n  one\ntwo\n'), 'one');
});
