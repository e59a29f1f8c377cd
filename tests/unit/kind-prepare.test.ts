// kind:prepare's pure parts, on what the real tools and files of a machine of
// this project printed (tests/fixtures/samples/kind-prepare): what the host
// lacks, which mirror to build from, what kubeadm expects, and the texts the
// node image is made of.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerdArgv, enginePaths, installRuntimeWrapper, RUNTIME_WRAPPER, runtimeAdaptation } from '../../src/capture/kind/engine/engine.ts';
import * as r from '../../src/capture/kind/image/recipe.ts';

const sample = (name: string) => readFile(new URL(`../fixtures/samples/kind-prepare/${name}`, import.meta.url), 'utf8');

test('the capability bounding set: this sandbox lacks CAP_SYS_RESOURCE (bit 24); a full set needs no adaptation', async () => {
  const status = await sample('proc-self-status-capabilities.txt');
  const adaptation = runtimeAdaptation(status);
  assert.equal(adaptation?.missingCapability, 'CAP_SYS_RESOURCE');
  assert.match(adaptation!.summary, /CAP_SYS_RESOURCE/);
  assert.equal(runtimeAdaptation(status.replace(/CapBnd:\t\w+/, 'CapBnd:\t000001ffffffffff')), null);
  assert.equal(runtimeAdaptation('Name:\tnode\n'), null, 'no CapBnd line: nothing known, nothing adapted');
});

test('dockerd: its own data root, exec root, socket and pid file; no iptables; the wrapper runtime only where the host needs it', () => {
  const paths = enginePaths('/srv/cache/shice/docker');
  const plain = dockerdArgv(paths, null);
  assert.deepEqual(plain.slice(0, 9), [
    'dockerd',
    '--data-root',
    '/srv/cache/shice/docker/data',
    '--exec-root',
    '/srv/cache/shice/docker/run',
    '--pidfile',
    '/srv/cache/shice/docker/dockerd.pid',
    '--host',
    'unix:///srv/cache/shice/docker/docker.sock',
  ]);
  assert.ok(plain.includes('--iptables=false') && plain.includes('--ip6tables=false'));
  assert.ok(!plain.includes('--add-runtime'));
  const adapted = dockerdArgv(paths, runtimeAdaptation('CapBnd:\t000001fffeffffff\n'));
  const runtime = adapted[adapted.indexOf('--add-runtime') + 1]!;
  assert.match(runtime, /^shice-runc=\/srv\/cache\/shice\/docker\/runtime\/runc-without-sys-resource-[0-9a-f]{16}\.sh$/);
  assert.equal(adapted[adapted.indexOf('--default-runtime') + 1], 'shice-runc');
});

test("the machine's engine runs the wrapper from the cache, named by its content: no clone's path in dockerd's argv, and two clones install one file", () => {
  const cache = mkdtempSync(join(tmpdir(), 'shice-wrapper-'));
  try {
    const paths = enginePaths(join(cache, 'docker'));
    const argv = dockerdArgv(paths, runtimeAdaptation('CapBnd:\t000001fffeffffff\n'));
    const runtime = argv[argv.indexOf('--add-runtime') + 1]!.replace(/^shice-runc=/, '');
    assert.ok(runtime.startsWith(`${cache}/docker/`), `${runtime} is in the cache`);
    assert.ok(!runtime.startsWith(join(RUNTIME_WRAPPER, '..')), 'not in the checkout');
    const installed = installRuntimeWrapper(paths);
    assert.equal(installed, runtime);
    assert.equal(readFileSync(installed, 'utf8'), readFileSync(RUNTIME_WRAPPER, 'utf8'));
    assert.equal(statSync(installed).mode & 0o111, 0o111, 'executable');
    // A second clone with the same wrapper names and leaves the same file.
    const before = statSync(installed).mtimeMs;
    assert.equal(installRuntimeWrapper(enginePaths(join(cache, 'docker'))), installed);
    assert.equal(statSync(installed).mtimeMs, before);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test("apt sources: the host's deb822 file gives the mirror and suites of its release; one-line sources too; others are left out", async () => {
  const sources = r.aptSources([{ name: 'debian.sources', text: await sample('debian.sources') }], 'bookworm');
  assert.deepEqual(
    sources.map((s) => `${s.uri} ${s.suite}`),
    ['http://deb.debian.org/debian bookworm', 'http://deb.debian.org/debian bookworm-updates', 'http://deb.debian.org/debian-security bookworm-security'],
  );
  assert.equal(r.debootstrapMirror(sources, 'bookworm'), 'http://deb.debian.org/debian');
  assert.equal(
    r.sourcesList(sources).split('\n')[0],
    'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main',
  );
  const lines = r.aptSources(
    [
      {
        name: 'sources.list',
        text: '# comment\ndeb http://mirror.example/debian bookworm main contrib\ndeb-src http://x bookworm main\ndeb http://x trixie main\n',
      },
    ],
    'bookworm',
  );
  assert.deepEqual(lines, [{ uri: 'http://mirror.example/debian', suite: 'bookworm', components: ['main', 'contrib'], signedBy: null }]);
  assert.throws(() => r.debootstrapMirror(lines, 'trixie'), /\/etc\/apt: expected a "deb" source for trixie/);
});

test("apt options: the host's Check-Valid-Until and Check-Date travel into the build, nothing else", async () => {
  assert.deepEqual(r.aptOptions(await sample('apt-config-dump.excerpt')), ['-o', 'Acquire::Check-Valid-Until=false', '-o', 'Acquire::Check-Date=false']);
  assert.deepEqual(r.aptOptions('APT::Architecture "amd64";\n'), []);
});

test("kubeadm's expected images, from its own listing; etcd's tag must name the etcd we built", async () => {
  const expected = r.parseKubeadmImages(await sample('kubeadm-config-images-list.stdout'));
  assert.equal(expected.apiserver, 'registry.k8s.io/kube-apiserver:v1.37.2');
  assert.equal(expected.pause, 'registry.k8s.io/pause:3.10.2');
  assert.equal(expected.coredns, 'registry.k8s.io/coredns/coredns:v1.14.6');
  const etcd = r.parseEtcdVersion(await sample('etcd-version.stdout'));
  assert.equal(etcd, '3.7.0');
  r.checkEtcdTag(expected.etcd, etcd);
  assert.throws(() => r.checkEtcdTag(expected.etcd, '3.6.5'), /kubeadm expects registry\.k8s\.io\/etcd:3\.7\.0-0, but the etcd built from kube\/ is 3\.6\.5/);
  assert.throws(() => r.parseKubeadmImages('registry.k8s.io/pause:3.10.2\n'), /expected an image named kube-apiserver/);
  assert.throws(() => r.parseEtcdVersion('etcd: command not found'), /etcd --version: expected/);
});

test("kind's base files, adapted only where the host needs it: containerd clamps oom_score_adj, its unit loses the limits", () => {
  const config = 'version = 2\n[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "registry.k8s.io/pause:3.10"\n  restrict_oom_score_adj = false\n';
  assert.equal(r.containerdConfig(config, false), config);
  assert.match(r.containerdConfig(config, true), /^ {2}restrict_oom_score_adj = true$/m);
  assert.throws(() => r.containerdConfig('version = 2\n', true), /config\.toml: expected a "restrict_oom_score_adj = false" line/);
  assert.equal(r.sandboxImage(config), 'registry.k8s.io/pause:3.10');
  const unit =
    '[Service]\nExecStart=/usr/local/bin/containerd\nLimitNPROC=infinity\nLimitCORE=infinity\nLimitNOFILE=infinity\nTasksMax=infinity\nOOMScoreAdjust=-999\n';
  assert.equal(r.containerdUnit(unit, false), unit);
  assert.equal(r.containerdUnit(unit, true), '[Service]\nExecStart=/usr/local/bin/containerd\nTasksMax=infinity\n');
});

test("kind's package list is read from its Dockerfile; a Dockerfile without it is refused in one line", () => {
  const dockerfile =
    'RUN echo "Installing Packages ..." \\\n    && DEBIAN_FRONTEND=noninteractive clean-install \\\n      systemd \\\n      conntrack iptables \\\n      bash ca-certificates \\\n    && find /lib/systemd/system/sysinit.target.wants/ -delete\n';
  assert.deepEqual(r.kindBasePackages(dockerfile), ['systemd', 'conntrack', 'iptables', 'bash', 'ca-certificates']);
  assert.throws(() => r.kindBasePackages('FROM debian\n'), /images\/base\/Dockerfile: expected a `clean-install <packages>` step/);
});

test("cri-base.json: ctr's default spec with kind's createContainer hook, without rlimits", async () => {
  const spec = JSON.parse(r.criBaseSpec(await sample('ctr-oci-spec.stdout')));
  assert.deepEqual(spec.hooks.createContainer, [{ path: '/kind/bin/mount-product-files.sh' }]);
  assert.equal(spec.process.rlimits, undefined);
  assert.ok(spec.process.capabilities.bounding.includes('CAP_CHOWN'), 'the rest of the spec as ctr printed it');
  assert.throws(() => r.criBaseSpec('ctr: not found'), /ctr oci spec: expected JSON/);
});

test('a config-only Dockerfile, the pause version, stamps and tags', () => {
  assert.equal(
    r.configDockerfile('shice/x:stage1', {
      env: { container: 'docker' },
      stopSignal: 'SIGRTMIN+3',
      entrypoint: ['/usr/local/bin/entrypoint', '/sbin/init'],
      labels: { 'org.shice.inputs': '{"a":"b"}' },
    }),
    'FROM shice/x:stage1\nENV container="docker"\nSTOPSIGNAL SIGRTMIN+3\nENTRYPOINT ["/usr/local/bin/entrypoint","/sbin/init"]\nLABEL org.shice.inputs="{\\"a\\":\\"b\\"}"\n',
  );
  assert.match(r.configDockerfile('a', { entrypoint: [], cmd: ['nginx', '-g', 'daemon off;'] }), /ENTRYPOINT \[\]\nCMD \["nginx","-g","daemon off;"\]/);
  assert.equal(r.pauseVersion('# comment\nTAG ?= 3.10.2\nREV = x\n'), '3.10.2');
  assert.throws(() => r.pauseVersion('TAG = 3'), /build\/pause\/Makefile: expected a "TAG \?= <version>" line/);
  assert.equal(r.stamp({ b: '2', a: '1' }), r.stamp({ a: '1', b: '2' }), 'the order of the parts does not matter');
  assert.notEqual(r.stamp({ a: '1' }), r.stamp({ a: '2' }));
  assert.match(r.stamp({ a: '1' }), /^[0-9a-f]{12}$/);
  assert.equal(r.tagSafe('1.22.1-9+deb12u11'), '1.22.1-9_deb12u11');
});

test("the names containerd lists the preloaded images by: Docker's normalisation, so that the build can check the backend is there", () => {
  // As the control plane's names, and as a capture's pod read the preloaded backend (pod.backend.image in a run of 074).
  assert.equal(r.containerdImageName('registry.k8s.io/kube-apiserver:v1.37.2'), 'registry.k8s.io/kube-apiserver:v1.37.2');
  assert.equal(r.containerdImageName('shice/nginx-light:bookworm-276f85219e0e'), 'docker.io/shice/nginx-light:bookworm-276f85219e0e');
  assert.equal(r.containerdImageName('nginx:1.27-alpine'), 'docker.io/library/nginx:1.27-alpine');
  assert.equal(r.containerdImageName('localhost/x:1'), 'localhost/x:1');
  assert.equal(r.containerdImageName('registry:5000/x:1'), 'registry:5000/x:1');
});

test("the backend's nginx.conf takes its server blocks from conf.d, where the experiment's ConfigMap is mounted", () => {
  const conf = r.backendNginxConf();
  assert.match(conf, /^ {4}include \/etc\/nginx\/conf\.d\/\*\.conf;$/m);
  assert.doesNotMatch(conf, /sites-enabled/);
  assert.doesNotMatch(conf, /daemon off/, "the image's command runs nginx in the foreground, as the nginx image does");
});

test("the engine's mounts to undo on stop: those at or below its folder, deepest first, from the mount table", async () => {
  const { mountsUnder } = await import('../../src/capture/kind/engine/engine.ts');
  const mountinfo = [
    '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    '512 22 0:4 net:[4026531840] /srv/shice/.shice/docker/run/netns/default rw shared:1 - nsfs nsfs rw',
    '513 22 0:50 / /srv/shice/.shice/docker/data/overlay2/abc/merged rw - overlay overlay rw',
    '514 22 0:51 / /srv/shice/.shice/dockerfile rw - tmpfs tmpfs rw',
  ].join('\n');
  assert.deepEqual(mountsUnder('/srv/shice/.shice/docker', mountinfo), [
    '/srv/shice/.shice/docker/data/overlay2/abc/merged',
    '/srv/shice/.shice/docker/run/netns/default',
  ]);
});

test("the images' stamps take in the code of every image builder, and not the tools' go install (whose binaries have stamps of their own)", async () => {
  const { RECIPE, RECIPE_FILES } = await import('../../src/capture/kind/image/build-kit.ts');
  for (const file of ['build.ts', 'build-kit.ts', 'base-images.ts', 'node-image.ts', 'backend-image.ts', 'local-images.ts', 'recipe.ts'])
    assert.ok(RECIPE_FILES.includes(file), file);
  assert.equal(RECIPE_FILES.includes('go-install.ts'), false);
  assert.match(RECIPE, /^[0-9a-f]{64}$/);
});

test("a build prunes only earlier stamps of the images it made: another release's images and the images it did not make stay", () => {
  const listed = [
    'shice/kind-node:v1.37.2-aaaaaaaaaaaa',
    'shice/kind-node:v1.37.2-bbbbbbbbbbbb',
    'shice/kind-node:v1.34.4-cccccccccccc',
    'shice/pause:3.10.2-dddddddddddd',
    'shice/pause:3.10.1-eeeeeeeeeeee',
    'shice/kind-base:bookworm-ffffffffffff',
    'shice/kind-base:bookworm-000000000000',
    '',
  ];
  const current = ['shice/kind-node:v1.34.4-111111111111', 'shice/pause:3.10.1-222222222222', 'shice/kind-base:bookworm-ffffffffffff'];
  assert.deepEqual(r.supersededImages(listed, current), [
    'shice/kind-node:v1.34.4-cccccccccccc',
    'shice/pause:3.10.1-eeeeeeeeeeee',
    'shice/kind-base:bookworm-000000000000',
  ]);
});
