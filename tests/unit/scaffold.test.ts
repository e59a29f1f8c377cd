// `npm run new`: the files of a new article, and what a build makes of an
// article that was never captured (a draft shows "not yet measured", a normal
// build refuses it with one line).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { load } from 'js-yaml';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { scaffoldFiles, slugProblem } from '../../src/authoring/scaffold.ts';
import { buildArticleEvidence } from '../../src/evidence/runs/build.ts';
import { checkArticleSources } from '../../src/article/check/check-article.ts';
import { checkChineseMdx } from '../../src/article/check/zh-copy.ts';
import { NOT_YET_MEASURED, PLACEHOLDER } from '../../src/evidence/runs/unmeasured.ts';
import { loadArticle } from '../../src/authoring/load.ts';
import { declareInScaffold } from '../support/scaffold-edit.ts';
import { evidenceFromDisk } from '../../src/evidence/runs/from-disk.ts';
import { claimMatrix, measuredRuns } from '../../src/evidence/runs/environments.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('slugs: the series number, then lowercase words; anything else is one line saying what is expected', () => {
  assert.equal(slugProblem('076-session-affinity'), null);
  assert.match(slugProblem(undefined)!, /^usage: npm run new -- <slug>/);
  assert.match(slugProblem('Session Affinity')!, /^slug "Session Affinity": expected the three-digit series number/);
  assert.match(slugProblem('76-x')!, /expected the three-digit series number/);
});

test('the scaffold: every file an article needs, commented, series number from the slug, prose that passes the Chinese copy check', () => {
  const files = scaffoldFiles('076-session-affinity', '2026-12-03');
  assert.deepEqual(files.map((f) => f.path).sort(), ['article.ts', 'en.mdx', 'evidence.en.mdx', 'evidence.zh.mdx', 'manifests/app.yaml', 'zh.mdx']);
  for (const f of files.filter((f) => f.path.endsWith('.ts'))) assert.match(f.content, /^\/\/ /, `${f.path} starts by saying what it is for`);
  const zh = files.find((f) => f.path === 'zh.mdx')!.content;
  assert.match(zh, /number: 76\n/);
  assert.match(zh, /date: 2026-12-03\n/);
  assert.deepEqual(checkChineseMdx('zh.mdx', zh), []);
});

test('a never-captured article: a draft binds placeholders (declared values stay real), a normal build is refused in one line', async () => {
  const slug = '099-scaffold-unit';
  const dir = join(root, 'content/articles', slug);
  try {
    const made = spawnSync(process.execPath, [join(root, 'scripts/new-article.ts'), slug], { cwd: root, encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const again = spawnSync(process.execPath, [join(root, 'scripts/new-article.ts'), slug], { cwd: root, encoding: 'utf8' });
    assert.equal(again.status, 2);
    assert.equal(again.stderr, `new: content/articles/${slug} exists already; choose another slug\n`);
    // Read by the one loader, as the build and the capture read it.
    const article = await loadArticle(root, slug);
    assert.equal(article.file, `content/articles/${slug}/article.ts`);
    assert.deepEqual(article.experiment.environments, ['kind', 'lab']);
    const input = {
      slug,
      snapshotsDir: join(dir, 'snapshots'),
      factDefs: article.factDefs,
      lines: article.lines,
      linesFile: article.file,
      claimDefs: article.claimDefs,
      claimsFile: article.file,
      experiment: article.experiment,
    };
    assert.throws(
      () => buildArticleEvidence(input),
      new RegExp(
        `^EvidenceError: content/articles/${slug}/snapshots: not yet measured \\(no snapshots of ${slug}\\): capture it with \`npm run capture -- ${slug}\`, or preview it with \`npm run build:draft\`$`,
      ),
    );
    const draft = buildArticleEvidence({ ...input, draft: true });
    assert.equal(draft.unmeasured, true);
    assert.equal(draft.snapshots.run.runId, NOT_YET_MEASURED);
    assert.deepEqual(draft.facts.get('request.answer'), { id: 'request.answer', step: 'request', value: PLACEHOLDER, unmeasured: true });
    assert.equal(draft.facts.get('declared.app.replicas')!.value, '2', 'a declared value needs no run');
    // The run facts of what the experiment declares (its nodes, the manifests' Services) are placeholders too.
    assert.equal(draft.facts.get('node.worker.ip')!.unmeasured, true);
    assert.equal(draft.facts.get('service.app.nodePort')!.unmeasured, true);
    const sources = (['zh', 'en'] as const).map((lang) => ({ lang, file: `${lang}.mdx`, source: readFileSync(join(dir, `${lang}.mdx`), 'utf8') }));
    assert.deepEqual(
      checkArticleSources(sources, { factIds: draft.facts.keys(), stepIds: draft.snapshots.run.steps, claimIds: draft.claims.map((c) => c.id) }),
      [],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a never-captured article that declares variants, environments and versions previews as a draft, its headline run in placeholders', async () => {
  const slug = '099-scaffold-variants';
  const dir = join(root, 'content/articles', slug);
  try {
    const made = spawnSync(process.execPath, [join(root, 'scripts/new-article.ts'), slug], { cwd: root, encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    // What an author adds next: the modes and the releases the article is about.
    declareInScaffold(join(dir, 'article.ts'), ["kubernetes: ['v1.37', 'v1.36']", "variants: { axis: 'kubeProxyMode', values: ['iptables', 'nftables'] }"]);
    const article = await loadArticle(root, slug);
    assert.throws(() => evidenceFromDisk(slug, join(dir, 'snapshots'), article), /snapshots: not yet measured \(no snapshots of 099-scaffold-variants\)/);
    const draft = evidenceFromDisk(slug, join(dir, 'snapshots'), article, { variants: true, draft: true });
    assert.equal(draft.unmeasured, true);
    assert.equal(draft.snapshots.run.runId, NOT_YET_MEASURED);
    assert.equal(draft.facts.get('request.answer')!.value, PLACEHOLDER);
    assert.equal(draft.facts.get('declared.app.replicas')!.value, '2', 'a declared value needs no run');
    // The default variant in placeholders, the other mode, the lab and the older release named as not measured.
    assert.deepEqual([draft.variantRuns?.measured, draft.variantRuns?.notMeasured], [['iptables'], ['nftables']]);
    assert.deepEqual(draft.environmentRuns?.notMeasured, ['lab']);
    assert.deepEqual(draft.versionRuns?.notMeasured, ['v1.36']);
    assert.deepEqual(measuredRuns(draft), [], 'placeholders are no run: no column, no record');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a draft whose lab ran before its headline: the lab runs are its runs (columns, records), the headline placeholders are none', async () => {
  const slug = '074-external-traffic-policy';
  const article = await loadArticle(root, slug);
  const tmp = mkdtempSync(join(tmpdir(), 'shice-draft-lab-'));
  try {
    // 074's committed lab runs of the headline release, with nothing measured on kind yet.
    for (const folder of ['snapshots.lab', 'snapshots.lab.nftables'])
      cpSync(join(root, 'content/articles', slug, folder), join(tmp, folder), { recursive: true });
    assert.throws(() => evidenceFromDisk(slug, join(tmp, 'snapshots'), article), /snapshots: not yet measured/);
    const draft = evidenceFromDisk(slug, join(tmp, 'snapshots'), article, { variants: true, draft: true });
    assert.equal(draft.unmeasured, true, 'the headline (kind) is still to come');
    assert.equal(draft.snapshots.run.driver, 'kind', 'its placeholder run stands for the environment it waits for');
    assert.equal(draft.snapshots.run.cluster.kubeProxyMode, 'iptables');
    const runs = measuredRuns(draft);
    assert.deepEqual(
      runs.map((r) => [r.environment, r.variant, r.runId]),
      ['snapshots.lab', 'snapshots.lab.nftables'].map((folder, i) => [
        'lab',
        ['iptables', 'nftables'][i],
        (load(readFileSync(join(tmp, folder, 'run.yaml'), 'utf8')) as { runId: string }).runId,
      ]),
    );
    const matrix = claimMatrix(draft);
    assert.deepEqual(
      matrix.columns.map((c) => c.environment),
      ['lab', 'lab'],
      'no column for a run that has not happened',
    );
    assert.ok(
      matrix.rows.every((row) => row.cells.every((cell) => cell.status !== 'broken')),
      "the lab's claims hold; no placeholder breaks one",
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a draft whose headline ran and whose lab has not: the lab binds placeholders and is no run; a normal build keeps it out', async () => {
  const slug = '077-session-affinity';
  const article = await loadArticle(root, slug);
  const tmp = mkdtempSync(join(tmpdir(), 'shice-draft-no-lab-'));
  try {
    // 077's committed kind runs of the headline release, the lab not captured yet.
    for (const folder of ['snapshots', 'snapshots.nftables']) cpSync(join(root, 'content/articles', slug, folder), join(tmp, folder), { recursive: true });
    const built = evidenceFromDisk(slug, join(tmp, 'snapshots'), article);
    assert.deepEqual([built.environmentRuns?.measured, built.environmentRuns?.notMeasured], [['kind'], ['lab']]);
    assert.equal(built.environmentRuns?.runs.has('lab'), false, 'a normal build has no lab evidence to bind');
    const draft = evidenceFromDisk(slug, join(tmp, 'snapshots'), article, { variants: true, draft: true });
    assert.deepEqual([draft.environmentRuns?.measured, draft.environmentRuns?.notMeasured], [['kind'], ['lab']]);
    const lab = draft.environmentRuns!.runs.get('lab')!;
    assert.equal(lab.unmeasured, true);
    assert.equal(lab.facts.get('sticky.who')!.value, PLACEHOLDER, "the evidence page's lab values preview as not yet measured");
    assert.deepEqual(
      measuredRuns(draft).map((r) => r.environment),
      ['kind', 'kind'],
      'only the two kind runs are runs: the lab gets no column and no record',
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
