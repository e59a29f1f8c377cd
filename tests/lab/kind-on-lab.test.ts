// The kind driver's Kubernetes calls against a real API server: the lab brings
// up its control plane and nodes (no manifests), and the kind driver captures
// article 074 on it through the real kubectl, with only kind and docker faked
// (kind's create writes the lab's kubeconfig and labels the nodes as kind's
// config asks; docker exec runs in the lab's node namespaces). What this does
// not cover: kind itself, Docker, kindnetd and kubelet — see docs/kind-driver.md.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { experiment as article074 } from '../../content/articles/074-external-traffic-policy/experiment.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { facts as commonFacts074, variantFacts as variantFacts074 } from '../../content/articles/074-external-traffic-policy/facts.ts';
import { LabDriver } from '../../src/capture/lab/index.ts';
import { chooseKubeBinDir } from '../../src/capture/lab/kube-bin.ts';
import { LAB_PREFIX, runFolder } from '../../src/capture/lab/names.ts';
import { findProgram } from '../../src/capture/lab/tools.ts';
import { runCapture } from '../../src/capture/runner.ts';
import { deriveFacts } from '../../src/evidence/facts.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { makeHarness } from '../fixtures/fake-bin/harness.ts';
import { assertNothingLeft, kernelTest, newRunId } from './support.ts';

/** The facts of article 074's default run (iptables): the common ones and that variant's own. */
const factDefs = [...commonFacts074, ...variantFacts074.iptables!];

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074, 'iptables');

const ARTICLE = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/', import.meta.url));

kernelTest("the kind driver captures article 074 through the real kubectl against the lab's API server", async (t) => {
  const runId = newRunId('kind');
  const ctx = { signal: new AbortController().signal, log: () => {} };
  const lab = new LabDriver({ runId, articleDir: ARTICLE, keep: false });
  const out = await mkdtemp(join(tmpdir(), 'shice-kind-on-lab-'));
  let harness: Awaited<ReturnType<typeof makeHarness>> | undefined;
  try {
    // The cluster, as `kind create cluster` would leave it: nodes Ready, nothing applied.
    await lab.up({ ...experiment, manifests: [], steps: [] }, ctx);
    harness = await makeHarness({
      lab: {
        kubectl: join(chooseKubeBinDir(null, process.env).dir, 'kubectl'),
        adminKubeconfig: join(runFolder(runId), 'kubeconfig', 'admin.conf'),
        controlPlaneNetns: `${LAB_PREFIX}${runId}.node.control-plane`,
        nodeNetnsPrefix: `${LAB_PREFIX}${runId}.node.`,
        ip: findProgram('ip', process.env.PATH) ?? 'ip',
      },
    });
    const target = join(out, experiment.slug);
    const started = performance.now();
    await runCapture({
      experiment,
      driver: harness.driver({ timeouts: { settlePollMs: 100, settleTimeoutMs: 30_000 } }),
      target,
      runId: '20261202T120000Z-c0ffee',
      signal: ctx.signal,
      reporter: { phase() {}, stepStarted() {}, stepFinished() {} },
      git: { commit: null, dirty: false },
      host: { os: 'linux', arch: 'x64', kernel: 'test' },
    });
    t.diagnostic(`kind driver capture on the lab: ${Math.round(performance.now() - started)} ms`);

    const snapshots = loadSnapshots(target);
    assert.equal(snapshots.run.driver, 'kind');
    assert.equal(snapshots.run.versions.kubernetes, snapshots.run.versions.kubectl, 'the real API server answered the real kubectl');
    assert.match(snapshots.run.versions.kubernetes ?? '', /^v1\.37\.\d+$/);
    assert.equal(snapshots.run.versions['kube-proxy-mode'], 'iptables', "read from kube-system/kube-proxy, as kubeadm stores it");
    const facts = deriveFacts(factDefs.filter((d) => !d.optional), snapshots);
    const fact = (id: string) => facts.get(id)!.value;
    assert.equal(fact('cluster-via-worker.client'), fact('node.worker.podGateway'));
    assert.equal(fact('cluster-via-worker2.client'), fact('node.worker2.ip'));
    assert.equal(fact('local-via-worker.client'), fact('node.control-plane.ip'));
    assert.equal(fact('local-via-worker2.rc'), '28');
    assert.equal(fact('filter-worker2.dropPort'), fact('service.s-local.nodePort'));
    assert.deepEqual([fact('health-worker.status'), fact('health-worker2.status'), fact('health-worker-after-delete.status')], ['200', '503', '503']);

    // Every kubectl call was the real kubectl's, with the capture's kubeconfig first.
    const calls = (await harness.calls()).filter((c) => c.tool === 'kubectl');
    const verbs = calls.map((c) => c.argv[3]);
    for (const verb of ['apply', 'wait', 'get', 'delete', 'version']) assert.ok(verbs.includes(verb), `kubectl ${verb} ran against the API server`);
    for (const call of calls) assert.deepEqual(call.argv.slice(1, 3), ['--kubeconfig', join(harness.stateDir, 'kubeconfig')]);
  } finally {
    await lab.down({ log: () => {} });
    await harness?.cleanup();
    await rm(out, { recursive: true, force: true });
  }
  await assertNothingLeft(runId);
});
