// The citations' judgement, on the upstream lines the reference articles keep
// (their upstream.yaml, read from the Go modules by npm run cite): where quoted
// lines stand, what a stale or missing record says, one line per problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadArticle } from '../../src/authoring/load.ts';
import {
  citationProblems,
  citeRelease,
  ELIDED,
  quoteProblem,
  dedented,
  findCitations,
  locateLines,
  parseUpstream,
  renderUpstream,
  upstreamLink,
  type CitationInput,
} from '../../src/evidence/upstream.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLUG = '074-external-traffic-policy';
const DIR = `content/articles/${SLUG}`;
const read = (file: string) => readFileSync(`${root}${file}`, 'utf8');
const recordText = read(`${DIR}/upstream.yaml`);

async function input(): Promise<CitationInput> {
  const article = await loadArticle(root, SLUG);
  const { record, problems } = parseUpstream(recordText, `${DIR}/upstream.yaml`);
  assert.deepEqual(problems, []);
  return {
    definitionFile: article.file,
    upstreamFile: `${DIR}/upstream.yaml`,
    defs: article.citations,
    record,
    releases: [...record.keys()],
    sources: (['zh', 'en'] as const).flatMap((lang) => [
      { lang, file: `${DIR}/${lang}.mdx`, source: read(`${DIR}/${lang}.mdx`) },
      { lang, file: `${DIR}/evidence.${lang}.mdx`, source: read(`${DIR}/evidence.${lang}.mdx`) },
    ]),
  };
}

test('the committed record of 074 holds every citation at every release, and renders back to the same text', async () => {
  const given = await input();
  assert.ok(given.defs.length > 0 && given.releases.length === 4, `${given.defs.length} citations, ${given.releases.join(' ')}`);
  assert.deepEqual(citationProblems(given), []);
  assert.equal(renderUpstream(given.record!), recordText);
});

test('quoted lines are found whatever their indentation, once; absent or twice is said', () => {
  const lines = parseUpstream(recordText, 'u').record.get('v1.37.2')!.get('cluster-masquerades')!;
  const file = `package iptables\n\n${lines.text}\n}\n`;
  assert.deepEqual(locateLines(file, ['if !svcInfo.ExternalPolicyLocal() {', '// If we are using non-local endpoints we need to masquerade,']), {
    from: 3,
    to: 4,
  });
  assert.equal(locateLines(file, ['// in case we cross nodes.', 'if !svcInfo.ExternalPolicyLocal() {']), 'absent', 'order matters');
  assert.equal(locateLines(`${file}${file}`, ['// in case we cross nodes.']), 'ambiguous');
  assert.equal(locateLines(file, ['', ' ']), 'absent', 'blank lines alone cite nothing');
  const found = citeRelease(
    [{ id: 'x', file: 'p.go', lines: ['// in case we cross nodes.'], about: { zh: '', en: '' } }],
    'v1.37.2',
    (f) => (f === 'p.go' ? file : null),
    'a.ts',
  );
  assert.deepEqual(found, { cited: new Map([['x', { file: 'p.go', from: 5, to: 5, text: lines.text.split('\n').at(-1)! }]]), problems: [] });
  const missing = citeRelease([{ id: 'x', file: 'q.go', lines: ['y'], about: { zh: '', en: '' } }], 'v1.34.4', () => null, 'a.ts');
  assert.deepEqual(missing.problems, ['a.ts, citation "x": Kubernetes v1.34.4 has no file q.go']);
  assert.equal(upstreamLink('v1.37.2', { file: 'pkg/a.go', from: 3, to: 4 }), 'https://github.com/kubernetes/kubernetes/blob/v1.37.2/pkg/a.go#L3-L4');
});

test('the page shows cited lines without the indentation they share', () => {
  assert.equal(dedented('\t\t\tif a {\n\t\t\t\t// b\n\n\t\t\t}'), 'if a {\n\t// b\n\n}');
  assert.equal(dedented('  x\n\ty'), '  x\n\ty', 'mixed indentation shares nothing: the lines stay as they are');
});

test('a citation names its sentence: the words before it back to the last full stop, markup left out', () => {
  const [zh, en] = [
    findCitations('前一句。worker 把包 <Fact id="a" /> 伪装<Cite id="c" />。后一句'),
    findCitations('One.\nTwo `x` masquerades<Cite id="c" />.'),
  ];
  assert.deepEqual(zh, [{ id: 'c', line: 1, sentence: 'worker 把包 伪装' }]);
  assert.deepEqual(en, [{ id: 'c', line: 2, sentence: 'Two `x` masquerades' }]);
});

test('what is wrong with a citation is one line each: an unknown id, one language only, none, a missing record or release, lines not held', async () => {
  const given = await input();
  const [zh] = given.sources;
  const unknown = citationProblems({ ...given, sources: [...given.sources, { lang: 'zh', file: 'x.mdx', source: 'a<Cite id="nope" />。' }] });
  assert.equal(unknown.length, 1);
  assert.match(
    unknown[0]!,
    /^x\.mdx:1: <Cite id="nope">: no such citation in content\/articles\/074-external-traffic-policy\/article\.ts \(field "citations" declares: /,
  );
  const zhOnly = citationProblems({
    ...given,
    sources: given.sources.map((s) => (s.lang === 'en' ? { ...s, source: s.source.replaceAll('<Cite id="health-port-answers" />', '') } : s)),
  });
  assert.deepEqual(zhOnly, [
    `${DIR}/article.ts: field "citations.health-port-answers": cited in zh only; expected a <Cite id="health-port-answers" /> in each language`,
  ]);
  const none = citationProblems({
    ...given,
    sources: given.sources.map((s) => ({ ...s, source: s.source.replaceAll('<Cite id="health-port-answers" />', '') })),
  });
  assert.deepEqual(none, [
    `${DIR}/article.ts: field "citations.health-port-answers": no sentence cites it; expected a <Cite id="health-port-answers" /> in each language, or remove it`,
  ]);
  assert.deepEqual(citationProblems({ ...given, record: null }), [
    `${DIR}/upstream.yaml: missing; expected the cited lines of every release the runs used (npm run cite -- <slug> writes it)`,
  ]);
  const newer = citationProblems({ ...given, releases: ['v1.38.0', ...given.releases] });
  assert.equal(newer.length, given.defs.length, 'a release the record lacks: each citation once');
  assert.match(
    newer[0]!,
    new RegExp(
      `^${DIR}/(zh|evidence\\.zh)\\.mdx:\\d+: the sentence ".+" cites .+: ${DIR}/upstream\\.yaml holds no lines of it at Kubernetes v1\\.38\\.0; run npm run cite -- ${SLUG} and read the lines again$`,
    ),
  );
  assert.ok(zh);
});

test('upstream.yaml that is malformed is said field by field', () => {
  const { problems } = parseUpstream(
    'v1.37:\n  a: {file: x.go, from: 3, to: 2, text: "y"}\nv1.36.3:\n  b: {file: x.go, from: 1, to: 2, text: "one line"}\n',
    'u.yaml',
  );
  assert.deepEqual(problems, [
    'u.yaml: field "v1.37": expected a Kubernetes release, such as v1.37.2',
    'u.yaml: field "v1.37.a": expected from and to, line numbers with from <= to',
    'u.yaml: field "v1.36.3.b": the text holds 1 line(s); from and to span 2',
  ]);
  assert.match(parseUpstream('a: [', 'u.yaml').problems[0]!, /^u\.yaml: not YAML \(/);
});

test('an elided citation: its first lines once, its last lines after them; the lines between alike in every release, or one line says where they differ', async () => {
  const given = await input();
  const elided = given.defs.find((d) => d.lines.includes(ELIDED))!;
  assert.ok(elided, '074 cites a longer passage by its first and last lines');
  const lines = given.record!.get('v1.37.2')!.get(elided.id)!;
  const body = lines.text.split('\n');
  const file = `package x\n\n${lines.text}\n}\n`;
  assert.deepEqual(locateLines(file, elided.lines), { from: 3, to: 2 + body.length }, 'the passage from its first line to its last');
  assert.equal(locateLines(file, [body[0]!, ELIDED, 'not in the file']), 'absent');
  assert.equal(locateLines(`${file}${file}`, [body[0]!, ELIDED, body.at(-1)!]), 'ambiguous', 'its first lines more than once');
  const far = `${body[0]}\n${'\n'.repeat(45)}${body.at(-1)}\n`;
  assert.equal(locateLines(far, [body[0]!, ELIDED, body.at(-1)!]), 'absent', 'a passage longer than a reader reads is no citation');
  assert.equal(quoteProblem([ELIDED, 'x']), `"${ELIDED}" first or last; expected it between the first and the last lines`);
  assert.equal(quoteProblem(['a', ELIDED, 'b', ELIDED, 'c']), `"${ELIDED}" more than once; expected it once, between the first and the last lines`);
  assert.equal(quoteProblem(['a', ELIDED, 'b']), null);

  // One release whose lines between differ: the build says so, naming the citation and both releases.
  const changed = new Map([...given.record!].map(([release, cited]) => [release, new Map(cited)]));
  const older = changed.get('v1.34.4')!;
  const before = older.get(elided.id)!;
  const text = before.text.split('\n');
  text.splice(1, 0, '\t// a line v1.34 had alone');
  older.set(elided.id, { ...before, to: before.to + 1, text: text.join('\n') });
  const problems = citationProblems({ ...given, record: changed });
  assert.deepEqual(problems, [
    `${DIR}/article.ts: field "citations.${elided.id}": the lines between its first and last differ between Kubernetes ${given.releases[0]} and v1.34.4 (${DIR}/upstream.yaml); expected lines every release has alike: cite fewer, or quote them in full`,
  ]);
});
