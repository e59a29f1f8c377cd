// Contract test: a whole capture through the kind driver (fake kind, kubectl
// and docker answering like the real tools) writes snapshots of the same schema
// and step ids as the committed lab run, so the article renders from either,
// and its facts derive from them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { article074 } from '../support/articles.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { withRunFacts } from '../../src/evidence/run-facts.ts';
import { runCapture } from '../../src/capture/session/runner.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { deriveFactsWithSkips } from '../../src/evidence/facts.ts';
import { symbolicTopologyView } from '../../src/experiment/symbolic-view.ts';
import { ARTICLE_DIR, makeHarness, FAKE_KIND_RELEASE } from '../fixtures/fake-bin/harness.ts';

/** The facts of article 074's default run (iptables): the common ones and that variant's own. */
const facts = [...article074.factDefs, ...article074.variantFactDefs!.iptables!];

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074.experiment, 'iptables');

const committed = fileURLToPath(new URL('../../content/articles/074-external-traffic-policy/snapshots.lab', import.meta.url));

test("contract: a kind capture writes the lab run's schema and step ids, and the article's facts derive from it", { timeout: 120_000 }, async () => {
  const harness = await makeHarness();
  const out = await mkdtemp(join(tmpdir(), 'shice-kind-snapshots-'));
  try {
    const target = join(out, experiment.slug);
    await runCapture({
      experiment,
      driver: harness.driver(experiment),
      articleDir: ARTICLE_DIR,
      kubernetes: FAKE_KIND_RELEASE,
      target,
      runId: '20261202T120000Z-c0ffee',
      signal: new AbortController().signal,
      reporter: { phase() {}, stepStarted() {}, stepFinished() {} },
      git: { commit: null, dirty: false },
      host: { os: 'linux', arch: 'x64', kernel: 'test' },
    });
    const kind = loadSnapshots(target); // validates every file against the schema
    const lab = loadSnapshots(committed);
    assert.equal(kind.run.driver, 'kind');
    assert.equal(lab.run.driver, 'lab');
    assert.deepEqual(kind.run.steps, lab.run.steps);
    assert.deepEqual([...kind.steps.keys()], [...lab.steps.keys()]);
    for (const [id, step] of kind.steps) {
      const other = lab.steps.get(id)!;
      // `settle` (the delete step's measured wait) is newer than the committed lab run: until 074 is
      // captured again, a committed step without it is compared on the other fields.
      const fields = Object.keys(step).filter((k) => k !== 'settle' || 'settle' in other);
      assert.deepEqual(fields.sort(), Object.keys(other).sort(), `${id}: same fields`);
      if (step.kind === 'delete-pod') assert.ok(step.settle, `${id}: the kind run records the wait`);
      assert.equal(step.node, other.node, `${id}: same node`);
      assert.equal(step.kind, other.kind, `${id}: same kind of step`);
    }
    // The article's facts and the run's, as the build derives them.
    const defs = withRunFacts(facts, kind.run);
    const { facts: derived, skipped } = deriveFactsWithSkips(defs, kind);
    assert.ok(derived.size > 50, `the article's facts derive from a kind run (${derived.size})`);
    for (const { id } of facts) assert.ok(derived.has(id) || skipped.some((s) => s.id === id), `${id} derives from the kind run`);
    assert.ok(
      skipped.every((s) => defs.find((d) => d.id === s.id)?.optional),
      'only optional facts are skipped',
    );
    // The values come from the tools' answers, not from the lab or the article.
    assert.notEqual(derived.get('node.worker.ip')!.value, lab.run.nodes.find((n) => n.name === 'worker')!.internalIP);
  } finally {
    await rm(out, { recursive: true, force: true });
    await harness.cleanup();
  }
});

test('contract: with the state folder inside the project, the kubeconfig reaches argv as a relative path (no machine path in snapshots)', async () => {
  const harness = await makeHarness();
  try {
    const root = join(harness.stateDir, '..', '..');
    const plan = harness.cluster(harness.driver(experiment, { cwd: root }), experiment).plan(symbolicTopologyView);
    const [del] = plan.steps.find((s) => s.step.kind === 'delete-pod')!.argvs;
    assert.deepEqual(del!.slice(0, 3), ['kubectl', '--kubeconfig', join('.shice', 'kind', 'kubeconfig')]);
    const kubectl = [...plan.setup, ...plan.steps.flatMap((s) => s.argvs)].filter((argv) => argv[0] === 'kubectl');
    assert.ok(kubectl.length > 0 && kubectl.every((argv) => argv[2] === join('.shice', 'kind', 'kubeconfig')), 'every kubectl call of the plan');
  } finally {
    await harness.cleanup();
  }
});
