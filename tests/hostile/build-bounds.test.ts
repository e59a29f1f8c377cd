// A real `astro build` of a copy of the site that reaches out of the checkout:
// a link in public/, an MDX import of a file outside (absolute, `../` escapes,
// a link inside the tree, queries, a dynamic import), an article folder that
// is a link to nothing. Each is refused with one line naming the file, no
// stack, and the outside file's text is nowhere in dist/. An import of the
// article's own file with ?raw still builds, onto the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { siteCopy } from '../support/project-copy.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ARTICLE = 'content/articles/075-local-uneven-weights';
const SECRET = 'shice-bounds-secret-text';

/** Every file under `dir` whose bytes hold `text`. */
function holding(dir: string, text: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return holding(path, text);
    return readFileSync(path).includes(text) ? [path] : [];
  });
}

/** A copy of the site, a file outside it, `change` applied to the copy, then a build: its exit, stderr and what dist holds of the file. */
function buildWith(change: (copy: string, outsideFile: string) => void) {
  const copy = siteCopy(root, 'build-bounds');
  const outside = realpathSync(mkdtempSync(join(tmpdir(), 'shice-build-bounds-outside-')));
  try {
    const outsideFile = join(outside, 'file');
    writeFileSync(outsideFile, `${SECRET}\n`);
    change(copy, outsideFile);
    const build = spawnSync(process.execPath, [join(copy, 'node_modules/astro/bin/astro.mjs'), 'build'], { cwd: copy, encoding: 'utf8', timeout: 170_000 });
    return {
      code: build.status,
      stderr: `${build.stdout}\n${build.stderr}`,
      leaked: holding(join(copy, 'dist'), SECRET).map((p) => relative(copy, p)),
      outsideFile,
      copy,
    };
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
}

/** The article's English prose with `lines` put right after its frontmatter. */
function withMdx(copy: string, lines: string): void {
  const file = join(copy, ARTICLE, 'en.mdx');
  const source = readFileSync(file, 'utf8');
  const end = source.indexOf('\n---\n', 3) + 5;
  writeFileSync(file, `${source.slice(0, end)}${lines}\n\n${source.slice(end)}`);
}

function assertRefused(result: ReturnType<typeof buildWith>, line: RegExp): void {
  assert.notEqual(result.code, 0, result.stderr);
  assert.match(result.stderr, line);
  assert.doesNotMatch(result.stderr, /Stack trace:|\n\s+at /, 'a refusal, not a crash');
  assert.deepEqual(result.leaked, []);
}

test('a link in public/ to a file outside is refused by name; nothing is copied into dist', { timeout: 180_000 }, () => {
  const result = buildWith((copy, outsideFile) => symlinkSync(outsideFile, join(copy, 'public/leak.txt')));
  assertRefused(
    result,
    /^public\/leak\.txt: a symbolic link to "[^"]+\/file", outside public\/; expected a file of the site itself inside public\/ \(it is published as it is\)$/m,
  );
});

test('a relative link in a folder of public/ that climbs out is refused too', { timeout: 180_000 }, () => {
  const result = buildWith((copy, outsideFile) => symlinkSync(relative(join(copy, 'public'), outsideFile), join(copy, 'public/notes.txt')));
  assertRefused(result, /^public\/notes\.txt: a symbolic link to "(\.\.\/)+[^"]+" \(it leads to "[^"]+\/file"\), outside public\//m);
});

for (const [name, mdx] of [
  ['an absolute path with ?raw', (outsideFile: string) => `import leak from '${outsideFile}?raw';\n\n<pre>{leak}</pre>`],
  [
    'a ../ escape with ?url',
    (outsideFile: string, copy: string) => `import leak from './${relative(join(copy, ARTICLE), outsideFile)}?url';\n\n<pre>{leak}</pre>`,
  ],
  ['a link inside the article folder', () => `import leak from './notes.txt?raw';\n\n<pre>{leak}</pre>`],
  ['a dynamic import in an expression', (outsideFile: string) => `<pre>{(await import('/@fs${outsideFile}?raw')).default}</pre>`],
] as const) {
  test(`an MDX import of a file outside the project, ${name}: refused with one line naming the MDX file`, { timeout: 180_000 }, () => {
    const result = buildWith((copy, outsideFile) => {
      symlinkSync(outsideFile, join(copy, ARTICLE, 'notes.txt'));
      withMdx(copy, mdx(outsideFile, copy));
    });
    assertRefused(
      result,
      new RegExp(
        `^${ARTICLE}/en\\.mdx: imports "[^"\\n]+", which is "[^"]+/file", outside the project; expected a file of the checkout or of an installed package$`,
        'm',
      ),
    );
  });
}

test("an MDX import of the article's own file with ?raw builds, onto the page: the check refuses what is outside, not imports", { timeout: 180_000 }, () => {
  const result = buildWith((copy) => {
    writeFileSync(join(copy, ARTICLE, 'notes.txt'), 'notes of the article itself\n');
    withMdx(copy, `import notes from './notes.txt?raw';\n\n<pre data-ui>{notes}</pre>`);
  });
  assert.equal(result.code, 0, result.stderr);
});

test('an article folder that is a link to nothing: the build refuses it in one line naming it', { timeout: 180_000 }, () => {
  const result = buildWith((copy) => symlinkSync('/nonexistent/shice-article', join(copy, 'content/articles/077-gone')));
  assertRefused(
    result,
    /^\s*content\/articles\/077-gone: a symbolic link to "\/nonexistent\/shice-article", which does not exist; expected the article's folder/m,
  );
});
