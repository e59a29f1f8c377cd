import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BOUND_COMPONENTS, checkReferences, componentsInCode, findFactReferences, findUnboundValues } from '../../src/evidence/mdx-check.ts';
import { ARTICLE_COMPONENTS } from '../../src/article/check/check-article.ts';
import { findNumericTokens } from '../../src/evidence/numbers.ts';
import { scanMdx } from '../../src/evidence/mdx-scan.ts';

const FILE = 'content/articles/074-external-traffic-policy/zh.mdx';
const ROOT_DIR = fileURLToPath(new URL('../..', import.meta.url));

const page = [
  '---', //                                                   1
  'title: externalTrafficPolicy 与 74 号',
  'series: 74',
  '---',
  "import Fact from '../../../src/components/Fact.astro';", // 5
  'export const meta = { order: 74 };',
  '',
  '<span data-ui="series">Kubernetes · 74</span>',
  '',
  '## Cluster:源地址被改写', //                                10
  '',
  '后端只在 worker(<Fact id="node.worker.ip"/>)上,访问 worker:<Fact id="service.s-cluster.nodePort" /> 时看到 client=<Fact id="cluster-via-worker.client"/>。',
  '',
  '<Measured steps="cluster-via-worker cluster-via-worker2">',
  '  控制面 172.18.0.3 → worker:31575', //                      15
  '</Measured>',
  '',
  '```yaml',
  'nodePort: 31575',
  '```', //                                                     20
  '',
  '控制面节点的 IP 是 172.18.0.3,curl rc=28,用时 3.1 秒,健康检查返回 HTTP 503,端口 31273,再访问 worker:31575。',
  '',
].join('\n');

/** 1-based column of `text` on 1-based `line` of the page. */
const col = (line: number, text: string) => page.split('\n')[line - 1]!.indexOf(text) + 1;

test('findFactReferences lists every <Fact id> and every step of <Measured steps>, with line and column', () => {
  assert.deepEqual(findFactReferences(page), [
    { kind: 'fact', id: 'node.worker.ip', line: 12, column: col(12, '<Fact id="node.worker.ip"') },
    { kind: 'fact', id: 'service.s-cluster.nodePort', line: 12, column: col(12, '<Fact id="service') },
    { kind: 'fact', id: 'cluster-via-worker.client', line: 12, column: col(12, '<Fact id="cluster') },
    { kind: 'step', id: 'cluster-via-worker', line: 14, column: 1 },
    { kind: 'step', id: 'cluster-via-worker2', line: 14, column: 1 },
  ]);
  // Inside fenced code and inline code a tag is text, not a reference.
  assert.deepEqual(findFactReferences('```mdx\n<Fact id="a.b"/>\n```\n\nUse `<Fact id="c.d"/>` to bind.\n'), []);
});

test('checkReferences names the file, line and id of unknown facts and steps, with a suggestion', () => {
  const problems = checkReferences(FILE, page, ['node.worker.ip', 'service.s-cluster.nodePort', 'cluster-via-worker.clients'], ['cluster-via-worker']);
  assert.deepEqual(
    problems.map((p) => p.message),
    [
      `${FILE}:12:${col(12, '<Fact id="cluster')}: <Fact id="cluster-via-worker.client">: unknown fact id "cluster-via-worker.client" (did you mean "cluster-via-worker.clients"?)`,
      `${FILE}:14:1: <Measured steps="...">: unknown step id "cluster-via-worker2" (did you mean "cluster-via-worker"?)`,
    ],
  );
  assert.deepEqual(
    problems.map((p) => [p.file, p.line, p.column]),
    [
      [FILE, 12, col(12, '<Fact id="cluster')],
      [FILE, 14, 1],
    ],
  );
  assert.deepEqual(
    checkReferences(FILE, 'x <Fact id="zzz.q"/>\n', ['node.worker.ip'], []).map((p) => p.message),
    [`${FILE}:1:3: <Fact id="zzz.q">: unknown fact id "zzz.q"`],
  );
  assert.deepEqual(
    checkReferences(FILE, 'a <Fact id={name}/> b\n\n<Measured>\nx\n</Measured>\n', [], []).map((p) => p.message),
    [`${FILE}:1:3: <Fact> needs a literal id="<fact id>" attribute`, `${FILE}:3:1: <Measured> needs a literal steps="<step id> ..." attribute`],
  );
  assert.deepEqual(
    checkReferences(FILE, page, ['node.worker.ip', 'service.s-cluster.nodePort', 'cluster-via-worker.client'], ['cluster-via-worker', 'cluster-via-worker2']),
    [],
  );
});

test('findUnboundValues reports typed values in prose, classified, and nothing that is bound or not prose', () => {
  const found = findUnboundValues(FILE, page);
  assert.deepEqual(
    found.map((f) => [f.line, f.text, f.kind]),
    [
      [22, '172.18.0.3', 'ip'],
      [22, '28', 'exit-code'],
      [22, '3.1', 'duration'],
      [22, '503', 'http-status'],
      [22, '31273', 'port'],
      [22, '31575', 'port'],
    ],
  );
  assert.equal(found[0]!.file, FILE);
  assert.equal(found[0]!.column, col(22, '172.18.0.3'));
  assert.equal(
    found[0]!.message,
    `${FILE}:22:${col(22, '172.18.0.3')}: unbound IP address "172.18.0.3" in "控制面节点的 IP 是 172.18.0.3,curl rc=28,用时 3.1 秒,健康检查返回 HTTP…" (bind it with <Fact id="..."/>, or mark interface chrome with data-ui)`,
  );
  assert.match(found[2]!.message, /unbound duration "3\.1" in ".*用时 3\.1 秒/);
});

test('English prose: durations in s and seconds, statuses, exit codes, ports after a host', () => {
  const source = 'The request to worker2:32459 timed out after 3.1 s; curl exited with exit code 28 after 3 seconds, and the check said HTTP 200 OK.\n';
  assert.deepEqual(
    findUnboundValues('en.mdx', source).map((f) => `${f.text}:${f.kind}`),
    ['32459:port', '3.1:duration', '28:exit-code', '3:duration', '200:http-status'],
  );
});

test('not prose: frontmatter, imports/exports, fenced code, comments, link targets, attribute values, list markers, names', () => {
  const source = [
    '---',
    'date: 2026-12-02',
    '---',
    'import X from "./x.ts";',
    'export const y = {',
    '  port: 30080,',
    '};',
    '',
    '~~~',
    'curl http://172.18.0.4:31575/',
    '~~~',
    '',
    '<!-- old value: 172.18.0.9 -->',
    '{/* TODO 31575 */}',
    'See [the kube-proxy source](https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/proxy/iptables/proxier.go#L1500).',
    '<Figure',
    '  width="640"',
    '  height={480}',
    '  caption="worker2">The worker2 and k8s nodes, KUBE-SEP-4AVAQD72RV5HY32P.</Figure>',
    '1. first step',
    '2) second step',
    '<div data-ui="step-counter">Step 3 of 5</div>',
    '<Provenance run="x">run 20261202 on 172.20.0.3</Provenance>',
    'Escaped &#8212; dash.',
    '',
  ].join('\n');
  assert.deepEqual(findUnboundValues('a.mdx', source), []);
});

test('still prose: inline code, headings, text inside ordinary elements, JSX expressions', () => {
  const source = ['## 3 个节点', 'Run `curl --max-time 3 http://x/`.', '<Callout>The pod got 10.244.1.178.</Callout>', 'Total {1 + 1}.', ''].join('\n');
  assert.deepEqual(
    findUnboundValues('b.mdx', source).map((f) => [f.line, f.text, f.kind]),
    [
      [1, '3', 'number'],
      [2, '3', 'number'],
      [3, '10.244.1.178', 'ip'],
      [4, '1', 'number'],
      [4, '1', 'number'],
    ],
  );
});

test('an allow-list of components binds their content; unclosed bound elements bind to the end', () => {
  const source = '<Stat>172.18.0.3</Stat> and <Other>31575</Other>\n';
  assert.deepEqual(
    findUnboundValues('c.mdx', source).map((f) => f.text),
    ['172.18.0.3', '31575'],
  );
  assert.deepEqual(
    findUnboundValues('c.mdx', source, { boundComponents: ['Stat'] }).map((f) => f.text),
    ['31575'],
  );
  assert.ok(BOUND_COMPONENTS.has('Fact') && BOUND_COMPONENTS.has('Measured'));
  assert.deepEqual(findUnboundValues('c.mdx', 'a 1\n<Measured steps="x">\n172.18.0.3\n'), [
    {
      file: 'c.mdx',
      line: 1,
      column: 3,
      text: '1',
      kind: 'number',
      context: 'a 1',
      message: 'c.mdx:1:3: unbound number "1" in "a 1" (bind it with <Fact id="..."/>, or mark interface chrome with data-ui)',
    },
  ]);
});

test('findNumericTokens skips digits inside names and classifies by context', () => {
  assert.deepEqual(findNumericTokens('worker2 k8s x86_64 KUBE-SVC-QPIWDHN5TQJEDX6Q s-lb'), []);
  assert.deepEqual(
    findNumericTokens('mark 0x4000, nginx:1.27-alpine, localEndpoints=1').map((t) => `${t.text}:${t.kind}`),
    ['0x4000:number', '1.27:port', '1:number'],
  );
  assert.deepEqual(
    findNumericTokens('10.244.0.0/16 via 172.18.0.2:30080, NodePort 31000, 退出码 0, 状态码 503, 120 ms').map((t) => `${t.text}:${t.kind}`),
    ['10.244.0.0/16:ip', '172.18.0.2:30080:ip', '31000:port', '0:exit-code', '503:http-status', '120:duration'],
  );
});

test('the lexer reads the same whichever way it reaches a place: list markers on every line of a long region, tags after long text, digits folded only where they are not ASCII', () => {
  const lines = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `${i}. item <Fact id="f${i}" /> text` : `plain text ${'x'.repeat(i % 50)} &amp; more`));
  const source = lines.join('\n');
  const refs = findFactReferences(source);
  assert.deepEqual(
    refs.map((r) => r.line),
    lines.map((_, i) => i + 1).filter((l) => (l - 1) % 3 === 0),
  );
  // The list markers are not prose, the digits in the ids are bound: nothing unbound.
  assert.deepEqual(findUnboundValues('f.mdx', source), []);
  // A scan handed in gives what the function's own scan gives.
  assert.deepEqual(findFactReferences(source, scanMdx(source)), refs);
  assert.deepEqual(
    findNumericTokens('等了 ３.０２ 秒, then ٣ and 12').map((t) => t.text),
    ['３.０２', '٣', '12'],
  );
});

test('the source check finds circled, Roman and other numerals (No, Nl) as it finds digits, and leaves 一 二 三 to the prose', () => {
  const problems = findUnboundValues('f.mdx', '第 ③ 个 Pod，罗马数字 Ⅲ，平方 ²，第三个\n');
  assert.deepEqual(
    problems.map((p) => p.text),
    ['③', 'Ⅲ', '²'],
  );
});

test('a <pre> put together from <Fact>s is refused: part of an output is shown with <Excerpt>, which marks what it leaves out', () => {
  const source = [
    '<figure class="code-figure">',
    '  <figcaption>three parts</figcaption>',
    '  <pre class="code-block"><code>chain filter-input {"{\\n  "}<Fact id="a.hook" />{"\\n  "}<Fact id="a.jump" />{"\\n}"}</code></pre>',
    '</figure>',
    '',
    '<pre><code>kubectl get pods</code></pre>',
    '',
    '<Excerpt step="a" blocks={[\'chain filter-input\']} facts="a.hook">three parts</Excerpt>',
    '',
  ].join('\n');
  assert.deepEqual(
    checkReferences(FILE, source, ['a.hook', 'a.jump'], ['a']).map((p) => p.message),
    [
      `${FILE}:3:3: <pre> holding <Fact>s shows part of a step's output by hand: use <Excerpt step="<step id>" blocks={[...]} or matching={[...]}>, which shows the lines as the run wrote them and marks every line left out`,
    ],
    'one line for the block, none for a <pre> of a command or for the <Excerpt>',
  );
});

test('a component written inside code is refused where it stands: backticks and code blocks, not prose or frontmatter', () => {
  const source = [
    '---',
    'title: `<Fact id="x" />` in a title is frontmatter, not code',
    '---',
    '',
    'The answer is `<Fact id="request.answer" />`, and again <Fact id="request.answer" />.',
    'A placeholder in a command is no component: `curl http://<NodeIP>:<NodePort>/`.',
    '',
    '```mdx',
    '<Measured steps="request" />',
    '```',
    '',
    'Two spans, ``<Cite id="a" />`` and `<Excerpt step="s">`.',
  ].join('\n');
  assert.deepEqual(
    componentsInCode('zh.mdx', source, ARTICLE_COMPONENTS).map((p) => p.message),
    [
      'zh.mdx:5:16: <Fact> inside inline code is shown as its source text, not rendered; take it out of the backticks',
      'zh.mdx:9:1: <Measured> inside a code block is shown as its source text, not rendered; take it out of the code block',
      'zh.mdx:12:14: <Cite> inside inline code is shown as its source text, not rendered; take it out of the backticks',
      'zh.mdx:12:37: <Excerpt> inside inline code is shown as its source text, not rendered; take it out of the backticks',
    ],
  );
  // The committed articles have none.
  for (const slug of ['074-external-traffic-policy', '075-local-uneven-weights', '076-internal-traffic-policy'])
    for (const name of ['zh.mdx', 'en.mdx', 'evidence.zh.mdx', 'evidence.en.mdx']) {
      const file = `content/articles/${slug}/${name}`;
      assert.deepEqual(componentsInCode(file, readFileSync(join(ROOT_DIR, file), 'utf8'), ARTICLE_COMPONENTS), [], file);
    }
});

test('the components refused inside code are those ArticleBody gives the MDX, and Fact', () => {
  const body = readFileSync(join(ROOT_DIR, 'src/components/evidence/ArticleBody.astro'), 'utf8');
  const given = /<Content components=\{\{([^}]*)\}\}/
    .exec(body)![1]!
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  assert.deepEqual([...ARTICLE_COMPONENTS].sort(), ['Fact', ...given].sort());
});
