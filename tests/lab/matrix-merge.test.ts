// capture.yml's path on this kernel: the matrix listed by `capture:matrix`, each
// entry captured for real into an --out folder of its own (a runner's), the
// folders gathered as the artifacts are downloaded, and `capture:merge` over
// them with a report, all called with the arguments the workflow passes (empty
// inputs included). The lab stands in for the runners' kind clusters (it runs in
// seconds here); ipvs, which this kernel cannot run, fails its job and leaves
// nothing to upload. The merge writes into a copy of the project.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { MatrixRun } from '../../src/capture/session/matrix.ts';
import { treeDigest } from '../support/tree-digest.ts';
import { projectCopy } from '../support/project-copy.ts';
import { kernelTest } from './support.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const node = process.execPath;

kernelTest('the matrix, a capture per entry and the merge, as capture.yml calls them, on runs captured here', async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-matrix-'));
  try {
    // ARTICLES names two (074 with its modes, 075 without: the unit suite lists every article's entries); VARIANTS is empty: every variant.
    const listed = await execa(
      node,
      [
        join(root, 'scripts/capture-matrix.ts'),
        '074-external-traffic-policy 075-local-uneven-weights',
        '--variant',
        '',
        '--k8s',
        HEADLINE_RELEASE.minor,
        '--driver',
        'lab',
      ],
      {
        cwd: root,
        reject: false,
      },
    );
    assert.equal(listed.exitCode, 0, listed.stderr);
    const { include } = JSON.parse(listed.stdout) as { include: MatrixRun[] };
    assert.deepEqual(
      include.map((r) => r.artifact),
      [
        '074-external-traffic-policy-lab-iptables',
        '074-external-traffic-policy-lab-nftables',
        '074-external-traffic-policy-lab-ipvs',
        '075-local-uneven-weights-lab',
      ],
    );

    const downloaded = join(tmp, 'runs');
    // The runners capture side by side, each into a folder of its own, as capture.yml's jobs do.
    const captured = await Promise.all(
      include.map(async (run) => {
        const out = join(tmp, 'runner', run.artifact, 'run');
        const args = [run.slug, '--driver', 'lab', '--k8s', run.kubernetes, '--out', out, ...(run.variant ? ['--variant', run.variant] : [])];
        const started = performance.now();
        const result = await execa(node, [join(root, 'scripts/capture.ts'), ...args], { cwd: root, reject: false });
        t.diagnostic(`${run.artifact}: exit ${result.exitCode} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
        return { run, out, result };
      }),
    );
    const uploaded: string[] = [];
    for (const { run, out, result } of captured) {
      if (run.variant === 'ipvs') {
        // The job fails, and upload-artifact's if-no-files-found: error finds nothing: the merge gets nothing of it.
        assert.equal(result.exitCode, 2, result.stderr);
        assert.match(result.stderr, /variant ipvs on Kubernetes v[\d.]+: .*IPVS/);
        assert.ok(!existsSync(out) || readdirSync(out).length === 0, 'a refused run writes nothing');
        continue;
      }
      assert.equal(result.exitCode, 0, result.stderr);
      cpSync(out, join(downloaded, `run-${run.artifact}`), { recursive: true });
      uploaded.push(`run-${run.artifact}`);
    }

    const project = projectCopy(root, tmp);
    const report = join(tmp, 'report.md');
    const artifacts = readdirSync(downloaded).map((name) => join(downloaded, name));
    const merged = await execa(node, [join(project, 'scripts/capture-merge.ts'), ...artifacts, '--variant', '', '--report', report], {
      cwd: project,
      reject: false,
      env: { SHICE_RUN_REGISTRY: join(tmp, 'registry') },
    });
    assert.equal(merged.exitCode, 0, merged.stderr);
    assert.match(merged.stderr, /^capture:merge: 3 run\(s\) of 2 article\(s\) merged in [\d.]+ s$/m);
    const articles = join(project, 'content/articles');
    for (const [name, folder] of [
      ['run-074-external-traffic-policy-lab-iptables/074-external-traffic-policy.lab', '074-external-traffic-policy/snapshots.lab'],
      ['run-074-external-traffic-policy-lab-nftables/074-external-traffic-policy.lab.nftables', '074-external-traffic-policy/snapshots.lab.nftables'],
      ['run-075-local-uneven-weights-lab/075-local-uneven-weights.lab', '075-local-uneven-weights/snapshots.lab'],
    ]) {
      assert.deepEqual(treeDigest(join(articles, folder)), treeDigest(join(downloaded, name!)), `${folder} holds the captured run, byte for byte`);
    }
    assert.deepEqual(
      treeDigest(join(articles, '074-external-traffic-policy/snapshots')),
      treeDigest(join(root, 'content/articles/074-external-traffic-policy/snapshots')),
      "kind's runs untouched",
    );
    const text = readFileSync(report, 'utf8');
    assert.equal([...text.matchAll(/^## /gm)].length, 3);
    assert.equal([...text.matchAll(/^claims: all \d+ hold$/gm)].length, 3, text);
    for (const slug of readdirSync(articles))
      assert.deepEqual(
        readdirSync(join(articles, slug)).filter((n) => n.startsWith('.')),
        [],
        `${slug}: nothing left beside the snapshots`,
      );
    assert.deepEqual(readdirSync(join(tmp, 'registry')), [], 'no record left');
    t.diagnostic(`uploaded: ${uploaded.join(', ')}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
