// What the build may publish (src/article/check/bounds.ts): public/ as found on
// a real disk (links in and out, a link to nothing, a hard link, a pipe), and
// which imports of the project's modules are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileOfId, importProblem, isProjectModule, mayImport, publicEntryProblem, publicProblems } from '../../src/article/check/bounds.ts';

test('public/: links inside it pass; out of it, to nothing, a second name or a pipe are one line each naming the file', () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'shice-bounds-public-')));
  try {
    const root = join(work, 'project');
    mkdirSync(join(root, 'public/img'), { recursive: true });
    mkdirSync(join(work, 'outside'));
    writeFileSync(join(work, 'outside/file'), 'secret');
    writeFileSync(join(root, 'README.md'), 'the project');
    writeFileSync(join(root, 'public/favicon.svg'), '<svg/>');
    symlinkSync('favicon.svg', join(root, 'public/alias.svg'));
    symlinkSync('img', join(root, 'public/pictures'));
    assert.deepEqual(publicProblems(root), [], 'links that stay inside public/ are the site');

    symlinkSync(join(work, 'outside/file'), join(root, 'public/leak.txt'));
    symlinkSync('../../../outside', join(root, 'public/img/up'));
    symlinkSync('../README.md', join(root, 'public/readme.txt'));
    symlinkSync('/nonexistent/x', join(root, 'public/gone'));
    linkSync(join(work, 'outside/file'), join(root, 'public/hard.txt'));
    assert.equal(spawnSync('mkfifo', [join(root, 'public/pipe')]).status, 0);
    assert.deepEqual(publicProblems(root), [
      `public/gone: a symbolic link to "/nonexistent/x", which does not exist; expected a file of the site itself inside public/ (it is published as it is)`,
      `public/hard.txt: a file with 2 names (a hard link); expected a file of the site itself inside public/ (it is published as it is), with one name`,
      `public/img/up: a symbolic link to "../../../outside" (it leads to "${work}/outside"), outside public/; expected a file of the site itself inside public/ (it is published as it is)`,
      `public/leak.txt: a symbolic link to "${work}/outside/file", outside public/; expected a file of the site itself inside public/ (it is published as it is)`,
      `public/pipe: neither a file, a folder nor a link (a device, pipe or socket); expected a file of the site itself inside public/ (it is published as it is)`,
      `public/readme.txt: a symbolic link to "../README.md" (it leads to "${root}/README.md"), outside public/; expected a file of the site itself inside public/ (it is published as it is)`,
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('public/ itself a link out of the project is refused; no public/ at all is nothing to refuse', () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'shice-bounds-public-')));
  try {
    mkdirSync(join(work, 'project'));
    mkdirSync(join(work, 'elsewhere'));
    assert.deepEqual(publicProblems(join(work, 'project')), []);
    symlinkSync('../elsewhere', join(work, 'project/public'));
    assert.deepEqual(publicProblems(join(work, 'project')), [
      'public: a symbolic link to "../elsewhere", outside the project or not a folder; expected the folder public/ of the project',
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a link named in messages is quoted JSON-escaped: a line feed in its target cannot start a line of its own', () => {
  const line = publicEntryProblem({ path: 'public/x', kind: 'link', target: 'a\nok: built', real: null }, '/p/public');
  assert.equal(
    line,
    'public/x: a symbolic link to "a\\nok: built", which does not exist; expected a file of the site itself inside public/ (it is published as it is)',
  );
});

test("imports: a file of the checkout or of an installed package passes; anything else, git's folder included, is one line", () => {
  const bounds = { root: '/w/project', packages: ['/w/main/node_modules'] };
  const real = (file: string) => (file === '/w/project/content/a/inc.txt' ? '/etc/passwd' : file);
  const importer = '/w/project/content/articles/075-x/en.mdx?astroPropagatedAssets';
  assert.equal(fileOfId('/@fs/etc/passwd?raw'), '/etc/passwd');
  assert.equal(fileOfId('\0astro:content'), null);
  assert.equal(fileOfId('node:fs'), null);
  assert.equal(importProblem(importer, './ok.txt?raw', '/w/project/content/articles/075-x/ok.txt?raw', bounds, real), null);
  assert.equal(importProblem(importer, 'astro/components', '/w/main/node_modules/astro/components/index.ts', bounds, real), null);
  assert.equal(importProblem(importer, 'astro:content', '\0astro:content', bounds, real), null);
  for (const [source, resolved, shown] of [
    ['/outside/file?raw', '/outside/file?raw', '/outside/file'],
    ['../../../../x?url', '/w/x?url', '/w/x'],
    ['./inc.txt?raw', '/w/project/content/a/inc.txt?raw', '/etc/passwd'],
    ['../../../.git/config?raw', '/w/project/.git/config?raw', '/w/project/.git/config'],
    ['/w/project-other/x.ts', '/w/project-other/x.ts', '/w/project-other/x.ts'],
  ] as const)
    assert.equal(
      importProblem(importer, source, resolved, bounds, real),
      `content/articles/075-x/en.mdx: imports "${source}", which is "${shown}", outside the project; expected a file of the checkout or of an installed package`,
    );
  assert.equal(mayImport('/w/main/node_modules/vite/dist/client.mjs', bounds), true);
  assert.equal(isProjectModule(importer, bounds), true);
  assert.equal(isProjectModule('/w/project/node_modules/.vite/deps/x.js', bounds), false, "a package's own imports are the install's");
  assert.equal(isProjectModule('/w/main/node_modules/astro/x.js', bounds), false);
});
