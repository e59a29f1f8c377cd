// Variants: which runs a capture makes, what each variant's experiment is, where
// its snapshots go; the comparison table and the claims across the two committed
// runs of article 074 (iptables and nftables), and what breaks them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump, load } from 'js-yaml';
import { article074 as definition074, experiment074 as article074 } from '../support/articles.ts';
import { defaultVariant, experimentForVariant, qualify, selectVariants, variantFolder, variantProblems, variantsOf } from '../../src/experiment/variants.ts';
import { bindableIds, brokenClaims, buildArticleRuns, comparisonTable, evidenceOfRun } from '../../src/evidence/runs/variants.ts';
import { parseCaptureArgs } from '../../src/capture/session/cli-args.ts';
import { proxyModeProblem } from '../../src/capture/lab/tools.ts';
import type { Experiment } from '../../src/experiment/types.ts';

const SLUG = '074-external-traffic-policy';
const root = fileURLToPath(new URL('../../', import.meta.url));
const committed = join(root, 'content/articles', SLUG, 'snapshots');
const comparisonRows = definition074.comparisonRows!;
const comparisons = definition074.comparisonDefs!;

test("variant selection: every variant by default, the named ones in the experiment's order, an unknown name listing the known", () => {
  assert.deepEqual(variantsOf(article074), ['iptables', 'nftables', 'ipvs']);
  assert.equal(defaultVariant(article074), 'iptables');
  assert.deepEqual(selectVariants(article074, []), ['iptables', 'nftables', 'ipvs']);
  assert.deepEqual(selectVariants(article074, ['nftables', 'iptables']), ['iptables', 'nftables']);
  assert.throws(
    () => selectVariants(article074, ['nft']),
    /^Error: --variant nft: 074-external-traffic-policy has no such variant; it has iptables, nftables, ipvs$/,
  );
  const single: Experiment = { ...experimentForVariant(article074, 'iptables') };
  assert.deepEqual(variantsOf(single), [null]);
  assert.deepEqual(selectVariants(single, []), [null]);
  assert.throws(() => selectVariants(single, ['iptables']), /declares no variants \(it has one run\)/);
  assert.deepEqual(parseCaptureArgs(['--variant', 'iptables,nftables', '--variant', 'nftables']).variants, ['iptables', 'nftables']);
  assert.throws(() => parseCaptureArgs(['--variant', 'ip tables']), /--variant expects names of lowercase letters and digits/);
});

test("a variant's experiment: the axis set, only that variant's steps; its folder beside the default one", () => {
  const nft = experimentForVariant(article074, 'nftables');
  assert.equal(nft.cluster.kubeProxyMode, 'nftables');
  assert.equal(nft.variants, undefined);
  const ids = nft.steps.map((s) => s.id);
  assert.ok(ids.includes('nft-worker2') && !ids.includes('iptables-worker2'));
  const ipt = experimentForVariant(article074, 'iptables').steps.map((s) => s.id);
  assert.ok(ipt.includes('iptables-worker2') && !ipt.includes('nft-worker2'));
  // The steps only one mode has: iptables reads its filter and nat tables, nftables kube-proxy's own table.
  assert.deepEqual(
    ipt.filter((id) => !ids.includes(id)),
    ['iptables-worker2', 'iptables-worker'],
  );
  assert.deepEqual(
    ids.filter((id) => !ipt.includes(id)),
    ['nft-worker2'],
  );
  assert.equal(variantFolder('a/snapshots', 'iptables', 'iptables'), 'a/snapshots');
  assert.equal(variantFolder('a/snapshots', 'nftables', 'iptables'), 'a/snapshots.nftables');
  assert.equal(variantFolder('out/074', null, null), 'out/074');
  // A comparison reads a fact of a variant's run as `<variant>:<id>`.
  assert.deepEqual(
    ['a', 'b'].map((v) => qualify(v, 'x.rc')),
    ['a:x.rc', 'b:x.rc'],
  );
});

test('variant declarations are checked: the default first, known modes, steps naming declared variants', () => {
  assert.deepEqual(variantProblems(article074, 'article.ts'), []);
  const bad: Experiment = {
    ...article074,
    variants: { axis: 'kubeProxyMode', values: ['nftables', 'iptables', 'iptables', 'userspace' as 'ipvs'] },
    steps: [{ ...article074.steps[0]!, variants: ['ebpf'] }],
  };
  assert.deepEqual(variantProblems(bad, 'article.ts'), [
    'article.ts: field "experiment.variants.values": expected iptables, nftables, ipvs, got "userspace"',
    'article.ts: field "experiment.variants.values": a mode is listed twice',
    'article.ts: field "experiment.variants.values": expected the cluster\'s kubeProxyMode "iptables" first (the default variant), got "nftables"',
    'article.ts: step "cluster-via-worker": field "variants": expected some of nftables, iptables, iptables, userspace, got ["ebpf"]',
  ]);
});

test('the lab refuses ipvs on a kernel without IPVS in one line, and asks for nft in nftables mode', () => {
  const noIpvs = () => ({ procNetIpVs: false, configLine: '# CONFIG_IP_VS is not set' });
  assert.deepEqual(
    proxyModeProblem('ipvs', noIpvs, () => '/usr/sbin/nft'),
    {
      unsupported: true,
      problem:
        'the lab cannot run kube-proxy in ipvs mode: this kernel has no IPVS (/proc/config.gz: CONFIG_IP_VS is not set, and the lab loads no modules); capture ipvs with --driver kind on a kernel with IPVS',
    },
  );
  assert.equal(
    proxyModeProblem(
      'ipvs',
      () => ({ procNetIpVs: true, configLine: 'CONFIG_IP_VS=y' }),
      () => null,
    ),
    null,
  );
  assert.deepEqual(
    proxyModeProblem('nftables', noIpvs, () => null),
    { unsupported: false, problem: 'kube-proxy in nftables mode needs nft on PATH (Debian package nftables): apt-get install nftables' },
  );
  assert.equal(
    proxyModeProblem('nftables', noIpvs, () => '/usr/sbin/nft'),
    null,
  );
  assert.equal(
    proxyModeProblem('iptables', noIpvs, () => null),
    null,
  );
});

/** The article's evidence from a root holding `<slug>` and `<slug>.nftables`, as SHICE_SNAPSHOT_ROOT lays it out. */
function runsFrom(defaultDir: string) {
  return buildArticleRuns({
    slug: SLUG,
    snapshotsDir: defaultDir,
    experiment: article074,
    factDefs: definition074.factDefs,
    variantFactDefs: definition074.variantFactDefs,
    lines: definition074.lines,
    linesFile: definition074.file,
    claimDefs: definition074.claimDefs,
    comparisonDefs: comparisons,
    claimsFile: definition074.file,
  });
}

function copyRuns(mutateNft?: (dir: string) => void): { tmp: string; dir: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-variants-'));
  const dir = join(tmp, SLUG);
  cpSync(committed, dir, { recursive: true });
  cpSync(`${committed}.nftables`, `${dir}.nftables`, { recursive: true });
  mutateNft?.(`${dir}.nftables`);
  return { tmp, dir };
}

const editStep = (file: string, change: (s: Record<string, unknown>) => void) => (dir: string) => {
  const path = join(dir, file);
  const data = load(readFileSync(path, 'utf8')) as Record<string, unknown>;
  change(data);
  writeFileSync(path, dump(data, { lineWidth: -1 }));
};

test("a comparison table built from the two committed runs: a column per run, each cell that run's fact", () => {
  const evidence = runsFrom(committed);
  const runs = evidence.variantRuns!;
  assert.deepEqual(runs.measured, ['iptables', 'nftables']);
  assert.deepEqual(runs.notMeasured, ['ipvs']);
  const table = comparisonTable(comparisonRows, runs, 'article.ts');
  const runIdOf = (dir: string) => (load(readFileSync(join(dir, 'run.yaml'), 'utf8')) as { runId: string }).runId;
  assert.deepEqual(table.columns, [
    { variant: 'iptables', run: runIdOf(committed) },
    { variant: 'nftables', run: runIdOf(`${committed}.nftables`) },
  ]);
  assert.deepEqual(table.notMeasured, ['ipvs']);
  assert.equal(table.rows.length, comparisonRows.length);
  for (const row of table.rows) {
    assert.deepEqual(
      row.cells.map((c) => c.variant),
      ['iptables', 'nftables'],
    );
    for (const cell of row.cells) {
      assert.equal(cell.fact.id, row.fact);
      assert.equal(cell.fact.value, runs.runs.get(cell.variant)!.facts.get(row.fact)!.value);
      assert.equal(cell.run, runs.runs.get(cell.variant)!.snapshots.run.runId);
    }
  }
  // Read independently of the extractors: curl's exit code in each run's own file.
  const rc = table.rows.find((r) => r.fact === 'local-via-worker2.rc')!;
  for (const cell of rc.cells) {
    const dir = cell.variant === 'iptables' ? committed : `${committed}.nftables`;
    assert.equal(cell.fact.value, String((load(readFileSync(join(dir, 'local-via-worker2.yaml'), 'utf8')) as { exitCode: number }).exitCode));
  }
  const mode = table.rows.find((r) => r.fact === 'run.kubeProxyMode')!;
  assert.deepEqual(
    mode.cells.map((c) => c.fact.value),
    ['iptables', 'nftables'],
  );
  assert.throws(
    () => comparisonTable([{ fact: 'nft-worker2.drop.verdict', label: { zh: 'x', en: 'x' } }], runs, 'article.ts'),
    /article\.ts: comparisonRows: fact "nft-worker2\.drop\.verdict": the iptables run has no such fact/,
  );
});

test('every claim of every run and across runs holds on the committed snapshots; the MDX may bind <variant>:<id>', () => {
  const evidence = runsFrom(committed);
  assert.deepEqual(brokenClaims(evidence), []);
  assert.deepEqual(
    evidence.variantRuns!.comparisons.map((c) => c.id),
    comparisons.map((c) => c.id),
  );
  const { factIds, stepIds, claims: bindable } = bindableIds(evidence);
  assert.ok(
    factIds.includes('nftables:nft-worker2.drop.verdict') && factIds.includes('local-via-worker2.rc') && factIds.includes('iptables:local-via-worker2.rc'),
  );
  assert.ok(stepIds.includes('nftables:nft-worker2') && !stepIds.includes('nft-worker2'));
  assert.ok(bindable.some((c) => c.id === 'nft-drops-without-backend') && bindable.some((c) => c.id === 'modes-drop-alike'));
  assert.equal(evidenceOfRun(evidence, { variant: 'nftables' }, 'zh.mdx').snapshots.run.cluster.kubeProxyMode, 'nftables');
  assert.throws(
    () => evidenceOfRun(evidence, { variant: 'ipvs' }, 'zh.mdx: <Fact>'),
    /^Error: zh\.mdx: <Fact>: variant="ipvs": that variant was not measured \(no snapshots\); measured: iptables, nftables$/,
  );
  assert.throws(() => evidenceOfRun(evidence, { variant: 'ebpf' }, 'zh.mdx: <Fact>'), /no such variant; the experiment has iptables, nftables, ipvs/);
});

test('a comparison breaks when one mode stops dropping, and names the variant and the file; so does the nftables claim', () => {
  const { tmp, dir } = copyRuns(
    editStep('local-via-worker2.yaml', (s) => {
      s['exitCode'] = 7;
      s['stderr'] = 'curl: (7) Failed to connect to 172.18.0.4 port 30154 after 2 ms: Connection refused\n';
    }),
  );
  try {
    const broken = brokenClaims(runsFrom(dir)).join('\n');
    assert.match(broken, /^nftables: claim "nft-drops-without-backend" no longer holds/m);
    assert.match(broken, /^across iptables, nftables: claim "modes-drop-alike" no longer holds/m);
    assert.match(broken, /nftables:local-via-worker2\.rc = "7"  from .*\.nftables\/local-via-worker2\.yaml/);
    assert.doesNotMatch(broken, /^iptables:/m, 'the iptables run still holds');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a variant folder holding another mode's run is refused, naming the file and field", () => {
  const { tmp, dir } = copyRuns(
    editStep('run.yaml', (r) => {
      (r['cluster'] as { kubeProxyMode: string }).kubeProxyMode = 'iptables';
    }),
  );
  try {
    assert.throws(
      () => runsFrom(dir),
      /\.nftables\/run\.yaml: field "cluster\.kubeProxyMode": expected "nftables" \(the variant this folder holds\), got "iptables"/,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
