// A lab run's description of itself (run.yaml's environment) names what the run
// reported (kube-proxy's mode, the API server's version), what the experiment
// declared (its nodes) and what the lab kubelet replaced (the pods' images),
// never fixed words: the nftables run of article 074 once said "kube-proxy in
// iptables mode". The committed lab runs' descriptions are what it writes, byte
// for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { labEnvironment, type LabRunFacts } from '../../src/i18n/lab-environment.ts';
import { labDriver } from '../../src/capture/lab/index.ts';
import { KUBE_BIN_ENV } from '../../src/capture/machine/kube-bin.ts';
import { checkChineseProse } from '../../src/article/check/zh-copy.ts';
import { experiment074, experiment075 } from '../support/articles.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import type { Experiment } from '../../src/experiment/types.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const ARTICLES = fileURLToPath(new URL('../../content/articles/', import.meta.url));
const alpine = ['nginx:1.27-alpine'];
const run = (kubeProxyMode: string, kubernetesVersion: string | null, nodes = 3) => ({ kubeProxyMode, kubernetesVersion, nodes, loadBalancers: 0 });

test('the lab describes the mode and version of its run, in both languages', () => {
  const nft = labEnvironment({ run: run('nftables', 'v1.37.2'), binaries: 'built', imagesReplaced: alpine });
  assert.match(nft.summary.en, /^Real Kubernetes v1\.37\.2 on one Linux kernel: .* kube-proxy in nftables mode, built from the official Go modules,/);
  assert.match(nft.summary.zh, /^在一个 Linux 内核上运行真实的 Kubernetes v1\.37\.2：.*和 nftables 模式的 kube-proxy 都由官方 Go 模块构建，/);
  assert.doesNotMatch(`${nft.summary.en} ${nft.summary.zh}`, /iptables/);
  const unknown = labEnvironment({ run: run('iptables', null), binaries: 'built', imagesReplaced: alpine });
  assert.match(unknown.summary.en, /^Real Kubernetes on one Linux kernel/);
  // Binaries the author named are not claimed to be built from the Go modules.
  const given = labEnvironment({ run: run('iptables', 'v1.37.2'), binaries: 'given', imagesReplaced: alpine });
  assert.match(given.summary.en, /from the binaries the capture was pointed at \(--kube-bin\)/);
});

test('what the experiment declared and the lab replaced: the node count, the images Debian’s nginx stood in for', () => {
  const two = labEnvironment({ run: run('iptables', 'v1.37.2', 2), binaries: 'built', imagesReplaced: ['nginx:1.27-alpine', 'nginx:1.25'] });
  assert.match(two.standsFor.en, /^It stands in for a 2-node kind cluster\./);
  assert.match(two.standsFor.zh, /^它代替一个 2 节点的 kind 集群。/);
  assert.deepEqual(two.limits[1], {
    en: 'The backend ran Debian’s nginx-light in place of the nginx:1.27-alpine and nginx:1.25 images.',
    zh: '后端运行的是 Debian 的 nginx-light，代替 nginx:1.27-alpine 和 nginx:1.25 镜像。',
  });
  const three = labEnvironment({ run: run('iptables', 'v1.37.2'), binaries: 'built', imagesReplaced: ['a:1', 'b:2', 'c:3'] });
  assert.equal(three.limits[1]!.en, 'The backend ran Debian’s nginx-light in place of the a:1, b:2 and c:3 images.');
  assert.equal(three.limits[1]!.zh, '后端运行的是 Debian 的 nginx-light，代替 a:1、b:2 和 c:3 镜像。');
  const none = labEnvironment({ run: run('iptables', 'v1.37.2'), binaries: 'built', imagesReplaced: [] });
  assert.equal(none.limits.length, 2, 'no pod ran: no image is said to be replaced');
  assert.doesNotMatch(JSON.stringify(none), /nginx-light/);
});

test('a lab run says where its binaries came from: --kube-bin, SHICE_KUBE_BIN, or the project’s build', () => {
  const saved = process.env[KUBE_BIN_ENV];
  try {
    delete process.env[KUBE_BIN_ENV];
    const create = (flags: Record<string, string>) =>
      labDriver.create(experiment074, {
        runId: 'env-test-1',
        kubernetes: HEADLINE_RELEASE,
        articleDir: join(ARTICLES, experiment074.slug),
        root: '.',
        keep: false,
        flags,
      });
    // Before up(), no pod ran: no image is claimed replaced.
    const built = create({}).describe(run('iptables', 'v1.37.2'));
    assert.match(built.summary.en, /, built from the official Go modules,/);
    assert.equal(built.limits.length, 2);
    assert.match(create({ 'kube-bin': '/opt/kubernetes/bin' }).describe(run('iptables', 'v1.37.2')).summary.en, /\(--kube-bin\)/);
    process.env[KUBE_BIN_ENV] = '/opt/kubernetes/bin';
    assert.match(create({}).describe(run('iptables', 'v1.37.2')).summary.en, /\(--kube-bin\)/);
  } finally {
    if (saved === undefined) delete process.env[KUBE_BIN_ENV];
    else process.env[KUBE_BIN_ENV] = saved;
  }
});

interface CommittedRun {
  driver: string;
  environment: { summary: unknown; standsFor: unknown; limits: unknown };
  versions: Record<string, string>;
}

/** The images an article's manifests name, in order, each once. */
function manifestImages(slug: string): string[] {
  const folder = join(ARTICLES, slug, 'manifests');
  const images = readdirSync(folder)
    .sort()
    .flatMap((file) => [...readFileSync(join(folder, file), 'utf8').matchAll(/^\s*image: (\S+)$/gm)].map((m) => m[1]!));
  return [...new Set(images)];
}

test("the committed lab runs' descriptions (074 iptables and nftables, 075) are what the lab writes, byte for byte", () => {
  const cases: Array<[Experiment, string]> = [
    [experimentForVariant(experiment074, 'iptables'), 'snapshots.lab'],
    [experimentForVariant(experiment074, 'nftables'), 'snapshots.lab.nftables'],
    [experiment075, 'snapshots.lab'],
  ];
  for (const [experiment, folder] of cases) {
    const committed = load(readFileSync(join(ARTICLES, experiment.slug, folder, 'run.yaml'), 'utf8')) as CommittedRun;
    assert.equal(committed.driver, 'lab');
    const facts: LabRunFacts = {
      run: run(committed.versions['kube-proxy-mode']!, committed.versions.kubernetes!, experiment.cluster.nodes.length),
      binaries: 'built',
      imagesReplaced: manifestImages(experiment.slug),
    };
    const { summary, standsFor, limits } = committed.environment;
    assert.deepEqual(labEnvironment(facts), { summary, standsFor, limits }, `${experiment.slug} ${folder}`);
  }
});

test('every Chinese description the lab can write passes the Chinese copy check', () => {
  for (const binaries of ['built', 'given'] as const) {
    for (const identity of [run('nftables', 'v1.37.2'), run('iptables', null, 1)]) {
      for (const imagesReplaced of [[], alpine, ['nginx:1.27-alpine', 'nginx:1.25', 'nginx:1.26']]) {
        const env = labEnvironment({ run: identity, binaries, imagesReplaced });
        for (const text of [env.summary.zh, env.standsFor.zh, ...env.limits.map((l) => l.zh)]) assert.deepEqual(checkChineseProse(text), [], text);
      }
    }
  }
});
