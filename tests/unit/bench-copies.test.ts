import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  copyRunFolder,
  copyRunId,
  copySlug,
  pointArticleLinksAt,
  readRunId,
  renameExperimentSlug,
  renameRunSlug,
  renumberSeries,
} from '../../bench/site/copies.ts';
import { ARTICLES_DIR, isArticleMdx, isSnapshotFolder, writeEvidenceCopies } from '../../bench/site/temp-project.ts';
import { checkArticles } from '../../src/article/check/integration.ts';
import { loadSnapshots, parseYaml } from '../../src/evidence/load.ts';
import { originProblems } from '../../src/evidence/run-origin.ts';
import { labNodeNamespace } from '../../src/experiment/drivers.ts';
import { articleFrontmatterSchema, evidenceFrontmatterSchema } from '../../src/i18n/frontmatter.ts';
import { slugProblem } from '../../src/i18n/urls.ts';

const ZH = `---
title: externalTrafficPolicy:保住客户端地址,还是多绕一跳
date: 2026-12-02
lang: zh
series:
  name: Kubernetes
  number: 74
---

正文里的 number: 74 不是 frontmatter。
`;

test('copy slugs are valid site slugs, numbered and sortable', () => {
  assert.equal(copySlug('074-external-traffic-policy', 7), '074-external-traffic-policy-b0007');
  assert.equal(slugProblem(copySlug('074-external-traffic-policy', 200)), null);
  assert.throws(() => copySlug('x', 0), /copySlug: expected an index >= 1, got 0/);
});

test('the series number changes in the frontmatter only', () => {
  const out = renumberSeries(ZH, 'zh.mdx', 12);
  assert.match(out, /^series:\n {2}name: Kubernetes\n {2}number: 12$/m);
  assert.match(out, /正文里的 number: 74 不是 frontmatter。/);
  assert.equal(out.replace('number: 12', 'number: 74'), ZH);
});

test('a frontmatter without series.number is an error naming the file and the field', () => {
  assert.throws(() => renumberSeries('no frontmatter', 'a/zh.mdx', 1), /a\/zh\.mdx: expected a frontmatter block/);
  assert.throws(
    () => renumberSeries('---\ntitle: x\nnumber: 3\n---\n', 'a/en.mdx', 1),
    /a\/en\.mdx: frontmatter field "series\.number": expected a line " {2}number: <n>" under "series:"/,
  );
});

test("article.ts's experiment and run.yaml get the copy's slug", () => {
  const experiment = "const experiment: Experiment = {\n  slug: '074-external-traffic-policy',\n  cluster: threeNodeCluster(),\n";
  assert.match(renameExperimentSlug(experiment, 'article.ts', '074-external-traffic-policy', 'x-b0001'), /slug: 'x-b0001',/);
  assert.throws(() => renameExperimentSlug(experiment, 'article.ts', 'other', 'x'), /article\.ts: field "slug": expected exactly one slug: 'other', found 0/);
  // The article's own definition names its slug once: its experiment's.
  const article = readFileSync(new URL('../../content/articles/074-external-traffic-policy/article.ts', import.meta.url), 'utf8');
  assert.match(renameExperimentSlug(article, 'article.ts', '074-external-traffic-policy', 'x-b0001'), /slug: 'x-b0001',/);
  const run = 'schema: 1\nslug: 074-external-traffic-policy\nrunId: 20261202T114747Z-152be1\n';
  assert.equal(renameRunSlug(run, 'run.yaml', '074-external-traffic-policy', 'x-b0001'), 'schema: 1\nslug: x-b0001\nrunId: 20261202T114747Z-152be1\n');
  assert.throws(
    () => renameRunSlug('schema: 1\n', 'snapshots/run.yaml', 'a', 'b'),
    /snapshots\/run\.yaml: field "slug": expected exactly one top-level "slug: a" line, found 0/,
  );
});

test('a copy of a run has its own id, made from the original, in the form the schema takes', () => {
  assert.equal(copyRunId('20261204T185005Z-aec012', 7), '20261204T185005Z-aec012-b0007');
  assert.match(copyRunId('20261204T185005Z-aec012', 200), /^[0-9A-Za-z-]+$/);
  assert.throws(() => copyRunId('x', 0), /copyRunId: expected an index >= 1, got 0/);
  assert.equal(readRunId('schema: 1\nrunId: 20261204T185005Z-aec012\n', 'run.yaml'), '20261204T185005Z-aec012');
  assert.equal(readRunId("runId: 'r-1'\n", 'run.yaml'), 'r-1');
  assert.throws(
    () => readRunId('schema: 1\n  runId: nested\n', 'a/run.yaml'),
    /a\/run\.yaml: field "runId": expected exactly one top-level "runId: <id>" line, found 0/,
  );
});

const REAL = fileURLToPath(new URL('../../content/articles', import.meta.url));
const realFolder = (slug: string, folder: string) =>
  new Map(
    readdirSync(join(REAL, slug, folder))
      .filter((name) => name.endsWith('.yaml'))
      .map((name) => [name, readFileSync(join(REAL, slug, folder, name), 'utf8')]),
  );

test("a lab run's copy names its nodes' namespaces after the copy's run id, in every step's argv, as the build checks", () => {
  const slug = '074-external-traffic-policy';
  const files = realFolder(slug, 'snapshots.lab');
  const original = readRunId(files.get('run.yaml')!, 'run.yaml');
  const copy = copyRunFolder(files, { folder: 'x/snapshots.lab', fromSlug: slug, toSlug: copySlug(slug, 3), index: 3 });
  assert.equal(copy.runId, `${original}-b0003`);
  assert.equal(readRunId(copy.files.get('run.yaml')!, 'run.yaml'), copy.runId);
  assert.match(copy.files.get('run.yaml')!, new RegExp(`^slug: ${copySlug(slug, 3)}$`, 'm'));
  let namespaces = 0;
  for (const [name, text] of copy.files) {
    if (name === 'run.yaml') continue;
    // The original id is gone from every step; the lines that held it differ in it alone.
    assert.doesNotMatch(text, new RegExp(`${original}(?!-b0003)`), name);
    assert.equal(text.replaceAll(copy.runId, original), files.get(name), name);
    const step = parseYaml(text, name) as { node: string; argv: string[] };
    if (step.argv[0] === 'ip') {
      assert.equal(step.argv[3], labNodeNamespace(copy.runId, step.node === 'host' ? 'control-plane' : step.node), name);
      namespaces++;
    }
  }
  assert.equal(namespaces, files.size - 1, 'every lab step enters its node by its namespace');
  assert.throws(
    () => copyRunFolder(new Map([['a.yaml', '']]), { folder: 'x/snapshots', fromSlug: slug, toSlug: 'y', index: 1 }),
    /x\/snapshots\/run\.yaml: file not found/,
  );
});

test('cross-references point at the copy itself; the text and every other tag stay', () => {
  const mdx = 'See <ArticleLink slug="075-local-uneven-weights">the next one</ArticleLink> and `<ArticleLink slug="x">`.\n\n<Fact id="a" />\n';
  assert.equal(
    pointArticleLinksAt(mdx, 'zh.mdx', '074-x-b0002'),
    'See <ArticleLink slug="074-x-b0002">the next one</ArticleLink> and `<ArticleLink slug="x">`.\n\n<Fact id="a" />\n',
  );
  assert.throws(
    () => pointArticleLinksAt('\n<ArticleLink slug={s}>x</ArticleLink>', 'a.mdx', 'y'),
    /a\.mdx:2:1: <ArticleLink>: expected a slug="\.\.\." attribute/,
  );
});

// The copies a generated site is made of, of every real article folder, as the build's own
// check at its start sees them (the same function the build runs): pages, evidence pages,
// definitions, runs and their ids. A copy the build would refuse fails here, not in the bench.
const project = fileURLToPath(new URL('../..', import.meta.url));
const slugs = readdirSync(REAL).filter((slug) => existsSync(join(REAL, slug, 'article.ts')));

test('the real articles are what the copies below are tried on: several, with evidence pages and lab runs', () => {
  assert.ok(slugs.length >= 2);
  assert.ok(slugs.some((slug) => existsSync(join(REAL, slug, 'evidence.zh.mdx'))));
  assert.ok(slugs.some((slug) => existsSync(join(REAL, slug, 'snapshots.lab/run.yaml'))));
});

for (const slug of slugs) {
  test(`copies of ${slug} pass the checks the build runs, with frontmatter, series numbers and run ids of their own`, async () => {
    const root = mkdtempSync(join(tmpdir(), 'shice-bench-copies-'));
    try {
      // The copies' article.ts import the project's src/ by a relative path, as in a project copy.
      symlinkSync(join(project, 'src'), join(root, 'src'));
      await writeEvidenceCopies(project, root, slug, 3);
      // The build runs in the project it builds: declared values are read from the manifests under its cwd.
      const cwd = process.cwd();
      process.chdir(root);
      try {
        const { problems } = await checkArticles(root, {});
        assert.deepEqual(problems, []);
      } finally {
        process.chdir(cwd);
      }

      const series = new Map<string, string>();
      const runIds = new Map<string, string>();
      for (const folder of readdirSync(join(root, ARTICLES_DIR))) {
        const dir = join(root, ARTICLES_DIR, folder);
        for (const name of readdirSync(dir)) {
          const file = `${folder}/${name}`;
          if (name.endsWith('.mdx')) {
            const front = parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(readFileSync(join(dir, name), 'utf8'))![1]!, file);
            if (isArticleMdx(name)) {
              const data = articleFrontmatterSchema.parse(front);
              const key = `${data.lang} ${data.series.name} ${data.series.number}`;
              assert.equal(series.get(key), undefined, `${file}: series number of ${series.get(key)}`);
              series.set(key, file);
            } else evidenceFrontmatterSchema.parse(front);
          }
          if (isSnapshotFolder(name)) {
            const { run, steps, files } = loadSnapshots(join(dir, name), { slug: folder });
            assert.deepEqual(originProblems(run, steps, files), []);
            assert.equal(runIds.get(run.runId), undefined, `${file}: run id of ${runIds.get(run.runId)}`);
            runIds.set(run.runId, file);
          }
        }
      }
      const langs = readdirSync(join(REAL, slug)).filter(isArticleMdx).length;
      const runs = readdirSync(join(REAL, slug)).filter(isSnapshotFolder).length;
      assert.equal(series.size, 3 * langs);
      assert.equal(runIds.size, 3 * runs);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}
