// The Chinese copywriting check: real samples from the published original (whose
// export folded its punctuation to ASCII) fail it with file:line:column; the fix
// mode repairs prose and leaves code, tags and bound values alone; and every piece
// of the site's Chinese (article, measured lines, walkthrough, UI strings, the run's
// own description) passes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { checkChineseMdx, checkChineseProse, fixChineseCopy, mdxProse, templateProse } from '../../src/article/check/zh-copy.ts';
import { ui } from '../../src/i18n/ui.ts';
import { evidenceStrings } from '../../src/i18n/evidence.ts';
import { site } from '../../src/site.config.ts';
import { article074 } from '../support/articles.ts';
import { findStops } from '../../src/article/check/check-article.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

const ARTICLE = 'content/articles/074-external-traffic-policy';

// Lines of the published original as the export left them (ASCII punctuation).
const SEED = [
  '## Cluster:源地址被改写',
  '',
  'externalTrafficPolicy 到底改变了什么?为什么设成 Local 能保留客户端 IP?代价是什么?',
  '改成 Local 后,访问有后端的 worker,后端看到真实的 client=<Fact id="local-via-worker.client" />。',
  '',
  '```yaml',
  'externalTrafficPolicy: Local   # a manifest, never checked',
  '```',
  '',
  '访问 `worker:31575` 时(有后端)用时 <Fact id="cluster-via-worker.seconds" /> 秒',
].join('\n');

test("the seed's ASCII punctuation fails, each problem named by file, line and column", () => {
  const problems = checkChineseMdx('zh.mdx', SEED);
  assert.ok(problems.includes('zh.mdx:1:11: half-width ":" in Chinese text: write "：" (fix: npm run lint:zh -- --fix)'), problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('zh.mdx:3:') && p.includes('"?"')));
  assert.ok(problems.some((p) => p.startsWith('zh.mdx:4:') && p.includes('","')));
  assert.ok(problems.some((p) => p.startsWith('zh.mdx:10:') && p.includes('"("')));
  // Nothing from the code block or inside the inline code.
  assert.ok(!problems.some((p) => /^zh\.mdx:[678]:/.test(p)), problems.join('\n'));
});

test('missing space between Chinese and Latin letters or digits is a problem; a space present is not', () => {
  assert.equal(checkChineseProse('worker上有3个后端。').length, 1);
  assert.deepEqual(checkChineseProse('worker 上有 3 个后端。'), []);
});

test('code, manifests, JSX attributes and bound values are not prose', () => {
  const source =
    '<Measured steps="a b">\n对照：地址是 <Fact id="node.control-plane.ip" />。\n</Measured>\n\n<p><code>-A X -m comment --comment "a,b" -j DROP</code></p>\n\n```sh\ncurl -s a:1,b\n```\n';
  assert.deepEqual(checkChineseMdx('x.mdx', source), []);
  assert.equal(mdxProse(source).length, source.length, 'masking keeps every position');
});

test('--fix makes the seed pass and touches neither code nor tags', () => {
  let fixed = SEED;
  for (let round = 0; round < 3; round++) fixed = fixChineseCopy(fixed, mdxProse(fixed));
  assert.deepEqual(checkChineseMdx('zh.mdx', fixed), []);
  const lines = fixed.split('\n');
  assert.equal(lines[0], '## Cluster：源地址被改写');
  assert.equal(lines[3], '改成 Local 后，访问有后端的 worker，后端看到真实的 client=<Fact id="local-via-worker.client" />。');
  assert.equal(lines[6], 'externalTrafficPolicy: Local   # a manifest, never checked');
  assert.equal(lines[9], '访问 `worker:31575` 时（有后端）用时 <Fact id="cluster-via-worker.seconds" /> 秒');
});

test('the committed zh.mdx passes', () => {
  const file = `${ARTICLE}/zh.mdx`;
  assert.deepEqual(checkChineseMdx(file, readFileSync(file, 'utf8')), []);
});

test("the measured lines and the walkthrough's Chinese pass", () => {
  const { lines, walkthrough = [] } = article074;
  assert.ok(Object.keys(lines).length > 0 && walkthrough.length > 0, 'article 074 has measured lines and a walkthrough');
  for (const [step, byLang] of Object.entries(lines)) {
    assert.deepEqual(checkChineseProse(templateProse(byLang.zh)), [], `article.ts lines ${step}`);
  }
  // The stops' prose is zh.mdx's, checked with the rest of it; their titles are attributes, checked here.
  const stops = findStops(readFileSync(join(root, 'content/articles/074-external-traffic-policy/zh.mdx'), 'utf8'));
  assert.deepEqual(
    stops.map((s) => s.id),
    walkthrough.map((s) => s.id),
  );
  for (const stop of stops) assert.deepEqual(checkChineseProse(stop.title ?? ''), [], `walkthrough ${stop.id} title`);
});

test("every Chinese string of the site's interface passes (UI, evidence blocks, 404, home)", () => {
  const strings: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect(ui('zh'));
  collect(evidenceStrings('zh'));
  collect([site.title.zh, site.description.zh]);
  assert.ok(strings.length > 40);
  for (const s of strings) assert.deepEqual(checkChineseProse(templateProse(s)), [], s);
});

test("the run's own description of its environment passes in Chinese", () => {
  const run = load(readFileSync(`${ARTICLE}/snapshots/run.yaml`, 'utf8')) as {
    environment: { summary: { zh: string }; standsFor: { zh: string }; limits: { zh: string }[] };
  };
  for (const text of [run.environment.summary.zh, run.environment.standsFor.zh, ...run.environment.limits.map((l) => l.zh)]) {
    assert.deepEqual(checkChineseProse(text), [], text);
  }
});

test('a link component around Chinese words is neither a word nor a gap: no spacing problem after full-width punctuation', () => {
  const link = '没有测；<ArticleLink slug="075-local-uneven-weights">下一篇</ArticleLink>把它测了出来。\n';
  assert.deepEqual(checkChineseProse(mdxProse(link)), []);
  assert.equal(mdxProse(link).length, link.length, 'positions are kept');
  // Text around the tag is still checked as usual.
  assert.equal(checkChineseProse(mdxProse('没有测, <ArticleLink slug="x">下一篇</ArticleLink>\n')).length, 1);
});
