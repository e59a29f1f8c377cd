// The growth bench's floor: the article's MDX as Astro alone builds it, the
// same prose without the components the evidence pipeline renders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readArticleMdx } from '../../bench/site/temp-project.ts';
import { FLOOR_VALUE, proseFloorMdx } from '../../bench/plain/prose-floor.ts';
import { scanMdx } from '../../src/evidence/mdx-scan.ts';

const ARTICLE = 'content/articles/074-external-traffic-policy';

for (const lang of ['zh', 'en']) {
  test(`the floor of ${lang}.mdx keeps every heading and sentence and no component`, () => {
    const source = readFileSync(`${ARTICLE}/${lang}.mdx`, 'utf8');
    const floor = proseFloorMdx(source);
    assert.deepEqual(
      scanMdx(floor).tags.filter((t) => /^[A-Z]/.test(t.name)),
      [],
      'no component left',
    );
    const headings = (text: string) => text.split('\n').filter((l) => /^#{1,6} /.test(l));
    assert.deepEqual(headings(floor), headings(source));
    assert.ok(floor.startsWith('---\n'), 'the frontmatter stays');
    // Every line of prose without a component stays as written.
    const plainLines = source.split('\n').filter((l) => l.trim() && !/<\/?[A-Z]/.test(l));
    const kept = new Set(floor.split('\n'));
    for (const line of plainLines) assert.ok(kept.has(line), `kept: ${line.slice(0, 60)}`);
  });
}

test('a block component is unwrapped, one alone on its line dropped, one inside a sentence becomes a value', () => {
  const source = [
    'Before <Fact id="a.b" /> after.',
    '',
    '<Measured steps="x">',
    'The caption, <Fact id="c" />.',
    '</Measured>',
    '',
    '<Walkthrough />',
    '',
    '<div class="kept">html stays</div>',
    'End.',
  ].join('\n');
  assert.equal(
    proseFloorMdx(source),
    [`Before ${FLOOR_VALUE} after.`, '', `The caption, ${FLOOR_VALUE}.`, '', '', '<div class="kept">html stays</div>', 'End.'].join('\n'),
  );
});

test('fenced code and inline code are not read as components', () => {
  const source = '```\n<Fact id="x" />\n```\n\nUse `<Claim>` here.\n';
  assert.equal(proseFloorMdx(source), source);
});

test("the floor reads the article's own MDX files, its evidence pages too; an article without any is one line naming its folder", async () => {
  const root = mkdtempSync(join(tmpdir(), 'shice-floor-'));
  try {
    mkdirSync(join(root, 'content/articles/x'), { recursive: true });
    await assert.rejects(readArticleMdx(root, 'x', "to take the floor's prose from"), {
      message: "content/articles/x: no zh.mdx or en.mdx to take the floor's prose from",
    });
    // An evidence page alone is no article.
    writeFileSync(join(root, 'content/articles/x/evidence.en.mdx'), '---\nlang: en\n---\n\nEvidence.\n');
    await assert.rejects(readArticleMdx(root, 'x', "to take the floor's prose from"), /no zh\.mdx or en\.mdx/);
    writeFileSync(join(root, 'content/articles/x/en.mdx'), '# Only English\n');
    const found = await readArticleMdx(root, 'x', "to take the floor's prose from");
    assert.deepEqual(
      [...found],
      [
        ['en.mdx', { lang: 'en', page: 'article', file: 'content/articles/x/en.mdx', text: '# Only English\n' }],
        ['evidence.en.mdx', { lang: 'en', page: 'evidence', file: 'content/articles/x/evidence.en.mdx', text: '---\nlang: en\n---\n\nEvidence.\n' }],
      ],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
