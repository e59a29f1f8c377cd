// `npm run new` with hostile slugs: each is one line on stderr, exit 2, nothing
// created, and the slug is quoted JSON-escaped and cut (never a stack, never raw
// control characters on the terminal).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const articles = () => readdirSync(join(root, 'content/articles')).sort();

test('a very long slug, path separators, "..", line feeds, control and bidi characters: one line each, nothing created', () => {
  const before = articles();
  const cases: Array<[string, RegExp]> = [
    [`076-${'a'.repeat(300)}`, /^new: slug "076-a{56}… \(304 characters\)": 304 characters; expected at most 100$/],
    ['076-x/../../../etc', /^new: slug "076-x\/\.\.\/\.\.\/\.\.\/etc": expected the three-digit series number/],
    ['..', /^new: slug "\.\.": expected the three-digit series number/],
    ['076-a\u001b[2Jb', /^new: slug "076-a\\u001b\[2Jb": expected/],
    ['076-safe\u202eexe', /^new: slug "076-safe\\u202eexe": expected/],
    // A line feed would let the slug print a second line of its own (a forged "created ..."): JSON-escaped instead.
    ['076-a\nnew: created content/articles/076-a/article.ts', /^new: slug "076-a\\nnew: created content\/articles\/076-a\/article\.ts": expected/],
    ['076-a\r\u0085\u007f\u2028b', /^new: slug "076-a\\r\\u0085\\u007f\\u2028b": expected/],
  ];
  for (const [slug, expected] of cases) {
    const result = spawnSync(process.execPath, [join(root, 'scripts/new-article.ts'), slug], { cwd: root, encoding: 'utf8' });
    assert.equal(result.status, 2, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.split('\n').length, 2, result.stderr);
    assert.match(result.stderr.trimEnd(), expected);
  }
  assert.deepEqual(articles(), before);
});
