// capture:merge on real run folders: copies of the committed runs of 074 and 075
// (kind and lab, every variant captured here) and the lab run recorded as a
// fixture (tests/fixtures/snapshots/074-sample). The plan (merge-plan.ts) on
// what the disk holds, every refusal as one line naming the folder, and the
// command itself on a copy of the project: the real content/ is never written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMergeArgs } from '../../src/capture/session/matrix.ts';
import { checkoutArticles, findRuns, prepareMerge } from '../../src/capture/merge/merge.ts';
import { swapInRuns, SwapError } from '../../src/capture/merge/swap-in.ts';
import { planMerge, runFolderName } from '../../src/capture/merge/merge-plan.ts';
import { UsageError } from '../../src/capture/session/cli-args.ts';
import { kubeRelease } from '../../src/experiment/kubernetes.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import { treeDigest } from '../support/tree-digest.ts';
import { projectCopy } from '../support/project-copy.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const S074 = '074-external-traffic-policy';
const S075 = '075-local-uneven-weights';
const committed = (slug: string, folder: string) => join(root, 'content/articles', slug, folder);
const SAMPLE = join(root, 'tests/fixtures/snapshots/074-sample');
const articles = [...(await checkoutArticles(root)).values()].map((a) => a.article);

/** An --out folder as a capture writes it, holding copies of committed runs: name -> committed folder. */
function outFolder(parent: string, name: string, runs: Record<string, string>): string {
  const out = join(parent, name);
  mkdirSync(out, { recursive: true });
  for (const [folder, from] of Object.entries(runs)) cpSync(from, join(out, folder), { recursive: true });
  return out;
}

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'shice-merge-'));
}

/** A CI matrix's artifacts: one --out folder per run, as capture.yml downloads them. */
function artifacts(tmp: string): string[] {
  return [
    outFolder(tmp, 'run-074-kind-iptables', { [S074]: committed(S074, 'snapshots') }),
    outFolder(tmp, 'run-074-kind-nftables', { [`${S074}.nftables`]: committed(S074, 'snapshots.nftables') }),
    outFolder(tmp, 'run-075-kind', { [S075]: committed(S075, 'snapshots') }),
  ];
}

const plan = (dirs: string[], variants: string[] = []) => {
  const { found, problems } = findRuns(dirs);
  assert.deepEqual(problems, []);
  return planMerge(found, articles, variants);
};

test('the folder names --out gives each run are the ones the merge expects', () => {
  const a074 = articles.find((a) => a.slug === S074)!;
  assert.equal(runFolderName(S074, a074.experiment, 'kind', 'iptables'), S074);
  assert.equal(runFolderName(S074, a074.experiment, 'kind', 'nftables'), `${S074}.nftables`);
  assert.equal(runFolderName('snapshots', a074.experiment, 'lab', 'nftables'), 'snapshots.lab.nftables');
  assert.equal(runFolderName('snapshots', a074.experiment, 'lab', 'nftables', kubeRelease('v1.34')), 'snapshots.v1.34.lab.nftables');
  assert.equal(runFolderName(S074, a074.experiment, 'kind', 'iptables', kubeRelease('v1.36')), `${S074}.v1.36`);
  // Per version and environment, what is committed (an older version's folders once captured).
  const committedNow = (minor: string, environment: string) =>
    ['iptables', 'nftables', 'ipvs'].filter((v) =>
      existsSync(join(root, 'content/articles', S074, runFolderName('snapshots', a074.experiment, environment as 'kind', v, kubeRelease(minor)), 'run.yaml')),
    );
  for (const minor of ['v1.37', 'v1.36', 'v1.35', 'v1.34'])
    for (const environment of ['kind', 'lab'])
      assert.deepEqual(a074.committed[`${minor} ${environment}`], committedNow(minor, environment), `${minor} ${environment}`);
});

test("a matrix's artifacts make one group per article and environment, each run aimed at its snapshots folder", () => {
  const tmp = scratch();
  try {
    const result = plan(artifacts(tmp));
    assert.ok('groups' in result, JSON.stringify(result));
    assert.deepEqual(
      result.groups.map((g) => [g.slug, g.environment, g.runs.map((r) => `${r.variant}:${r.folder}`)]),
      [
        [S074, 'kind', ['iptables:snapshots', 'nftables:snapshots.nftables']],
        [S075, 'kind', ['null:snapshots']],
      ],
    );
    // One --out folder holding several runs, and a run folder given itself, read the same way.
    const lab = outFolder(tmp, 'lab-out', {
      [`${S074}.lab`]: committed(S074, 'snapshots.lab'),
      [`${S074}.lab.nftables`]: committed(S074, 'snapshots.lab.nftables'),
    });
    const alone = plan([join(lab, `${S074}.lab`), join(lab, `${S074}.lab.nftables`)]);
    const together = plan([lab]);
    assert.ok('groups' in alone && 'groups' in together);
    assert.deepEqual(
      together.groups.map((g) => g.runs.map((r) => r.folder)),
      [['snapshots.lab', 'snapshots.lab.nftables']],
    );
    assert.deepEqual(
      alone.groups.map((g) => g.runs.map((r) => r.runId)),
      together.groups.map((g) => g.runs.map((r) => r.runId)),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('every refusal is one line that names the folder and what was expected', () => {
  const tmp = scratch();
  try {
    const cases: Array<[string, () => string[], RegExp]> = [
      [
        'two runs of one article, environment and variant',
        () => [...artifacts(tmp), outFolder(tmp, 'again', { [S075]: committed(S075, 'snapshots') })],
        /again\/075-local-uneven-weights: run id .* is also the run id of .*run-075-kind\/075-local-uneven-weights/,
      ],
      [
        'a partial set of variants',
        () => [outFolder(tmp, 'only-nft', { [`${S074}.nftables`]: committed(S074, 'snapshots.nftables') })],
        /only-nft\/074-external-traffic-policy\.nftables: 074-external-traffic-policy \(kind\) lacks iptables, which has a committed run; expected every variant of one capture together/,
      ],
      [
        'a run under a name --out would not give it',
        () => [
          outFolder(tmp, 'misnamed', { [`${S074}.nftables`]: committed(S074, 'snapshots') }),
          outFolder(tmp, 'n2', { [S074]: committed(S074, 'snapshots.nftables') }),
        ],
        /misnamed\/074-external-traffic-policy\.nftables: its run\.yaml is the run of 074-external-traffic-policy \(kind, iptables\), which --out names 074-external-traffic-policy; expected that name/,
      ],
      [
        "an older version's run under another version's name",
        () => [outFolder(tmp, 'wrong-version', { [`${S075}.v1.35`]: committed(S075, 'snapshots.v1.34') })],
        /wrong-version\/075-local-uneven-weights\.v1\.35: its run\.yaml is the run of 075-local-uneven-weights \(kind, Kubernetes v1\.34\), which --out names 075-local-uneven-weights\.v1\.34; expected that name/,
      ],
      [
        'a file where a run folder belongs',
        () => {
          const out = outFolder(tmp, 'stray', {});
          writeFileSync(join(out, 'notes.txt'), 'x\n');
          return [out];
        },
        /stray\/notes\.txt: expected only run folders .* found a file/,
      ],
      [
        'a run folder holding what a capture did not write',
        () => {
          const out = outFolder(tmp, 'foreign', { [S075]: committed(S075, 'snapshots') });
          writeFileSync(join(out, S075, 'README.md'), 'x\n');
          return [out];
        },
        /foreign\/075-local-uneven-weights: holds what a capture did not write \(README\.md\); expected a run folder written by --out/,
      ],
      [
        'a link to a run folder',
        () => {
          const out = outFolder(tmp, 'linked', {});
          symlinkSync(committed(S075, 'snapshots'), join(out, S075));
          return [out];
        },
        /linked\/075-local-uneven-weights: expected only run folders .* found a symlink/,
      ],
      [
        'an article this checkout does not have',
        () => {
          const out = outFolder(tmp, 'other-article', { 'ghost-article': committed(S075, 'snapshots') });
          const yaml = join(out, 'ghost-article', 'run.yaml');
          writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(`slug: ${S075}`, 'slug: ghost-article'));
          return [out];
        },
        /other-article\/ghost-article\/run\.yaml: field "slug": no article "ghost-article" in this checkout/,
      ],
      [
        'a variant the experiment does not declare',
        () => {
          const out = outFolder(tmp, 'odd-mode', { [S074]: committed(S074, 'snapshots') });
          const yaml = join(out, S074, 'run.yaml');
          writeFileSync(yaml, readFileSync(yaml, 'utf8').replace('kubeProxyMode: iptables', 'kubeProxyMode: userspace'));
          return [out];
        },
        /odd-mode\/074-external-traffic-policy\/run\.yaml: field "cluster\.kubeProxyMode": expected one of 074-external-traffic-policy's variants \(iptables, nftables, ipvs\), got "userspace"/,
      ],
      ['an empty folder', () => [outFolder(tmp, 'empty', {})], /empty: holds no run folder; expected the folder a capture's --out wrote/],
      ['nothing there', () => [join(tmp, 'missing')], /missing: expected a folder of run folders written by --out, found nothing/],
    ];
    for (const [what, dirs, expected] of cases) {
      const given = dirs();
      const { found, problems } = findRuns(given);
      const result = planMerge(found, articles);
      const lines = [...problems, ...('problems' in result ? result.problems : [])];
      assert.ok(lines.length >= 1, `${what}: refused`);
      assert.ok(
        lines.some((l) => expected.test(l)),
        `${what}: ${lines.join('\n')}`,
      );
      for (const line of lines) assert.ok(!line.includes('\n'), `${what}: one line`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('--variant names the variants a merge expects: a set narrower than the committed ones is then whole', () => {
  const tmp = scratch();
  try {
    const dirs = [outFolder(tmp, 'nft', { [`${S074}.nftables`]: committed(S074, 'snapshots.nftables') })];
    const result = plan(dirs, ['nftables']);
    assert.ok('groups' in result);
    assert.deepEqual(
      result.groups.map((g) => g.runs.map((r) => r.variant)),
      [['nftables']],
    );
    const more = plan([...dirs, outFolder(tmp, 'ipt', { [S074]: committed(S074, 'snapshots') })], ['nftables']);
    assert.ok('problems' in more);
    assert.match(more.problems[0]!, /holds iptables, which --variant does not name/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the arguments: folders, --variant, --report; a mistake is one line', () => {
  assert.deepEqual(parseMergeArgs(['a', 'b', '--variant', 'iptables,nftables', '--report', 'r.md']), {
    dirs: ['a', 'b'],
    variants: ['iptables', 'nftables'],
    report: 'r.md',
    acceptBrokenClaims: false,
    help: false,
  });
  // A workflow's empty input is no variant.
  assert.deepEqual(parseMergeArgs(['a', '--variant', '']).variants, []);
  for (const [argv, message] of [
    [[], /expected at least one folder of runs written by --out/],
    [['a', '--report', ''], /--report needs a value/],
    [['a', '--variant', 'Bad!'], /--variant expects names of lowercase letters and digits/],
    [['a', '--force'], /Unknown option '--force'/],
  ] as const) {
    assert.throws(
      () => parseMergeArgs([...argv]),
      (e: Error) => e instanceof UsageError && message.test(e.message) && !e.message.includes('\n'),
    );
  }
});

test('a run that no longer shows a fact, one that went wrong, and one on which a claim broke are judged before anything is touched', async () => {
  const tmp = scratch();
  try {
    const [ipt, nft] = artifacts(tmp);
    const file = (name: string) => join(ipt!, S074, name);
    writeFileSync(
      file('health-worker2.yaml'),
      readFileSync(file('health-worker2.yaml'), 'utf8').replace('HTTP/1.1 503 Service Unavailable', 'nothing came back'),
    );
    // A healthy run that no longer shows what a fact reads: a change in behaviour, judged as broken claims.
    const changed = await prepareMerge({ root, dirs: [ipt!, nft!], variants: [], acceptBrokenClaims: false });
    assert.ok('code' in changed && changed.code === 3, JSON.stringify(changed));
    assert.match(changed.lines[0]!, /claim\(s\) no longer hold: .*fact "health-worker2\.status" is not in this run: .*health-worker2\.yaml/);
    // The same run, had the step reached its time limit: it went wrong, so it is no measurement.
    writeFileSync(file('health-worker2.yaml'), readFileSync(file('health-worker2.yaml'), 'utf8').replace('exitCode: 0', 'exitCode: 0\ntimedOut: true'));
    const facts = await prepareMerge({ root, dirs: [ipt!, nft!], variants: [], acceptBrokenClaims: false });
    assert.ok('code' in facts && facts.code === 1, JSON.stringify(facts));
    assert.match(
      facts.lines[0]!,
      /run-074-kind-iptables\/074-external-traffic-policy.* \(074-external-traffic-policy, kind\): facts cannot be derived, so this is no measurement: .*health-worker2\.yaml.*reached its time limit/,
    );

    // A malformed merge input: a file that does not read as a step, named with its field, not "facts cannot be derived".
    cpSync(committed(S074, 'snapshots'), join(ipt!, S074), { recursive: true });
    writeFileSync(file('cluster-via-worker.yaml'), readFileSync(file('cluster-via-worker.yaml'), 'utf8').replace('exitCode: 0', 'exitCode: nope'));
    const malformed = await prepareMerge({ root, dirs: [ipt!, nft!], variants: [], acceptBrokenClaims: false });
    assert.ok('code' in malformed && malformed.code === 1, JSON.stringify(malformed));
    assert.match(
      malformed.lines[0]!,
      /\(074-external-traffic-policy, kind\): does not read as snapshots, so this is no measurement: .*cluster-via-worker\.yaml: field "exitCode": expected an integer, got "nope"$/,
    );

    cpSync(committed(S074, 'snapshots'), join(ipt!, S074), { recursive: true });
    writeFileSync(file('local-via-worker2.yaml'), readFileSync(file('local-via-worker2.yaml'), 'utf8').replace('exitCode: 28', 'exitCode: 7'));
    const claims = await prepareMerge({ root, dirs: [ipt!, nft!], variants: [], acceptBrokenClaims: false });
    assert.ok('code' in claims && claims.code === 3, JSON.stringify(claims));
    assert.match(claims.lines[0]!, /claim\(s\) no longer hold: .*local-drops-without-backend/);
    assert.match(claims.lines.at(-1)!, /nothing was merged; .* --accept-broken-claims/);
    const accepted = await prepareMerge({ root, dirs: [ipt!, nft!], variants: [], acceptBrokenClaims: true });
    assert.ok('groups' in accepted);
    assert.match(accepted.notes.join('\n'), /^accepted: .*local-drops-without-backend/m);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

function merge(project: string, tmp: string, args: string[]) {
  // From the project's root, as npm runs it (a declared fact reads its manifest from there).
  return spawnSync(process.execPath, [join(project, 'scripts/capture-merge.ts'), ...args], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, SHICE_RUN_REGISTRY: join(tmp, 'registry'), SHICE_KEPT_RUNS: join(tmp, 'kept') },
  });
}

test('the command merges runs as capture.yml calls it: swapped in byte for byte, a Markdown report, nothing left beside the targets', () => {
  const tmp = scratch();
  try {
    const project = projectCopy(root, tmp);
    const labDir = join(project, 'content/articles', S074);
    const before = treeDigest(join(project, 'content'));
    // The recorded lab run: iptables only, so the committed nftables run of the lab makes the set partial.
    const runs = outFolder(tmp, 'runs/run-074-lab-iptables', { [`${S074}.lab`]: SAMPLE });
    const partial = merge(project, tmp, [runs]);
    assert.equal(partial.status, 2, partial.stderr);
    assert.match(
      partial.stderr,
      /^capture:merge: \.\.\/runs\/run-074-lab-iptables\/074-external-traffic-policy\.lab: 074-external-traffic-policy \(lab\) lacks nftables/m,
    );
    assert.match(partial.stderr, /^capture:merge: nothing was merged$/m);
    assert.deepEqual(treeDigest(join(project, 'content')), before, 'a refusal touches nothing');
    const nowhere = merge(project, tmp, [runs, '--variant', 'iptables', '--report', join(tmp, 'no-such-folder', 'report.md')]);
    assert.equal(nowhere.status, 2, nowhere.stderr);
    assert.match(
      nowhere.stderr,
      /^capture:merge: --report .*no-such-folder\/report\.md: its folder \S+ does not exist; expected a file in an existing folder; nothing was merged\n$/,
    );
    const onSnapshot = merge(project, tmp, [runs, '--variant', 'iptables', '--report', join(labDir, 'snapshots.lab', 'run.yaml')]);
    assert.equal(onSnapshot.status, 2, onSnapshot.stderr);
    assert.match(onSnapshot.stderr, /^capture:merge: --report .*run\.yaml: is inside content\/ of the checkout; .*; nothing was merged\n$/);
    assert.deepEqual(treeDigest(join(project, 'content')), before, 'a report that cannot be written is found before the swap');

    const merged = merge(project, tmp, [runs, '--variant', 'iptables', '--report', join(tmp, 'report.md')]);
    assert.equal(merged.status, 0, merged.stderr);
    assert.deepEqual(treeDigest(join(labDir, 'snapshots.lab')), treeDigest(SAMPLE), 'the lab run swapped in byte for byte');
    assert.deepEqual(treeDigest(join(labDir, 'snapshots.lab.nftables')), treeDigest(committed(S074, 'snapshots.lab.nftables')), 'the other variant untouched');
    assert.match(merged.stderr, /^merged 074-external-traffic-policy \(lab, iptables\): run 20261206T144026Z-8bcb7d into .*snapshots\.lab$/m);
    assert.match(merged.stderr, /^claims: all \d+ hold$/m);
    assert.match(
      merged.stderr,
      /^what changed: .*\n {2}compared run 20261206T144026Z-8bcb7d with run \S+, the committed snapshots it replaced .*snapshots\.lab$/m,
    );
    assert.match(merged.stderr, /^capture:merge: 1 run\(s\) of 1 article\(s\) merged in [\d.]+ s$/m);
    const report = readFileSync(join(tmp, 'report.md'), 'utf8');
    // The heading is the run's verdict, as its report's headline says it: the pull request is titled with it.
    const said = /^what changed: (no change in behaviour|the environment changed|the behaviour changed)/m.exec(merged.stderr)![1]!.replace(/^the /, '');
    assert.equal(report.split('\n')[0], `# Capture: ${said}`);
    assert.match(report, /^## 074-external-traffic-policy \\\(lab, iptables\\\): run 20261206T144026Z-8bcb7d$/m);
    assert.match(report, /^```text\nclaims: all \d+ hold\nwhat changed: /m);
    const names = readdirSync(labDir);
    assert.deepEqual(
      names.filter((n) => n.startsWith('.')),
      [],
      'no staging, previous or lock left beside the targets',
    );
    assert.deepEqual(readdirSync(join(tmp, 'registry')), [], 'no record left');
    assert.ok(existsSync(join(runs, `${S074}.lab`, 'run.yaml')), 'the artifact is read, never moved');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

/** The lab fixture as an --out folder of its own, and a copy of the project to swap it into. */
function labScene(tmp: string) {
  const project = projectCopy(root, tmp);
  const runs = outFolder(tmp, 'run-074-lab-iptables', { [`${S074}.lab`]: SAMPLE });
  const target = join(project, 'content/articles', S074, 'snapshots.lab');
  return { project, runs, target, step: (name: string) => join(runs, `${S074}.lab`, name) };
}

test('what is swapped in is what was judged: an input changed after its judgement is judged again on the staged copy and refused', async () => {
  const tmp = scratch();
  const cwd = process.cwd();
  try {
    const { project, runs, target, step } = labScene(tmp);
    process.chdir(project);
    process.env.SHICE_RUN_REGISTRY = join(tmp, 'registry');
    const before = treeDigest(join(project, 'content'));
    const cases: Array<[string, () => void, number, RegExp]> = [
      [
        'a step whose output breaks a claim',
        () =>
          writeFileSync(
            step('cluster-via-worker.yaml'),
            readFileSync(step('cluster-via-worker.yaml'), 'utf8').replace('client=10.245.2.1', 'client=172.20.0.3'),
          ),
        3,
        /on the copy beside the target \d+ claim\(s\) no longer hold: .*cluster-hides-client/,
      ],
      [
        'a run.yaml that names the other variant',
        // The mode the run names, not the step ids that carry the word (iptables-worker2).
        () => writeFileSync(step('run.yaml'), readFileSync(step('run.yaml'), 'utf8').replaceAll('kubeProxyMode: iptables', 'kubeProxyMode: nftables')),
        2,
        /the run of snapshots\.lab\.nftables, not of .*snapshots\.lab$/,
      ],
      [
        'a run.yaml that names the kind driver',
        () => writeFileSync(step('run.yaml'), readFileSync(step('run.yaml'), 'utf8').replace('driver: lab', 'driver: kind')),
        1,
        /field "argv": expected a command entered by docker exec/,
      ],
    ];
    for (const [what, change, code, expected] of cases) {
      cpSync(SAMPLE, join(runs, `${S074}.lab`), { recursive: true });
      const ready = await prepareMerge({ root: project, dirs: [runs], variants: ['iptables'], acceptBrokenClaims: false });
      assert.ok('groups' in ready, `${what}: the input is judged sound first`);
      change();
      await assert.rejects(
        swapInRuns(ready.groups, { signal: new AbortController().signal, say: () => {}, acceptBrokenClaims: false }),
        (error: SwapError) => error instanceof SwapError && error.code === code && expected.test(error.message) && !error.message.includes('\n'),
        what,
      );
      assert.deepEqual(treeDigest(join(project, 'content')), before, `${what}: every target as it was, nothing beside it`);
      assert.ok(treeDigest(target));
    }
  } finally {
    process.chdir(cwd);
    delete process.env.SHICE_RUN_REGISTRY;
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a run is what its commands and versions say, whatever run.yaml names: a kind run relabelled as the lab is refused, as is a lab run relabelled as kind', async () => {
  const tmp = scratch();
  try {
    const relabel = (from: string, folder: string, driver: [string, string]) => {
      const out = outFolder(tmp, `relabelled-${folder}`, { [folder]: from });
      const yaml = join(out, folder, 'run.yaml');
      // A new run id too: the run is then refused for what it holds, not for sharing a committed run's id.
      const text = readFileSync(yaml, 'utf8').replace(`driver: ${driver[0]}`, `driver: ${driver[1]}`);
      writeFileSync(yaml, text.replace(/^runId: (\S+)-\w{6}$/m, 'runId: $1-fa1ce0'));
      return out;
    };
    const asLab = await prepareMerge({
      root,
      dirs: [
        relabel(committed(S074, 'snapshots'), `${S074}.lab`, ['kind', 'lab']),
        relabel(committed(S074, 'snapshots.nftables'), `${S074}.lab.nftables`, ['kind', 'lab']),
      ],
      variants: [],
      acceptBrokenClaims: false,
    });
    assert.ok('code' in asLab && asLab.code === 1, JSON.stringify(asLab));
    const text = asLab.lines.join('\n');
    assert.match(text, /run\.yaml: field "versions\.kube-apiserver": missing; run\.yaml names driver "lab"/);
    assert.match(text, /run\.yaml: field "versions\.kind": recorded only by the kind driver; run\.yaml names driver "lab"/);
    assert.match(
      text,
      /cluster-via-worker\.yaml: field "argv": expected a command entered by ip netns exec shice-lab-\S+\.node\.control-plane .*got "docker exec kx-main-control-plane curl"/,
    );
    const asKind = await prepareMerge({ root, dirs: [relabel(SAMPLE, S074, ['lab', 'kind'])], variants: ['iptables'], acceptBrokenClaims: false });
    assert.ok('code' in asKind && asKind.code === 1, JSON.stringify(asKind));
    assert.match(asKind.lines.join('\n'), /field "argv": expected a command entered by docker exec kx-main-\S+/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a YAML alias in a snapshot is refused: it would expand past the size limits, which count the file', async () => {
  const tmp = scratch();
  try {
    const out = outFolder(tmp, 'aliases', { [`${S074}.lab`]: SAMPLE });
    const file = join(out, `${S074}.lab`, 'cluster-via-worker.yaml');
    const text = readFileSync(file, 'utf8').replace(/^title: .*$/m, `title: &big ${'x'.repeat(1000)}`);
    writeFileSync(file, text.replace(/^argv:\n/m, `argv:\n${'  - *big\n'.repeat(300)}`));
    const result = await prepareMerge({ root, dirs: [out], variants: ['iptables'], acceptBrokenClaims: false });
    assert.ok('code' in result && result.code === 1, JSON.stringify(result).slice(0, 400));
    assert.match(result.lines.join('\n'), /cluster-via-worker\.yaml:\d+:\d+: a YAML alias \(\*name\); expected none, as the capture writes them/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a run id already committed for another run is refused: each committed run's values are bound by its id", async () => {
  const tmp = scratch();
  try {
    const labId = /^runId: (\S+)$/m.exec(readFileSync(join(committed(S074, 'snapshots.lab.nftables'), 'run.yaml'), 'utf8'))![1]!;
    const out = outFolder(tmp, 'same-id', { [`${S074}.lab`]: SAMPLE });
    const yaml = join(out, `${S074}.lab`, 'run.yaml');
    const text = readFileSync(yaml, 'utf8');
    writeFileSync(yaml, text.replace(/^runId: \S+$/m, `runId: ${labId}`));
    const { found, problems } = findRuns([out]);
    assert.deepEqual(problems, []);
    const result = planMerge(found, articles, ['iptables']);
    assert.ok('problems' in result);
    assert.match(
      result.problems[0]!,
      new RegExp(
        `run id ${labId} is also the run id of the committed run in content/articles/${S074}/snapshots\\.lab\\.nftables; expected every run to have its own id`,
      ),
    );
    // The run already committed in its own folder may come again: it is the same capture.
    assert.ok('groups' in plan([outFolder(tmp, 'again', { [`${S074}.lab.nftables`]: committed(S074, 'snapshots.lab.nftables') })], ['nftables']));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("an older Kubernetes version's runs merge into that version's folders, beside the headline's, which stay byte for byte", () => {
  const tmp = scratch();
  try {
    const project = projectCopy(root, tmp);
    const article = join(project, 'content/articles', S075);
    const headline = treeDigest(join(article, 'snapshots'));
    // The committed v1.34 runs, taken out of the copy and given back as a capture with --out wrote them.
    const runs = outFolder(tmp, 'runs', {
      [`${S075}.v1.34`]: committed(S075, 'snapshots.v1.34'),
      [`${S075}.v1.34.lab`]: committed(S075, 'snapshots.v1.34.lab'),
    });
    rmSync(join(article, 'snapshots.v1.34'), { recursive: true });
    rmSync(join(article, 'snapshots.v1.34.lab'), { recursive: true });
    const merged = merge(project, tmp, [runs]);
    assert.equal(merged.status, 0, merged.stderr);
    assert.match(merged.stderr, /merged 075-local-uneven-weights \(kind\): run \S+ into content\/articles\/075-local-uneven-weights\/snapshots\.v1\.34$/m);
    assert.match(merged.stderr, /merged 075-local-uneven-weights \(lab\): run \S+ into content\/articles\/075-local-uneven-weights\/snapshots\.v1\.34\.lab$/m);
    assert.deepEqual(treeDigest(join(article, 'snapshots.v1.34')), treeDigest(committed(S075, 'snapshots.v1.34')));
    assert.deepEqual(treeDigest(join(article, 'snapshots')), headline);
    assert.deepEqual(
      readdirSync(article).filter((n) => n.startsWith('.')),
      [],
      'nothing left beside the targets',
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a run is the release all its records name: a v1.34 lab run relabelled v1.37.2 is refused by the merge and by the loader, one line naming the file and the field', async () => {
  const tmp = scratch();
  try {
    // Only versions.kubernetes changed (and a new run id): the API server's claim, not what the components said.
    const out = outFolder(tmp, 'relabelled-version', { [`${S075}.lab`]: committed(S075, 'snapshots.v1.34.lab') });
    const yaml = join(out, `${S075}.lab`, 'run.yaml');
    const text = readFileSync(yaml, 'utf8').replace(/^ {2}kubernetes: v1\.34\.4$/m, '  kubernetes: v1.37.2');
    assert.match(text, /^ {2}kubernetes: v1\.37\.2$/m);
    writeFileSync(yaml, text.replace(/^runId: (\S+)-\w{6}$/m, 'runId: $1-fa1ce1'));
    const result = await prepareMerge({ root, dirs: [out], variants: [], acceptBrokenClaims: false });
    assert.ok('code' in result && result.code === 2, JSON.stringify(result).slice(0, 400));
    assert.equal(result.lines.length, 1);
    assert.match(
      result.lines[0]!,
      /relabelled-version\/075-local-uneven-weights\.lab\/run\.yaml: field "versions\.kube-apiserver": names Kubernetes v1\.34\.4, but field "versions\.kubernetes" claims "v1\.37\.2"; expected every record of the run to name the release it claims/,
    );
    // The loader every reader goes through (the build, --compare, the staged copy) refuses it too, naming each record.
    assert.throws(
      () => loadSnapshots(join(out, `${S075}.lab`)),
      (error: EvidenceError) =>
        error instanceof EvidenceError &&
        ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kube-proxy', 'kubectl'].every((key) =>
          error.problems.some((p) => p.includes(`run.yaml: field "versions.${key}": names Kubernetes v1.34.4`)),
        ) &&
        error.problems.some((p) => /field "environment\.summary\.en": names Kubernetes v1\.34\.4/.test(p)),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a merged stream is held to the capture's limit: 7 MiB of stderr with no cut is refused in one line naming the file and the field", async () => {
  const tmp = scratch();
  try {
    const out = outFolder(tmp, 'long-stream', { [`${S074}.lab`]: SAMPLE });
    const file = join(out, `${S074}.lab`, 'cluster-via-worker.yaml');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^stderr: .*$/m);
    writeFileSync(file, text.replace(/^stderr: .*$/m, `stderr: ${'x'.repeat(7 * 1024 * 1024)}`));
    const result = await prepareMerge({ root, dirs: [out], variants: ['iptables'], acceptBrokenClaims: false });
    assert.ok('code' in result, 'refused');
    const line = result.lines.find((l) => l.includes('cluster-via-worker.yaml'));
    assert.ok(line, result.lines.join('\n').slice(0, 400));
    assert.match(
      line,
      /cluster-via-worker\.yaml: field "stderr": expected at most 1048576 bytes \(1 MiB\), as a capture keeps a stream: a longer one keeps its start and its whole size and SHA-256 in stderrCut, got "7340032 bytes"/,
    );
    assert.ok(line.length < 1000 && !line.includes('\n'));
    // As the capture cuts it (its start, the whole size and SHA-256), the same run merges.
    writeFileSync(
      file,
      text.replace(/^stderr: .*$/m, `stderr: ${'x'.repeat(1024 * 1024)}\nstderrCut:\n  bytes: ${7 * 1024 * 1024}\n  sha256: '${'0'.repeat(64)}'`),
    );
    const cut = await prepareMerge({ root, dirs: [out], variants: ['iptables'], acceptBrokenClaims: false });
    assert.ok('groups' in cut, JSON.stringify(cut).slice(0, 400));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a foreign file dropped into the second target while the staged copies are judged: no target is swapped, and the message says so', async () => {
  const tmp = scratch();
  const cwd = process.cwd();
  try {
    const project = projectCopy(root, tmp);
    const runs = outFolder(tmp, 'run-074-lab', { [`${S074}.lab`]: SAMPLE, [`${S074}.lab.nftables`]: committed(S074, 'snapshots.lab.nftables') });
    process.chdir(project);
    process.env.SHICE_RUN_REGISTRY = join(tmp, 'registry');
    const article = join(project, 'content/articles', S074);
    const before = treeDigest(join(project, 'content'));
    const ready = await prepareMerge({ root: project, dirs: [runs], variants: [], acceptBrokenClaims: false });
    assert.ok('groups' in ready, JSON.stringify(ready).slice(0, 400));
    assert.deepEqual(
      ready.groups.flatMap((g) => g.runs.map((r) => r.target)),
      [join(article, 'snapshots.lab'), join(article, 'snapshots.lab.nftables')],
    );
    const foreign = join(article, 'snapshots.lab.nftables', 'notes.txt');
    await assert.rejects(
      swapInRuns(ready.groups, {
        signal: new AbortController().signal,
        say: () => {},
        acceptBrokenClaims: false,
        beforeSwap: () => writeFileSync(foreign, 'mine\n'),
      }),
      (error: SwapError) => {
        assert.ok(error instanceof SwapError && error.settled, String(error));
        assert.match(
          error.message,
          /^refusing to swap in: content\/articles\/074-external-traffic-policy\/snapshots\.lab\.nftables no longer holds only a snapshot folder of this article; nothing was swapped in, all 2 target\(s\) as they were$/,
        );
        return true;
      },
    );
    rmSync(foreign);
    assert.deepEqual(treeDigest(join(project, 'content')), before, 'every target as it was, nothing beside it');
    assert.deepEqual(readdirSync(join(tmp, 'registry')), [], 'no record left');
  } finally {
    process.chdir(cwd);
    delete process.env.SHICE_RUN_REGISTRY;
    rmSync(tmp, { recursive: true, force: true });
  }
});
