// An article folder that is a symbolic link leading nowhere or out of the
// project: every command that reads article folders (the loader, npm run new,
// capture, capture:matrix, capture:merge, lint:zh) says so in one line naming
// it, exit 2, never a stack; a link to a folder inside the project is that
// folder. A slug with control characters is quoted JSON-escaped by capture too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArticleFolderError, articleEntryProblem, articleFolders, listArticleSlugs, loadArticle } from '../../src/authoring/load.ts';
import { REFERENCE_ARTICLES, withLinkedArticles } from '../support/reference-articles.ts';
import { nearestSlugs } from '../../src/capture/session/cli-args.ts';
import { projectCopy } from '../support/project-copy.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The project's own articles, as its folder lists them. */
/** The articles a project copy holds. */
const COMMITTED = withLinkedArticles(root, REFERENCE_ARTICLES);

test('articleEntryProblem: a link to nothing or out of the project is one line naming it; a folder or a link inside is none', () => {
  const realRoot = '/p';
  assert.equal(articleEntryProblem('074-x', { kind: 'folder' }, realRoot), null);
  assert.equal(articleEntryProblem('074-x', { kind: 'link', target: '../../drafts/x', real: '/p/drafts/x', realIsFolder: true }, realRoot), null);
  assert.equal(
    articleEntryProblem('077-x', { kind: 'link', target: '/nowhere', real: null, realIsFolder: false }, realRoot),
    `content/articles/077-x: a symbolic link to "/nowhere", which does not exist; expected the article's folder (remove the link or make it a folder)`,
  );
  assert.equal(
    articleEntryProblem('078-x', { kind: 'link', target: '../../../etc', real: '/etc', realIsFolder: true }, realRoot),
    `content/articles/078-x: a symbolic link to "../../../etc" (it leads to "/etc"), outside the project; expected the article's folder inside the project`,
  );
  assert.equal(
    articleEntryProblem('079-x', { kind: 'link', target: '/p2', real: '/p2', realIsFolder: true }, realRoot),
    `content/articles/079-x: a symbolic link to "/p2", outside the project; expected the article's folder inside the project`,
    'a sibling whose name starts like the project is outside it',
  );
  assert.match(articleEntryProblem('080-x', { kind: 'link', target: 'a\nb', real: null, realIsFolder: false }, realRoot)!, /^[^\n]*"a\\nb"[^\n]*$/);
});

/** A copy of the project whose content/articles holds `links` (name -> target); removed afterwards. */
function withLinks(links: Record<string, string>, run: (copy: string, outside: string) => void | Promise<void>) {
  const work = mkdtempSync(join(tmpdir(), 'shice-article-links-'));
  const outside = join(work, 'outside');
  mkdirSync(join(outside, 'article'), { recursive: true });
  const copy = projectCopy(root, work);
  for (const [name, target] of Object.entries(links)) symlinkSync(target.replace('$OUTSIDE', outside), join(copy, 'content/articles', name));
  return Promise.resolve(run(copy, outside)).finally(() => rmSync(work, { recursive: true, force: true }));
}

const run = (copy: string, script: string, args: string[]) =>
  spawnSync(process.execPath, [join(copy, 'scripts', script), ...args], { cwd: copy, encoding: 'utf8', timeout: 60_000 });

function assertOneLine(result: ReturnType<typeof run>, prefix: string, expected: RegExp) {
  assert.equal(result.status, 2, result.stderr);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack');
  assert.match(result.stderr, new RegExp(`^${prefix}: `));
  assert.match(result.stderr.split('\n')[0]!, expected);
}

test('a dangling article link: the loader, new, capture, capture:matrix, capture:merge and lint:zh each say so in one line', { timeout: 120_000 }, () =>
  withLinks({ '077-dangling': '/nonexistent/shice-article' }, async (copy) => {
    const line = /content\/articles\/077-dangling: a symbolic link to "\/nonexistent\/shice-article", which does not exist; expected the article's folder/;
    await assert.rejects(listArticleSlugs(copy), (e: Error) => e instanceof ArticleFolderError && line.test(e.message));
    await assert.rejects(loadArticle(copy, '077-dangling'), (e: Error) => e instanceof ArticleFolderError && line.test(e.message));
    assertOneLine(run(copy, 'new-article.ts', ['077-dangling']), 'new', line);
    assertOneLine(run(copy, 'capture.ts', ['077-dangling', '--dry-run']), 'capture', line);
    assertOneLine(run(copy, 'capture.ts', ['--dry-run']), 'capture', line);
    assertOneLine(run(copy, 'capture-matrix.ts', []), 'capture:matrix', line);
    assertOneLine(run(copy, 'capture-merge.ts', [join(copy, 'content')]), 'capture:merge', line);
    assertOneLine(run(copy, 'lint-zh.ts', []), 'lint:zh', line);
    assert.deepEqual(readdirSync(join(copy, 'content/articles')).sort(), [...COMMITTED, '077-dangling'].sort(), 'nothing was created or removed');
  }),
);

test(
  'an article link out of the project, relative or absolute: one line naming it; a link to a folder inside the project is read as that folder',
  { timeout: 120_000 },
  () =>
    withLinks({ '078-out': '$OUTSIDE/article', '079-climbs': '../../../outside/article', '074-alias': '074-external-traffic-policy' }, async (copy) => {
      assert.throws(
        () => articleFolders(copy),
        (e: Error) =>
          e instanceof ArticleFolderError &&
          /^content\/articles\/078-out: a symbolic link to "[^"]+\/outside\/article", outside the project; expected the article's folder inside the project$/m.test(
            e.message,
          ) &&
          /^content\/articles\/079-climbs: a symbolic link to "\.\.\/\.\.\/\.\.\/outside\/article" \(it leads to "[^"]+\/outside\/article"\), outside the project;/m.test(
            e.message,
          ) &&
          !e.message.includes('074-alias'),
      );
      assertOneLine(run(copy, 'new-article.ts', ['078-out']), 'new', /content\/articles\/078-out: a symbolic link to .*, outside the project/);
      assertOneLine(run(copy, 'capture.ts', ['079-climbs', '--dry-run']), 'capture', /content\/articles\/079-climbs: a symbolic link/);
      rmSync(join(copy, 'content/articles/078-out'));
      rmSync(join(copy, 'content/articles/079-climbs'));
      assert.deepEqual(articleFolders(copy), ['074-alias', ...COMMITTED]);
    }),
);

/** The known articles an unknown slug's line names: the nearest of the checkout's. */
const knownLine = (slug: string) => {
  const known = articleFolders(root);
  const shown = nearestSlugs(slug, known);
  return `${shown.join(', ')}${known.length > shown.length ? ` and ${known.length - shown.length} more` : ''}`;
};

test('capture and capture:matrix quote a slug with control characters JSON-escaped, in one line', { timeout: 60_000 }, () => {
  for (const slug of ['076-a\ncapture: done', '076-a\u001b[2J', '076-a\u2028b\u007f']) {
    const capture = spawnSync(process.execPath, [join(root, 'scripts/capture.ts'), slug, '--dry-run'], { cwd: root, encoding: 'utf8' });
    assert.equal(capture.status, 2, capture.stderr);
    assert.equal(
      capture.stderr,
      `capture: unknown article ${JSON.stringify(slug).replace(/[\u007f\u2028]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}; known: ${knownLine(slug)}\n`,
    );
  }
  const matrix = spawnSync(process.execPath, [join(root, 'scripts/capture-matrix.ts'), '076-a\u001b[2J'], { cwd: root, encoding: 'utf8' });
  assert.equal(matrix.status, 2, matrix.stderr);
  assert.match(matrix.stderr, /^capture:matrix: unknown article "076-a\\u001b\[2J"; known: [^\n]*\n$/);
});
