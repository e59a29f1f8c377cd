// The rule for numbers on the rendered page (src/article/check/rendered-numbers.ts):
// each way of writing a number into an MDX file, as the build renders it, is
// found; what is bound, declared or <NotMeasured> passes. The HTML below is
// what `npm run build` wrote for article 075 (and, for the ways of writing, for
// a copy of its en.mdx given those lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntities, htmlTextRuns } from '../../src/article/check/html-text.ts';
import { assertRenderedNumbersBound, unboundRenderedNumbers, type BoundValue } from '../../src/article/check/rendered-numbers.ts';
import { findNumericTokens } from '../../src/evidence/numbers.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';

const FILE = 'content/articles/075-local-uneven-weights/en.mdx';
const FACTS = new Map([
  ['pod.web.count', '3'],
  ['declared.web.replicas', '3'],
  ['run.kubeProxyMode', 'iptables'],
]);
const VARIANT_FACTS = new Map([
  ['nftables', new Map([['run.kubeProxyMode', 'nftables']])],
  ['lab/', new Map([['run.driver', 'lab']])],
  ['lab/nftables', new Map([['run.kubeProxyMode', 'nftables']])],
]);
const bound: BoundValue = (id, run) =>
  (run.environment === undefined && run.variant === undefined
    ? FACTS
    : VARIANT_FACTS.get(run.environment === undefined ? run.variant! : `${run.environment}/${run.variant ?? ''}`)
  )?.get(id);
const check = (html: string) => unboundRenderedNumbers(FILE, html, bound);

const BOUND = '<p>The API reported <span data-fact="pod.web.count" data-step="run">3</span> pods.</p>';
const DECLARED =
  '<p>A Deployment of <span class="declared" data-fact="declared.web.replicas" data-step="declared" data-declared="manifests/web.yaml" data-mark="declared" title="A value the experiment declares, not a measurement: manifests/web.yaml">3</span> replicas</p>';
const NOT_MEASURED =
  '<p>the <span class="not-measured" data-not-measured data-mark="not measured" title="A number named in passing, not a measurement">1</span>st went to the preferred node</p>';
const VARIANT = '<p>mode <span data-fact="run.kubeProxyMode" data-step="run" data-variant="nftables" data-run="20261202T203651Z-75150b">nftables</span></p>';
const CLAIM =
  '<figure class="measured" data-measured="spread-local"><details class="measured-claims"><summary>Claims</summary><ul><li data-claim="nodes-get-equal-traffic" data-claim-status="holds"><span class="claim-status claim-holds">holds</span> every request got an HTTP 200 answer</li></ul></details></figure>';
const CODE =
  '<pre class="astro-code hl0" tabindex="0" data-language="shellsession"><code><span class="hl2">control-plane$ curl --max-time 2 http://172.18.0.2:31480/</span></code></pre>';

test("bound, declared, <NotMeasured>, a variant's value, a claim's statement and a code block pass", () => {
  for (const html of [BOUND, DECLARED, NOT_MEASURED, VARIANT, CLAIM, CODE, '<p>worker2 and k8s are names, 两个节点 and 第一次 are words</p>'])
    assert.deepEqual(check(html), [], html);
});

test('an MDX export, an expression and a character reference render as a typed-in 3, and each is found', () => {
  // en.mdx: `export const typed = 3` then: The export gives {typed} pods, the expression {"abc".length} pods, the reference &#51; pods and done.
  const problems = check('<p>The export gives 3 pods, the expression 3 pods, the reference 3 pods and done.</p>');
  assert.equal(problems.length, 3);
  assert.match(
    problems[0]!,
    /^content\/articles\/075-local-uneven-weights\/en\.mdx: the rendered page shows an unbound number "3" in "The export gives 3 pods, the expression 3 pods,…" \(bind it with <Fact id="..."\/>, mark a number that is no measurement with <NotMeasured>, or interface chrome with data-ui\)$/,
  );
});

test('a character reference still in the HTML is read as the browser shows it', () => {
  for (const html of ['<p>the reference &#51; pods</p>', '<p>hex &#x33; pods</p>', '<p>half &frac12; a node</p>', '<p title="&#51; pods">x</p>']) {
    assert.equal(check(html).length, 1, html);
  }
  assert.match(check('<p title="&#51; pods">x</p>')[0]!, /unbound number "3" in attribute title of <p>/);
  assert.equal(decodeEntities('&#51;&#x33;&sup2;&amp;&unknown;'), '33²&&unknown;');
});

test('numerals of other scripts and kinds are numbers: Arabic-Indic, Devanagari, full-width, circled, Roman, superscript', () => {
  for (const numeral of ['٣', '३', '３', '③', 'Ⅲ', '²', '½', '𝟛']) {
    assert.equal(check(`<p>we saw ${numeral} pods</p>`).length, 1, numeral);
  }
  // The CJK ideographs 一 二 三 and 〇 are words of Chinese prose, not typed-in figures.
  assert.deepEqual(findNumericTokens('三个 Pod 分在两个节点上，二〇二六年'), []);
});

test("a data-fact written into the MDX by hand is no binding: its text must be the fact's value", () => {
  assert.deepEqual(check('<p>A forged binding: <span data-fact="pod.web.count">4</span> pods.</p>'), [
    `${FILE}: the rendered page shows "4" in an element with data-fact="pod.web.count", but that fact's value is "3" (bind values with <Fact id="..."/>, never by writing data-fact)`,
  ]);
  assert.match(check('<span data-fact="made.up">7</span>')[0]!, /data-fact="made.up", but the run has no such fact/);
  assert.match(check('<span data-fact="run.kubeProxyMode" data-variant="ipvs">ipvs</span>')[0]!, /data-variant="ipvs", but the run has no such fact/);
});

test("a value of another environment's run is read in that run: its own value passes, another run's is named with both attributes", () => {
  assert.deepEqual(check('<span data-fact="run.driver" data-environment="lab" data-run="r">lab</span>'), []);
  assert.deepEqual(check('<span data-fact="run.kubeProxyMode" data-environment="lab" data-variant="nftables" data-run="r">nftables</span>'), []);
  assert.match(
    check('<span data-fact="run.driver" data-environment="lab" data-run="r">kind</span>')[0]!,
    /shows "kind" in an element with data-fact="run.driver" data-environment="lab", but that fact's value is "lab"/,
  );
  assert.match(check('<span data-fact="run.driver" data-environment="kind">kind</span>')[0]!, /data-environment="kind", but the run has no such fact/);
});

test('prose a bound component wraps is checked too, and text in scripts, styles and comments is none', () => {
  assert.equal(check('<figure data-measured="a"><div class="measured-note">port 8080 here</div></figure>').length, 1);
  assert.deepEqual(check('<style>.a{width:3px}</style><script>let n = 3</script><!-- 3 --><p>ok</p>'), []);
  // An end tag in capitals ends the script as a browser ends it; the text after it is checked again.
  assert.deepEqual(check('<SCRIPT>let n = 3</SCRIPT><p>ok</p>'), []);
  assert.equal(check('<script>let n = 3</Script><p>4 nodes</p>').length, 1);
});

test('the assertion throws every problem at once, one line each', () => {
  assert.doesNotThrow(() => assertRenderedNumbersBound(FILE, BOUND, bound));
  assert.throws(
    () => assertRenderedNumbersBound(FILE, '<p>3 and ٣</p>', bound),
    (e: unknown) => e instanceof EvidenceError && e.problems.length === 2,
  );
});

test('text runs carry their ancestors; void and self-closing elements close themselves', () => {
  const runs = htmlTextRuns('<p>a<br>b<img alt="x"/><span data-ui>c</span></p>');
  assert.deepEqual(
    runs.map((r) => [r.text, r.ancestors.map((e) => e.name).join('>')]),
    [
      ['a', 'p'],
      ['b', 'p'],
      ['c', 'p>span'],
    ],
  );
  // A reader attribute is a run of its own, at the offset of its value, its element last among its ancestors.
  const html = '<p>a<img alt="3 pods" title=x></p>';
  const alt = htmlTextRuns(html, new Set(['alt'])).find((r) => r.attribute === 'alt')!;
  assert.equal(alt.text, '3 pods');
  assert.equal(html.slice(alt.offset, alt.offset + alt.text.length), '3 pods');
  assert.deepEqual(
    alt.ancestors.map((e) => e.name),
    ['p', 'img'],
  );
});
