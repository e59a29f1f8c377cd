// The runs a CI matrix captures (matrix.ts), listed from two real experiments (074 with
// its modes, 075 without), so that a new article changes none of it; the command as
// capture.yml calls it; the Markdown report a merge writes for a pull request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../src/capture/session/cli-args.ts';
import { captureMatrix, parseMatrixArgs } from '../../src/capture/session/matrix.ts';
import { reportMarkdown } from '../../src/capture/merge/report-markdown.ts';
import { listArticleSlugs, loadArticle } from '../../src/authoring/load.ts';
import { article074, article075 } from '../support/articles.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const articles = [article074, article075].map((a) => ({ slug: a.slug, experiment: a.experiment }));
const all = { slugs: [], variants: [], versions: [], environment: 'kind' as const };
/** The headline version's jobs only: what the variant and environment tests are about. */
const headline = { ...all, versions: ['v1.37'] };

test('every article × variant in kind, each with an artifact name of its own', () => {
  const runs = captureMatrix(articles, headline);
  assert.deepEqual(
    runs.map((r) => r.artifact),
    [
      '074-external-traffic-policy-kind-iptables',
      '074-external-traffic-policy-kind-nftables',
      '074-external-traffic-policy-kind-ipvs',
      '075-local-uneven-weights-kind',
    ],
  );
  assert.equal(runs.at(-1)!.variant, null, 'an article without variants is one run');
  assert.equal(new Set(runs.map((r) => r.artifact)).size, runs.length);
});

test('articles and variants narrow the matrix; a name that selects nothing is one line', () => {
  assert.deepEqual(
    captureMatrix(articles, { ...headline, variants: ['nftables'] }).map((r) => r.artifact),
    ['074-external-traffic-policy-kind-nftables'],
  );
  assert.deepEqual(
    captureMatrix(articles, { ...all, slugs: ['075-local-uneven-weights'] }).map((r) => r.artifact),
    ['075-local-uneven-weights-kind', '075-local-uneven-weights-kind-v1.36', '075-local-uneven-weights-kind-v1.35', '075-local-uneven-weights-kind-v1.34'],
  );
  assert.deepEqual(
    captureMatrix(articles, { ...headline, environment: 'lab' }).map((r) => r.artifact),
    [
      '074-external-traffic-policy-lab-iptables',
      '074-external-traffic-policy-lab-nftables',
      '074-external-traffic-policy-lab-ipvs',
      '075-local-uneven-weights-lab',
    ],
  );
  for (const [select, message] of [
    [{ ...all, variants: ['userspace'] }, /--variant userspace: no article selected has such a variant; they have iptables, nftables, ipvs/],
    [{ ...all, slugs: ['nope'] }, /unknown article "nope"/],
    [{ ...all, slugs: ['075-local-uneven-weights'], variants: ['nftables'] }, /--variant nftables: no article selected has such a variant; they have none/],
  ] as const) {
    assert.throws(
      () => captureMatrix(articles, select),
      (e: Error) => e instanceof UsageError && message.test(e.message),
    );
  }
});

test("a workflow's inputs: names separated by spaces or commas, an empty input is none", () => {
  assert.deepEqual(parseMatrixArgs(['', '--variant', '']), { slugs: [], variants: [], versions: [], environment: 'kind', help: false });
  assert.deepEqual(parseMatrixArgs(['074-a 075-b', '--variant', 'iptables, nftables', '--k8s', 'v1.36 v1.34', '--driver', 'lab']), {
    slugs: ['074-a', '075-b'],
    variants: ['iptables', 'nftables'],
    versions: ['v1.36', 'v1.34'],
    environment: 'lab',
    help: false,
  });
  assert.throws(() => parseMatrixArgs(['--k8s', 'v1.20']), /^UsageError: --k8s: expected one of v1\.37, v1\.36, v1\.35, v1\.34, got "v1\.20"$/);
  assert.throws(() => parseMatrixArgs(['--driver', 'docker']), /--driver must be kind or lab, got "docker"/);
});

test('the command as capture.yml calls it prints one line of JSON with the matrix', async () => {
  const run = spawnSync(process.execPath, [join(root, 'scripts/capture-matrix.ts'), '', '--variant', ''], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trimEnd().split('\n').length, 1);
  const project = await Promise.all((await listArticleSlugs(root)).map(async (slug) => ({ slug, experiment: (await loadArticle(root, slug)).experiment })));
  assert.deepEqual(JSON.parse(run.stdout), { include: captureMatrix(project, all) }, "every article of the project's");
  const bad = spawnSync(process.execPath, [join(root, 'scripts/capture-matrix.ts'), 'nope'], { cwd: root, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^capture:matrix: unknown article "nope"; known: /);
  assert.equal(bad.stdout, '');
});

test("the report's fences outlast any backticks in a run's lines; titles are plain text", () => {
  const md = reportMarkdown(
    'Capture: what changed',
    ['2 run(s) merged'],
    [{ title: 'a (kind, iptables): run r-1', lines: ['claims: all 9 hold', 'x: "```" -> "````"'] }],
  );
  assert.match(md, /^## a \\\(kind, iptables\\\): run r-1$/m);
  assert.match(md, /^`````text\nclaims: all 9 hold\nx: "```" -> "````"\n`````$/m);
  assert.match(md, /^2 run\\\(s\\\) merged$/m);
});

test("every declared Kubernetes version is a job of its own; the headline's artifact keeps its name, another's carries its version", () => {
  const declaring = articles.map((a) => ({ slug: a.slug, experiment: { ...a.experiment, kubernetes: ['v1.37', 'v1.34'] } }));
  const runs = captureMatrix(declaring, { ...all, slugs: ['075-local-uneven-weights'] });
  assert.deepEqual(
    runs.map((r) => [r.artifact, r.kubernetes, r.headline]),
    [
      ['075-local-uneven-weights-kind', 'v1.37', true],
      ['075-local-uneven-weights-kind-v1.34', 'v1.34', false],
    ],
  );
  assert.deepEqual(
    captureMatrix(declaring, { ...all, slugs: ['075-local-uneven-weights'], versions: ['v1.34'] }).map((r) => r.artifact),
    ['075-local-uneven-weights-kind-v1.34'],
  );
  assert.throws(
    () => captureMatrix(declaring, { ...all, versions: ['v1.35'] }),
    /^UsageError: --k8s v1\.35: no article selected is measured on it; they are on v1\.37, v1\.34$/,
  );
});
