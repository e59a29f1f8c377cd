// The articles a copy of the project holds: the ones named and those their pages
// link to, so that the copy builds; the suites' cost stays that of the reference set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REFERENCE_ARTICLES, withLinkedArticles } from '../support/reference-articles.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

function project(pages: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'shice-linked-'));
  for (const [file, text] of Object.entries(pages)) {
    mkdirSync(join(dir, 'content/articles', file.split('/')[0]!), { recursive: true });
    writeFileSync(join(dir, 'content/articles', file), text);
  }
  return dir;
}

test('the articles named, those their pages link to and the links of those, each once; an unlinked article is left out', () => {
  const dir = project({
    'a/zh.mdx': '见 <ArticleLink slug="b">b</ArticleLink>',
    'b/en.mdx': 'See <ArticleLink slug="c">c</ArticleLink> and <ArticleLink slug="a">a</ArticleLink>',
    'b/evidence.en.mdx': 'nothing linked',
    'c/en.mdx': 'no links',
    'd/en.mdx': '<ArticleLink slug="a">a</ArticleLink>',
  });
  try {
    assert.deepEqual(withLinkedArticles(dir, ['a']), ['a', 'b', 'c']);
    assert.deepEqual(withLinkedArticles(dir, ['c']), ['c']);
    assert.deepEqual(withLinkedArticles(dir, []), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a link to an article the project lacks is named, as the build would fail on it', () => {
  const dir = project({ 'a/zh.mdx': '<ArticleLink slug="gone">x</ArticleLink>' });
  try {
    assert.throws(() => withLinkedArticles(dir, ['a']), /^Error: content\/articles\/gone does not exist$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the reference articles are committed, and their links stay among them (a copy of them is the same size however long the series grows)', () => {
  assert.deepEqual(withLinkedArticles(root, REFERENCE_ARTICLES), [...REFERENCE_ARTICLES].sort());
});
