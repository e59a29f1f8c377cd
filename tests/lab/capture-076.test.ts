// Article 076 captured for real on this kernel: requests sent from inside client
// pods' network namespaces and from the nodes themselves, the local backend deleted
// and created again while a client keeps asking, and every claim of the article
// holding on the new run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { deriveFacts } from '../../src/evidence/facts.ts';
import { evaluateClaims, formatBrokenClaims } from '../../src/evidence/claims.ts';
import { withRunFacts } from '../../src/evidence/run-facts.ts';
import { article076, S076 as SLUG } from '../support/articles.ts';
import { labUnavailable } from '../../src/capture/lab/tools.ts';
import { LAB_PREFIX } from '../../src/capture/lab/names.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';
import { labNamespaces } from './support.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

const missing = labUnavailable();
// In CI the lab must run: a missing prerequisite is a failure there, never a silent pass.
const skip = missing && process.env.CI !== 'true' ? `lab capture not run: ${missing}` : false;

test(
  'the lab capture of article 076: steps in the client pods, the backend deleted and created again, every claim holding',
  { skip, timeout: 180_000 },
  async () => {
    assert.equal(missing, null, `prerequisites: ${missing}`);
    const out = await mkdtemp(join(tmpdir(), 'shice-lab-076-'));
    try {
      const result = await execa(
        process.execPath,
        [join(root, 'scripts/capture.ts'), SLUG, '--driver', 'lab', '--k8s', HEADLINE_RELEASE.minor, '--variant', 'iptables', '--out', out],
        { cwd: root, reject: false },
      );
      assert.equal(result.exitCode, 0, result.stderr);
      // Against the committed lab run: addresses and times are the run's own, the behaviour is the same.
      assert.match(result.stderr, /^what changed: (no change in behaviour|the environment changed) /m);
      const runId = /\(run ([0-9A-Za-z-]+)\)/.exec(result.stderr)?.[1];
      assert.ok(runId);

      const snapshots = loadSnapshots(join(out, `${SLUG}.lab`));
      // A pod step entered the pod's own network namespace, on the node the manifests put it on.
      const inPod = snapshots.steps.get('local-from-worker2')!;
      assert.equal(inPod.pod, 'default/client-worker2');
      assert.equal(inPod.node, 'worker2');
      assert.deepEqual(inPod.argv.slice(4, 7), ['nsenter', `--net=/var/run/netns/${LAB_PREFIX}${runId}.pod.default.client-worker2`, '--']);
      assert.equal(inPod.argv[7], 'curl');
      // The backend saw the client pod's own address, as the API gave it.
      assert.equal(
        snapshots.steps.get('local-from-worker')!.stdout,
        `server=backend\nclient=${snapshots.run.pods.find((p) => p.name === 'client-worker')!.ip}\n`,
      );
      // The delete, timed from its start by the client; the recreate, from Ready.
      const deleted = snapshots.steps.get('delete-backend')!.settle!;
      assert.ok(deleted.afterDeleteStartMs! >= deleted.lastUnchangedMs!, JSON.stringify(deleted));
      assert.notEqual(deleted.exitCode, 0, 'the client failed');
      const recreated = snapshots.steps.get('recreate-backend')!.settle!;
      assert.equal(recreated.exitCode, 0, 'the client was answered again');
      assert.match(recreated.answer, /^server=backend\n/);

      const facts = deriveFacts(
        withRunFacts(
          article076.factDefs.filter((d) => !d.optional),
          snapshots.run,
        ),
        snapshots,
      );
      const results = evaluateClaims(
        article076.claimDefs.filter((c) => c.variants === undefined || c.variants.includes('iptables')),
        new Map([...facts, ...deriveFacts(article076.variantFactDefs!.iptables!, snapshots)]),
        (s) => s,
      );
      assert.deepEqual(formatBrokenClaims(results.filter((r) => r.status === 'broken')), []);

      assert.deepEqual(await labNamespaces(runId), [], 'nothing of the lab is left');
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  },
);
