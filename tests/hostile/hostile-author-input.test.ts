// Hostile input of the third round (issue 46) that needs no lab: requests the preview cannot parse,
// control characters in front matter, article folders and run ids that are no names, files an
// author names outside the checkout, and author files that are malformed. Each asserts behaviour and
// the failure's one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getRssString } from '@astrojs/rss';
import { serveSite } from '../../scripts/lib/site-server.ts';
import { articleFrontmatterSchema } from '../../src/i18n/frontmatter.ts';
import { XML_FORBIDDEN, xmlText } from '../../src/xml-text.ts';
import { cardSvg } from '../../src/og/card.ts';
import { ArticleFolderError, articleFolders, loadArticle } from '../../src/authoring/load.ts';
import { newArticleProblem } from '../../src/authoring/scaffold.ts';
import { projectCopy } from '../support/project-copy.ts';
import { declared } from '../../src/evidence/fact-kit.ts';
import { EvidenceError, ExtractError } from '../../src/evidence/errors.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { checkImports } from '../../scripts/lib/import-graph.ts';
import { importProblem, mayImport, projectBounds } from '../../src/article/check/bounds.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** What the server answers to `request` written as it is on a raw socket: the whole answer, as text. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(request)}`)));
    socket.write(request);
  });
}

test('a request whose target is no URL (GET http://[) is answered 400 and the preview keeps serving', async () => {
  const dist = mkdtempSync(join(tmpdir(), 'shice-fault-serve-'));
  writeFileSync(join(dist, 'index.html'), '<p>home</p>\n');
  const { server } = await serveSite({ dist, base: '/', host: '127.0.0.1', port: 0 });
  try {
    const port = (server.address() as { port: number }).port;
    for (const target of ['http://[', 'http://[::1', 'http://a:b:c/', '//[/']) {
      const answer = await raw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 400 /, `${target}: ${answer.slice(0, 80)}`);
    }
    // A request line the HTTP parser itself refuses.
    assert.match(await raw(port, 'GET /\x01 HTTP/1.1\r\n\r\n'), /^HTTP\/1\.1 400 /);
    const after = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(after, /^HTTP\/1\.1 200 /);
    assert.match(after, /<p>home<\/p>/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dist, { recursive: true, force: true });
  }
});

test('a control character in the front matter is refused naming the field; every XML writer strips it all the same', async () => {
  const front = {
    title: 'A title',
    summary: 'Pasted from a word processor:\u000b a vertical tab',
    date: '2026-12-02',
    lang: 'en',
    series: { name: 'Kubernetes', number: 74 },
  };
  const result = articleFrontmatterSchema.safeParse(front);
  assert.equal(result.success, false);
  const issues = result.error!.issues;
  assert.equal(issues.length, 1);
  assert.deepEqual(issues[0]!.path, ['summary']);
  assert.equal(issues[0]!.message, 'holds U+000B at character 30, a control character XML 1.0 forbids (the RSS feed could not be read); remove it');
  assert.equal(articleFrontmatterSchema.safeParse({ ...front, title: 'a\u0000b' }).error!.issues[0]!.path[0], 'title');
  assert.ok(articleFrontmatterSchema.safeParse({ ...front, summary: 'tab\tand 你好 😀' }).success, 'tab, CJK and astral characters are text');
  // The writers: RSS (as feed.ts passes its text), the og card's SVG.
  const forbidden = new RegExp(XML_FORBIDDEN.source, 'u');
  const feed = await getRssString({
    title: xmlText('t\u000b'),
    description: 'd',
    site: 'https://example.org/',
    items: [{ title: xmlText('x\u0001y'), description: xmlText(front.summary), link: 'https://example.org/a/', pubDate: new Date(0) }],
  });
  assert.ok(!forbidden.test(feed), 'the feed holds no character XML forbids');
  assert.match(feed, /Pasted from a word processor: a vertical tab/);
  const svg = cardSvg({
    lang: 'en',
    series: 'K\u000c',
    site: 's',
    title: 'a\u000bb',
    titlePhrases: ['a\u000bb'],
    headlines: [{ value: '1\u0007', label: 'l' }],
    footer: 'f',
  });
  assert.ok(!forbidden.test(svg), 'the card holds no character XML forbids');
  assert.equal(xmlText('a\u000bb\ud800c\ud83d\ude00'), 'abc\ud83d\ude00');
});

test('an article folder whose name holds a line feed or ESC is refused by the one loader, named escaped, in the matrix too', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-fault-names-'));
  try {
    const copy = projectCopy(root, dir);
    for (const name of ['075-a\nnew: created b', '076-x\u001b[2Jy', '000-zero']) mkdirSync(join(copy, 'content/articles', name));
    let message = '';
    try {
      articleFolders(copy);
    } catch (error) {
      assert.ok(error instanceof ArticleFolderError);
      message = error.message;
    }
    assert.deepEqual(message.split('\n'), [
      'content/articles/"000-zero": the folder\'s name is no slug: series number 000; expected 001 or more (the front matter\'s series.number is positive); rename the folder',
      'content/articles/"075-a\\nnew: created b": the folder\'s name is no slug: expected the three-digit series number, then lowercase words joined by dashes (e.g. 078-topology-aware-routing); rename the folder',
      'content/articles/"076-x\\u001b[2Jy": the folder\'s name is no slug: expected the three-digit series number, then lowercase words joined by dashes (e.g. 078-topology-aware-routing); rename the folder',
    ]);
    await assert.rejects(loadArticle(copy, '076-x\u001b[2Jy'), /^ArticleFolderError: content\/articles\/"076-x\\u001b\[2Jy": the folder's name is no slug/);
    // The matrix (and the capture's dry run, through the same listArticleSlugs): the loader's lines, nothing raw.
    const matrix = spawnSync(process.execPath, [join(copy, 'scripts/capture-matrix.ts')], { cwd: copy, encoding: 'utf8', timeout: 60_000 });
    assert.equal(matrix.status, 2, matrix.stderr);
    assert.equal(matrix.stderr, `capture:matrix: ${message.split('\n').join(' | ')}\n`);
    assert.ok(!matrix.stderr.includes('\u001b'), 'no raw ESC');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm run new refuses series number 000 and a series number another article has, as the draft build would', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-fault-new-'));
  try {
    const copy = projectCopy(root, dir);
    const before = readdirSync(join(copy, 'content/articles')).sort();
    const made = (slug: string) => spawnSync(process.execPath, [join(copy, 'scripts/new-article.ts'), slug], { cwd: copy, encoding: 'utf8' });
    const zero = made('000-zero');
    assert.equal(zero.status, 2);
    assert.equal(zero.stderr, 'new: slug "000-zero": series number 000; expected 001 or more (the front matter\'s series.number is positive)\n');
    const taken = made('074-another-take');
    assert.equal(taken.status, 2);
    assert.equal(
      taken.stderr,
      'new: slug "074-another-take": series number 074 is taken by the article "074-external-traffic-policy"; expected a number of its own\n',
    );
    assert.deepEqual(readdirSync(join(copy, 'content/articles')).sort(), before, 'nothing made');
    assert.equal(newArticleProblem('099-free', new Map([[74, '074-x']])), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file an author names outside the checkout is refused wherever it is read: declared(), manifests, MDX imports, linked packages', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-fault-outside-'));
  try {
    const copy = projectCopy(root, dir);
    const secret = join(dir, 'outside/secret.yaml');
    mkdirSync(join(dir, 'outside'));
    writeFileSync(secret, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  token: hunter2-secret\n');
    const slug = '074-external-traffic-policy';
    const definition = join(copy, 'content/articles', slug, 'article.ts');
    // declared() climbing out of the checkout: the loader refuses the article, naming the field.
    const source = readFileSync(definition, 'utf8');
    writeFileSync(
      definition,
      source.replace(
        "declared('manifests/backend.yaml', 'Pod/backend', 'spec.containers.0.image')",
        "declared('../../../../outside/secret.yaml', 'ConfigMap/s', 'data.token')",
      ),
    );
    await assert.rejects(loadArticle(copy, slug), (error: Error) => {
      assert.equal(error.message.split('\n').length, 1, error.message);
      assert.match(
        error.message,
        /^content\/articles\/074-external-traffic-policy\/article\.ts: field "facts\.declared\.backend\.image": "\.\.\/\.\.\/\.\.\/\.\.\/outside\/secret\.yaml" resolves to "[^"]+\/outside\/secret\.yaml", outside the checkout; expected a file of the checkout/,
      );
      assert.ok(!error.message.includes('hunter2'));
      return true;
    });
    // The reader itself refuses too (a caller that skipped the loader): nothing is read, nothing published.
    const spec = declared('../../../../outside/secret.yaml', 'ConfigMap/s', 'data.token');
    const cwd = process.cwd();
    process.chdir(copy);
    try {
      assert.throws(
        () => spec.derive({ run: { slug } } as never),
        (error: Error) => error instanceof ExtractError && /field "declared": .*outside the checkout/.test(error.message) && !error.message.includes('hunter2'),
      );
    } finally {
      process.chdir(cwd);
    }
    // A manifest that is a link out of the checkout.
    writeFileSync(definition, source);
    const manifest = join(copy, 'content/articles', slug, 'manifests/backend.yaml');
    rmSync(manifest);
    symlinkSync(secret, manifest);
    await assert.rejects(
      loadArticle(copy, slug),
      /^Error: content\/articles\/074-external-traffic-policy\/article\.ts: field "experiment\.manifests\.0": "manifests\/backend\.yaml" resolves to "[^"]+" \(it leads to "[^"]+\/outside\/secret\.yaml"\), outside the checkout/m,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('MDX may not import a Node built-in nor reach for process, require or import.meta; a package linked to an outside folder is outside', () => {
  const mdx = [
    '---',
    'title: x',
    '---',
    "import { readFileSync } from 'node:fs';",
    "import { execSync } from 'child_process';",
    "import secret from 'linked/secret.yaml?raw';",
    '',
    "{process.getBuiltinModule('fs').readFileSync('/etc/passwd', 'utf8')}",
    '',
  ].join('\n');
  const problems = checkImports(
    new Map([['content/articles/074-x/en.mdx', mdx]]),
    () => true,
    [],
    (path) => (path === 'node_modules/linked' ? '/elsewhere/linked' : null),
  );
  assert.deepEqual(problems, [
    "content/articles/074-x/en.mdx:8: uses process; expected none in an article's MDX (it could read any file of the machine or run a program)",
    'content/articles/074-x/en.mdx:4: imports "node:fs", a Node built-in; expected none in an article\'s MDX (it could read any file of the machine or run a program)',
    'content/articles/074-x/en.mdx:5: imports "child_process", a Node built-in; expected none in an article\'s MDX (it could read any file of the machine or run a program)',
    'content/articles/074-x/en.mdx:6: imports "linked/secret.yaml?raw", which is "/elsewhere/linked", outside the project; expected a file inside it',
  ]);
  // The build's plugin refuses the same built-ins.
  assert.match(
    importProblem('/p/content/articles/074-x/en.mdx', 'node:fs', 'node:fs', { root: '/p', packages: [] }, (f) => f)!,
    /^content\/articles\/074-x\/en\.mdx: imports "node:fs", a Node built-in/,
  );
  // npm i file:/dir links a package to an author's folder: not an installed package, so outside.
  const project = mkdtempSync(join(tmpdir(), 'shice-fault-linked-'));
  try {
    mkdirSync(join(project, 'node_modules'));
    mkdirSync(join(project, 'outside'));
    const checkout = join(project, 'checkout');
    mkdirSync(join(checkout, 'node_modules'), { recursive: true });
    symlinkSync(join(project, 'outside'), join(checkout, 'node_modules/linked'));
    mkdirSync(join(project, 'node_modules/shared'));
    symlinkSync(join(project, 'node_modules/shared'), join(checkout, 'node_modules/shared'));
    const bounds = projectBounds(checkout);
    assert.equal(mayImport(join(realpathSync(project), 'outside/secret.yaml'), bounds), false, 'a linked author folder is outside');
    assert.equal(mayImport(join(realpathSync(project), 'node_modules/shared/index.js'), bounds), true, "a copy's link to an installed package is inside");
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});

test('a null field or a syntax error in article.ts, a 250-character run id: one line naming the file, the field or line:column', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-fault-malformed-'));
  try {
    const copy = projectCopy(root, dir);
    const slug = '074-external-traffic-policy';
    const definition = join(copy, 'content/articles', slug, 'article.ts');
    const source = readFileSync(definition, 'utf8');
    // The series gives the cluster; an article that sets one of its own to null overrides it.
    const slugLine = `slug: '${slug}',\n`;
    assert.ok(source.includes(slugLine));
    writeFileSync(definition, source.replace(slugLine, `${slugLine}  cluster: null,\n`));
    await assert.rejects(loadArticle(copy, slug, 'edit-1'), {
      message: `content/articles/${slug}/article.ts: field "experiment.cluster": expected the cluster (threeNodeCluster(), ...), got null`,
    });
    writeFileSync(definition, source.replace("manifests: ['manifests/backend.yaml', 'manifests/services.yaml'],", 'manifests: null,'));
    await assert.rejects(
      loadArticle(copy, slug, 'edit-2'),
      /^Error: content\/articles\/074-external-traffic-policy\/article\.ts: field "experiment\.manifests": expected a list of paths relative to the article's folder, got null$/,
    );
    const lines = source.split('\n');
    const at = lines.findIndex((l) => l.includes('manifests: ['));
    lines[at] = '  manifests: [,,;';
    writeFileSync(definition, lines.join('\n'));
    await assert.rejects(loadArticle(copy, slug, 'edit-3'), (error: Error) => {
      assert.match(error.message, new RegExp(`^content/articles/${slug}/article\\.ts:${at + 1}:\\d+: syntax error: `));
      assert.equal(error.message.split('\n').length, 1);
      return true;
    });
    const run = join(dir, 'run');
    cpSync(join(root, 'tests/fixtures/snapshots/074-sample'), run, { recursive: true });
    writeFileSync(join(run, 'run.yaml'), readFileSync(join(run, 'run.yaml'), 'utf8').replace(/^runId: .*$/m, `runId: ${'a'.repeat(250)}`));
    assert.throws(
      () => loadSnapshots(run),
      (error: EvidenceError) =>
        error.problems.length === 1 &&
        /run\.yaml: field "runId": expected letters, digits and dashes, at most 100 characters \(it names folders\), got "a{50,}/.test(error.problems[0]!),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
