// Many answers counted (src/evidence/extract/answers.ts), article 075's model
// of what each pod should get, the chart drawn from its facts (src/article/render/chart.ts),
// all on the committed snapshots of a real run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { binomialExpectation, countWhere, parseAnswers, share } from '../../src/evidence/extract/answers.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { deriveFacts } from '../../src/evidence/facts.ts';
import { evaluateClaims } from '../../src/evidence/claims.ts';
import { chartHtml } from '../../src/article/render/chart.ts';
import { withRunFacts } from '../../src/evidence/run-facts.ts';
import { podsByRole } from '../../content/articles/075-local-uneven-weights/article.ts';
import { article075 } from '../support/articles.ts';

const { factDefs: facts, claimDefs: claims, charts } = article075;

const SNAPSHOTS = fileURLToPath(new URL('../../content/articles/075-local-uneven-weights/snapshots/', import.meta.url));
const stdoutOf = (step: string): string => (load(readFileSync(`${SNAPSHOTS}${step}.yaml`, 'utf8')) as { stdout: string }).stdout;

test('answers: one line per request, counted by who answered and by the node asked', () => {
  const answers = parseAnswers(stdoutOf('spread-local'));
  const requests = answers.length;
  assert.ok(requests > 0);
  assert.equal(countWhere(answers, 'status', '200'), requests, 'the committed run answered every request');
  const names = new Set(answers.map((a) => a.who));
  assert.equal(names.size, 3, 'three pods answered, each with its own name');
  assert.deepEqual(
    parseAnswers('web-a 200 172.18.0.2\n 000 \n'),
    [
      { who: 'web-a', status: '200', via: '172.18.0.2' },
      { who: '', status: '000', via: '' },
    ],
    'a failed request is a line too',
  );
  assert.throws(() => parseAnswers('web-a 200 172.18.0.2\n<html>\n'), /^ExtractError: stdout line 2: expected "<name> <HTTP status> <address>", got "<html>"$/);
});

test('shares and binomial bounds', () => {
  assert.deepEqual(share(1, 3), { value: '33.3%', raw: String(1 / 3) });
  assert.throws(() => share(1, 0), /needs a total above 0/);
  const third = binomialExpectation(600, 1 / 3, 4);
  assert.equal(third.expected, 200);
  assert.equal(third.bound, Math.ceil(4 * Math.sqrt(600 * (1 / 3) * (2 / 3))));
  assert.deepEqual(binomialExpectation(300, 1, 4), { expected: 300, sd: 0, bound: 0 }, 'certainty leaves no tolerance');
  assert.equal(binomialExpectation(2400, 1 / 3, 4).bound / 2400 < third.bound / 600, true, 'more requests, a narrower band as a share');
  assert.throws(() => binomialExpectation(10, 2, 4), /expected n ≥ 0, 0 ≤ p ≤ 1, k > 0/);
});

test("article 075: roles come from the API's placement, the claims hold on the committed run and break on a shifted one", () => {
  const snapshots = loadSnapshots(SNAPSHOTS);
  const roles = podsByRole(snapshots.run);
  assert.equal(roles['shared-1'].node, roles['shared-2'].node);
  assert.notEqual(roles.lone.node, roles['shared-1'].node);
  const derived = deriveFacts(
    withRunFacts(
      facts.filter((d) => !d.optional),
      snapshots.run,
    ),
    snapshots,
  );
  const results = evaluateClaims(claims, derived, (s) => s);
  for (const r of results) assert.equal(r.status, 'holds', `${r.id}: ${JSON.stringify(r)}`);
  // The same run with the lone pod's answers handed to a shared pod: the Local claims break.
  const moved = new Map(derived);
  const v = (id: string) => Number(moved.get(id)!.value);
  moved.set('spread-local.count.lone', { ...moved.get('spread-local.count.lone')!, value: String(v('spread-local.count.shared-1')) });
  const broken = evaluateClaims(claims, moved, (s) => s)
    .filter((r) => r.status !== 'holds')
    .map((r) => r.id);
  assert.deepEqual(broken.sort(), ['local-lone-pod-gets-more', 'local-shares-by-node']);
  // Placement that is not two and one is refused with one line.
  const flat = { ...snapshots.run, pods: snapshots.run.pods.map((p) => ({ ...p, node: 'worker' })) };
  assert.throws(() => podsByRole(flat), /^ExtractError: expected the web-… pods placed 1 and 2 per node in run\.yaml, found worker: 3$/);
  // One more pod on a third node is not the placement either, nor are two nodes of one pod each.
  const third = { ...snapshots.run, pods: [...snapshots.run.pods, { ...roles.lone, name: 'web-extra', node: 'control-plane' }] };
  assert.throws(() => podsByRole(third), /placed 1 and 2 per node in run\.yaml, found .*control-plane: 1/);
  const even = { ...snapshots.run, pods: snapshots.run.pods.filter((p) => p.name !== roles['shared-2'].name) };
  assert.throws(() => podsByRole(even), /placed 1 and 2 per node in run\.yaml, found \S+: 1, \S+: 1$/);
});

test('the chart: one bound bar value per pod and policy, the same values in a table, hidden SVG', () => {
  const snapshots = loadSnapshots(SNAPSHOTS);
  const derived = deriveFacts(
    withRunFacts(
      facts.filter((d) => !d.optional),
      snapshots.run,
    ),
    snapshots,
  );
  for (const lang of ['zh', 'en'] as const) {
    const html = chartHtml(charts[0]!, derived, lang);
    assert.match(html, /<svg class="chart-svg"[^>]*aria-hidden="true"/);
    for (const policy of ['cluster', 'local']) {
      for (const role of ['lone', 'shared-1', 'shared-2']) {
        const id = `spread-${policy}.share.${role}`;
        const value = derived.get(id)!.value;
        assert.ok(
          html.includes(`<text class="chart-value"`) && new RegExp(`<text [^>]*data-fact="${id.replaceAll('.', '\\.')}"[^>]*>${value}</text>`).test(html),
          `${lang}: the bar of ${id}`,
        );
        assert.ok(html.includes(`<td><span data-fact="${id}" data-step="spread-${policy}" data-raw=`), `${lang}: the table cell of ${id}`);
      }
    }
    assert.ok(!/>[^<]*\d[^<]*</.test(html.replace(/<(text|tspan|span) [^>]*data-fact[^>]*>[^<]*<\/\1>/g, '')), `${lang}: no digit outside a bound element`);
  }
  const missing = new Map(derived);
  missing.delete('spread-local.share.lone');
  assert.throws(
    () => chartHtml(charts[0]!, missing, 'en'),
    /^Error: chart "shares": no fact "spread-local\.share\.lone" in this article's article\.ts, nor one every run has$/,
  );
});
