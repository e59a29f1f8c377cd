// The build's checks over an article's MDX: unknown ids, typed-in values, and
// the two languages binding different evidence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkArticleSources, checkParity, findClaimReferences, stopProblems, type ArticleSource } from '../../src/article/check/check-article.ts';

const zh = (body: string, front = ''): ArticleSource => ({ lang: 'zh', file: 'content/articles/x/zh.mdx', source: `---\ntitle: t\n${front}---\n\n${body}\n` });
const en = (body: string, front = ''): ArticleSource => ({ lang: 'en', file: 'content/articles/x/en.mdx', source: `---\ntitle: t\n${front}---\n\n${body}\n` });
const evidence = { factIds: ['a.rc', 'b.client'], stepIds: ['a', 'b'], claimIds: ['local-drops'] };

test('a clean pair of articles has no problem', () => {
  const body = '经 <Fact id="a.rc" /> 和 <Fact id="b.client" />。\n\n<Measured steps="a b" />\n\n<Claim ids="local-drops">\n\n正文\n\n</Claim>';
  assert.deepEqual(checkArticleSources([zh(body), en(body)], evidence), []);
});

test('an unknown fact, step or claim names the file and the id', () => {
  const problems = checkArticleSources([zh('<Fact id="a.rcc" />\n\n<Measured steps="a c" />\n\n<Claim ids="nope">\n\nx\n\n</Claim>')], evidence);
  assert.ok(
    problems.some((p) => /zh\.mdx:\d+:\d+: <Fact id="a\.rcc">: unknown fact id "a\.rcc" \(did you mean "a\.rc"\?\)/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /zh\.mdx:\d+:\d+: <Measured steps="...">: unknown step id "c"/.test(p)),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => /zh\.mdx:\d+: <Claim ids="…nope…">: unknown claim "nope"; the article declares: local-drops/.test(p)),
    problems.join('\n'),
  );
});

test('a measured-looking value typed into prose fails with the file and the text', () => {
  const problems = checkArticleSources([zh('curl 等了 3.1 秒,后端看到 172.18.0.3。')], evidence);
  assert.ok(
    problems.some((p) => p.includes('zh.mdx') && p.includes('3.1')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.includes('zh.mdx') && p.includes('172.18.0.3')),
    problems.join('\n'),
  );
});

test('zh and en must bind the same facts, steps and claims, unless a fact is declared language-specific', () => {
  const a = zh('<Fact id="a.rc" /> <Fact id="b.client" />\n\n<Measured steps="a" />\n\n<Claim ids="local-drops">\n\nx\n\n</Claim>');
  const b = en('<Fact id="a.rc" />');
  const problems = checkParity([a, b]);
  assert.ok(problems.some((p) => /zh\.mdx: binds <Fact id="b\.client">, content\/articles\/x\/en\.mdx does not/.test(p)));
  assert.ok(problems.some((p) => /zh\.mdx: shows step "a" in a <Measured>, .*en\.mdx does not/.test(p)));
  assert.ok(problems.some((p) => /zh\.mdx: a passage rests on claim "local-drops", no passage of .*en\.mdx does/.test(p)));

  const declared = zh('<Fact id="a.rc" /> <Fact id="b.client" />', 'languageSpecificFacts:\n  b.client: the Chinese text quotes it in a footnote\n');
  assert.deepEqual(checkParity([declared, en('<Fact id="a.rc" />')]), []);
  assert.ok(
    checkArticleSources([zh('x', 'languageSpecificFacts:\n  ghost: because\n')], evidence).some((p) =>
      /languageSpecificFacts names "ghost", which is no fact/.test(p),
    ),
  );
});

test('claim references carry their line', () => {
  assert.deepEqual(findClaimReferences('a\n<Claim ids="x y">\n'), [
    { id: 'x', line: 2 },
    { id: 'y', line: 2 },
  ]);
});

test("a walkthrough's stops are written in each MDX: every declared stop once, in order, titled; an unknown one is named with its line", () => {
  const declared = ['a', 'b', 'c'];
  const mdx = (stops: string) => `# T\n\n<Walkthrough>\n\n${stops}\n\n</Walkthrough>\n`;
  const stop = (id: string, title = `Stop ${id}`) => `<Stop id="${id}" title="${title}">\n\nProse of ${id}.\n\n</Stop>`;
  assert.deepEqual(stopProblems('zh.mdx', mdx([stop('a'), stop('b'), stop('c')].join('\n\n')), declared), []);
  assert.deepEqual(stopProblems('zh.mdx', '# No walkthrough here\n', declared), [], 'an MDX without <Walkthrough> writes no stops');
  const problems = stopProblems('en.mdx', mdx([stop('b'), stop('a'), '<Stop id="x">\n\nText.\n\n</Stop>'].join('\n\n')), declared);
  assert.deepEqual(problems, [
    'en.mdx:17: <Stop id="x">: unknown stop; the article\'s walkthrough declares: a, b, c',
    'en.mdx:17: <Stop id="x">: expected a title="…" in this language',
    'en.mdx: <Walkthrough> has no <Stop id="c">; expected every stop the walkthrough declares',
    "en.mdx: the stops are in the order b, a; expected the walkthrough's order, a, b",
  ]);
  assert.match(stopProblems('zh.mdx', mdx([stop('a'), stop('a'), stop('b'), stop('c')].join('\n\n')), declared)[0]!, /a <Stop> appears twice/);
});

test("a typed-in number in a stop's prose is caught like any other prose: the walkthrough no longer hides its children", () => {
  const source = '<Walkthrough>\n\n<Stop id="a" title="A">\n\nThe backend saw 10.244.1.1.\n\n</Stop>\n\n</Walkthrough>\n';
  const problems = checkArticleSources([{ lang: 'en', file: 'en.mdx', source }], { factIds: [], stepIds: [], stopIds: ['a'] });
  assert.ok(
    problems.some((p) => p.includes('10.244.1.1')),
    problems.join('\n'),
  );
});

test('a front matter that is no YAML is one problem naming the file and its line; the other file is still checked', () => {
  const broken = {
    lang: 'zh' as const,
    file: 'content/articles/099-x/zh.mdx',
    source: '---\ntitle: "unclosed\nsummary: 一句话\n---\n\n正文 <Fact id="nope" />。\n',
  };
  const fine = { lang: 'en' as const, file: 'content/articles/099-x/en.mdx', source: '---\ntitle: Fine\n---\n\nText <Fact id="nope" />.\n' };
  const problems = checkArticleSources([broken, fine], { factIds: [], stepIds: [] });
  assert.equal(problems[0], 'content/articles/099-x/zh.mdx:3: front matter: deficient indentation; expected YAML between the two --- lines');
  assert.ok(
    problems.some((p) => p.startsWith('content/articles/099-x/en.mdx:5:') && p.includes('"nope"')),
    problems.join('\n'),
  );
});
