import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLineTemplates, parseTemplate, renderLine, assertLineTemplates, type LineTemplates } from '../../src/evidence/template.ts';
import { deriveFacts } from '../../src/evidence/facts.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { withRunFacts } from '../../src/evidence/run-facts.ts';
import { linesOfVariant } from '../../src/evidence/runs/variants.ts';
import { experimentForVariant } from '../../src/experiment/variants.ts';
import { SNAPSHOT_SAMPLE_DIR } from '../fixtures/samples/read-sample.ts';
import { article074 } from '../support/articles.ts';

/** The measured lines of article 074's default run (iptables). */
const lines = linesOfVariant(article074.lines, article074.experiment, 'iptables');

/** The facts of article 074's default run (iptables): the common ones and that variant's own. */
const articleFacts = [...article074.factDefs, ...article074.variantFactDefs!.iptables!];

/** Article 074's default run: kube-proxy in iptables mode. */
const experiment = experimentForVariant(article074.experiment, 'iptables');

const sample = loadSnapshots(SNAPSHOT_SAMPLE_DIR);
/** What the build derives: the article's facts and the run's. */
const facts = deriveFacts(withRunFacts(articleFacts, sample.run), sample);
const stepIds = experiment.steps.map((s) => s.id);
const context = { file: 'article.ts', factIds: [...facts.keys()], stepIds };

test('parseTemplate splits text and {fact.id} placeholders; {{ and }} are literal braces', () => {
  assert.deepEqual(parseTemplate('rc={local-via-worker2.rc}(用时 {local-via-worker2.seconds} 秒)'), [
    { kind: 'text', text: 'rc=' },
    { kind: 'fact', id: 'local-via-worker2.rc' },
    { kind: 'text', text: '(用时 ' },
    { kind: 'fact', id: 'local-via-worker2.seconds' },
    { kind: 'text', text: ' 秒)' },
  ]);
  assert.deepEqual(parseTemplate('{{"localEndpoints": {health-worker.localEndpoints}}}'), [
    { kind: 'text', text: '{"localEndpoints": ' },
    { kind: 'fact', id: 'health-worker.localEndpoints' },
    { kind: 'text', text: '}' },
  ]);
  assert.deepEqual(parseTemplate(''), []);
});

test('parseTemplate refuses malformed placeholders, saying where', () => {
  assert.throws(
    () => parseTemplate('client={cluster-via-worker.client'),
    /^Error: at column 8: expected \{<fact id>\} \(or \{\{ for a literal brace\), got "\{cluster-via-worker\."$/,
  );
  assert.throws(() => parseTemplate('a {not an id} b'), /at column 3: expected \{<fact id>\} .* got "\{not an id\}"/);
  assert.throws(() => parseTemplate('a } b'), /at column 3: a lone "\}" \(write \}\} for a literal brace\)/);
});

test("article 074's line templates cover every step in both languages and use only known facts", () => {
  assert.deepEqual(checkLineTemplates(lines, context), []);
  assert.deepEqual(Object.keys(lines).sort(), [...stepIds].sort());
});

test('checkLineTemplates names the step and language of an unknown id, a typed digit, a missing language or step', () => {
  const broken: LineTemplates = {
    ...lines,
    'health-worker': { zh: 'HTTP {health-worker.statu}', en: 'HTTP 200, localEndpoints={health-worker.localEndpoints}' },
    'delete-backend': { zh: '删除后端', en: '' },
    'no-such-step': { zh: 'x', en: 'x' },
  };
  delete (broken as Record<string, unknown>)['health-worker2'];
  assert.deepEqual(checkLineTemplates(broken, context), [
    'article.ts: step "health-worker2": no measured line (expected zh and en templates)',
    'article.ts: step "health-worker" (zh): unknown fact id "health-worker.statu"',
    'article.ts: step "health-worker" (en): the text has a HTTP status "200" typed in; use a {fact.id} placeholder',
    'article.ts: step "delete-backend" (en): missing template',
    `article.ts: step "no-such-step": not a step of the experiment (steps: ${stepIds.join(', ')})`,
  ]);
  assert.throws(() => assertLineTemplates(broken, context), { name: 'EvidenceError' });
  // Names with digits (worker2) are not measured values.
  assert.deepEqual(
    checkLineTemplates({ ...lines, 'health-worker2': { zh: 'worker2 → HTTP {health-worker2.status}', en: 'worker2: HTTP {health-worker2.status}' } }, context),
    [],
  );
});

test('renderLine fills placeholders with facts, keeping their provenance', () => {
  const rendered = renderLine(lines, 'local-via-worker2', 'zh', facts);
  const factSegments = rendered.flatMap((s) => (s.kind === 'fact' ? [s.fact] : []));
  assert.deepEqual(
    factSegments.map((f) => f.id),
    ['node.worker2.ip', 'service.s-local.nodePort', 'local-via-worker2.timeout', 'local-via-worker2.rc', 'local-via-worker2.seconds'],
  );
  assert.equal(factSegments[3]!.value, '28');
  assert.equal(factSegments[3]!.step, 'local-via-worker2');
  assert.equal(factSegments[0]!.step, 'run');
  assert.ok(factSegments[4]!.raw);
  const text = rendered.map((s) => (s.kind === 'text' ? s.text : s.fact.value)).join('');
  assert.ok(text.includes(`${facts.get('node.worker2.ip')!.value}:${facts.get('service.s-local.nodePort')!.value}`));
  assert.throws(() => renderLine(lines, 'no-such-step', 'en', facts), /^EvidenceError: article\.ts: step "no-such-step" \(en\): no measured line$/);
  assert.throws(() => renderLine({ x: { zh: '{a.b}', en: '' } }, 'x', 'zh', facts), /article\.ts: step "x" \(zh\): unknown fact id "a\.b"/);
});
