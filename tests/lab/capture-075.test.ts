// Article 075 captured for real on this kernel: a Deployment the scheduler
// spreads two and one, pods answering with their own names (the lab kubelet's
// UTS namespaces), and every claim of the article holding on the new run.
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
import { podsByRole, REQUESTS_PER_NODE } from '../../content/articles/075-local-uneven-weights/article.ts';
import { article075 } from '../support/articles.ts';
import { labUnavailable } from '../../src/capture/lab/tools.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';
import { labNamespaces } from './support.ts';

const SLUG = '075-local-uneven-weights';
const root = fileURLToPath(new URL('../../', import.meta.url));

const missing = labUnavailable();
// In CI the lab must run: a missing prerequisite is a failure there, never a silent pass.
const skip = missing && process.env.CI !== 'true' ? `lab capture not run: ${missing}` : false;

test('the lab capture of article 075: two and one pods, each answering with its name, every claim holding', { skip, timeout: 180_000 }, async () => {
  assert.equal(missing, null, `prerequisites: ${missing}`);
  const out = await mkdtemp(join(tmpdir(), 'shice-lab-075-'));
  try {
    const result = await execa(process.execPath, [join(root, 'scripts/capture.ts'), SLUG, '--driver', 'lab', '--k8s', HEADLINE_RELEASE.minor, '--out', out], {
      cwd: root,
      reject: false,
    });
    assert.equal(result.exitCode, 0, result.stderr);
    const steps = article075.experiment.steps.length;
    assert.match(result.stderr, new RegExp(`\\[${steps}/${steps}\\] spread-local on control-plane: exit 0`), 'the last step ran');
    assert.match(result.stderr, /waiting for Deployment default\/web to roll out/);
    // Against the committed lab run: the pods are named afresh and placed anew, the behaviour is the same.
    assert.match(result.stderr, /^what changed: (no change in behaviour|the environment changed) /m);

    const snapshots = loadSnapshots(join(out, `${SLUG}.lab`));
    const roles = podsByRole(snapshots.run);
    assert.ok(
      Object.values(roles).every((p) => /^web-[a-z0-9]+-[a-z0-9]+$/.test(p.name)),
      'the API named the pods',
    );
    // The answers are the pods' own names: every line starts with one of the three.
    const names = new Set(Object.values(roles).map((p) => p.name));
    for (const step of ['spread-cluster', 'spread-local']) {
      const lines = snapshots.steps.get(step)!.stdout.trim().split('\n');
      assert.equal(lines.length, 2 * REQUESTS_PER_NODE);
      for (const line of lines) assert.ok(names.has(line.split(' ')[0]!), `${step}: "${line}" names one of the pods`);
    }
    // The article's facts and the run's, as the build derives them.
    const facts = deriveFacts(
      withRunFacts(
        article075.factDefs.filter((d) => !d.optional),
        snapshots.run,
      ),
      snapshots,
    );
    const results = evaluateClaims(article075.claimDefs, facts, (s) => s);
    assert.deepEqual(formatBrokenClaims(results.filter((r) => r.status === 'broken')), []);

    const runId = /\(run ([0-9A-Za-z-]+)\)/.exec(result.stderr)?.[1];
    assert.ok(runId);
    assert.deepEqual(await labNamespaces(runId), [], 'nothing of the lab is left');
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});
