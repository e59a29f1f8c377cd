// The MDX's <Fact>, bound as the MDX compiles (src/article/render/mdx-facts.ts):
// the articles' own MDX files, compiled by the MDX pipeline the site uses and
// rendered by Astro's JSX runtime, bind each value as Fact.astro writes it
// (fact-html.ts's factHtml), and a value is text however it reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { load } from 'js-yaml';
import { satteri, type SatteriProcessorOptions } from '@astrojs/markdown-satteri';
import { renderJSX } from 'astro/runtime/server/jsx.js';
import { factBinding } from '../../src/article/render/mdx-facts.ts';
import { factElement, factHtml, type DeclaredLabels, type RunBinding } from '../../src/article/render/fact-html.ts';
import { boundFact } from '../../src/article/render/context.ts';
import { loadArticle } from '../../src/authoring/load.ts';
import { evidenceFromDisk } from '../../src/evidence/runs/from-disk.ts';
import { measuredRuns } from '../../src/evidence/runs/environments.ts';
import type { ArticleEvidence } from '../../src/evidence/runs/types.ts';
import type { Fact } from '../../src/evidence/facts.ts';
import { scanMdx } from '../../src/evidence/mdx-scan.ts';
import { findElements, parseHtml, type HtmlNode } from '../../bench/plain/html-tree.ts';
import { S074, S075 } from '../support/articles.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const JSX_RUNTIME = import.meta.resolve('astro/jsx-runtime');
type HastPlugins = NonNullable<SatteriProcessorOptions['hastPlugins']>;

/** An MDX file compiled as the site compiles it (with `plugins`), rendered with each component as a plain <div>. */
async function renderMdx(path: string, file: string, plugins: HastPlugins): Promise<string> {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(file);
  const frontmatter = m ? (load(m[1]!) as Record<string, unknown>) : {};
  const renderer = await satteri({ hastPlugins: plugins }).createMdxRenderer!(
    { syntaxHighlight: false },
    { optimize: false, srcDir: new URL('src/', pathToFileURL(root)), sourcemap: false },
  );
  const { code } = await renderer.process(m ? file.slice(m[0].length) : file, path, frontmatter);
  const module = (await import(
    `data:text/javascript,${encodeURIComponent(`${code.replaceAll('"astro/jsx-runtime"', JSON.stringify(JSX_RUNTIME))}\nexport default MDXContent;`)}`
  )) as {
    default: (props: { components: Record<string, string> }) => unknown;
  };
  const components = Object.fromEntries(
    scanMdx(file)
      .tags.filter((t) => /^[A-Z]/.test(t.name) && t.name !== 'Fact')
      .map((t) => [t.name, 'div']),
  );
  return String(await renderJSX({} as never, module.default({ components })));
}

/** The elements that carry data-fact, in the order of the page, parsed (attributes and text decoded). */
const boundElements = (html: string): HtmlNode[] => findElements(parseHtml(html), (e) => e.attributes.some((a) => a.name === 'data-fact'));

/** The same elements in the same order; a difference is shown for the first element that differs. */
function assertSameElements(actual: HtmlNode[], expected: HtmlNode[], what: string): void {
  const at = expected.findIndex((e, i) => JSON.stringify(e) !== JSON.stringify(actual[i]));
  if (at >= 0) assert.deepEqual(actual[at], expected[at], `${what}: element ${at + 1} of ${expected.length}`);
  assert.equal(actual.length, expected.length, `${what}: bound elements`);
}

async function evidenceOf(slug: string): Promise<ArticleEvidence> {
  return evidenceFromDisk(slug, join(root, 'content/articles', slug, 'snapshots'), await loadArticle(root, slug), { variants: true });
}

test("every <Fact> of the articles' MDX is bound as the pipeline compiles it, to the markup Fact.astro writes for it", async () => {
  let bound = 0;
  for (const slug of [S074, S075]) {
    const evidence = await evidenceOf(slug);
    for (const name of ['zh.mdx', 'en.mdx', 'evidence.zh.mdx', 'evidence.en.mdx']) {
      const file = `content/articles/${slug}/${name}`;
      const source = readFileSync(join(root, file), 'utf8');
      const lang = /^lang: (zh|en)$/m.exec(source)![1] as 'zh' | 'en';
      const html = await renderMdx(join(root, file), source, [factBinding()]);
      // What Fact.astro writes for each <Fact> of the file, in its order.
      const expected = scanMdx(source)
        .tags.filter((t) => t.name === 'Fact' && !t.closing)
        .map((t) => {
          const attribute = (n: string) => t.attributes.find((a) => a.name === n)?.value ?? undefined;
          const ref = { environment: attribute('environment'), variant: attribute('variant') };
          const { fact, binding, declared } = boundFact({ evidence, lang, file }, attribute('id'), ref);
          return factHtml(fact, binding, declared);
        });
      assert.ok(expected.length > 0, `${file} binds values`);
      assert.equal(html.includes('<Fact') || html.includes('<fact'), false, file);
      assertSameElements(boundElements(html), expected.flatMap(boundElements), file);
      bound += expected.length;
    }
  }
  // Values of other runs (variant=, environment=) and declared ones among them.
  assert.ok(bound > 100, `${bound} values bound`);
});

/** The hast form of each value, written by the MDX pipeline: <V i="n" /> is values[n]. */
async function pipelineHtml(values: Array<{ fact: Fact; binding?: RunBinding; declared?: DeclaredLabels }>): Promise<string> {
  const plugin = {
    name: 'test-values',
    mdxJsxTextElement: {
      filter: ['V'],
      visit: (node: { attributes: ReadonlyArray<{ name?: string; value?: unknown }> }) => {
        const v = values[Number(node.attributes.find((a) => a.name === 'i')!.value)]!;
        return factElement(v.fact, v.binding, v.declared);
      },
    },
  };
  return renderMdx('/nowhere/values.mdx', values.map((_, i) => `a <V i="${i}" /> b`).join('\n\n'), [plugin]);
}

test('the hast form of a value is the string form: every fact of every committed run, bound to any run, declared or not', async () => {
  const facts: Fact[] = [];
  for (const slug of [S074, S075]) for (const run of measuredRuns(await evidenceOf(slug))) facts.push(...run.evidence.facts.values());
  const declared = { mark: '声明', title: '实验清单里声明的值，不是测量结果：' };
  const values = facts.flatMap((fact, i) => [
    { fact },
    i % 2 ? { fact, binding: { environment: 'lab', variant: 'nftables', run: 'r-1' }, declared } : { fact, declared },
  ]);
  assert.ok(
    values.some((v) => /\s/.test(v.fact.value) && v.fact.value.includes('-')),
    'code values with flags among them',
  );
  const html = await pipelineHtml(values);
  assertSameElements(
    boundElements(html),
    values.flatMap((v) => boundElements(factHtml(v.fact, v.binding, v.declared))),
    'every fact',
  );
});

test('a value is text however it reads: the pipeline escapes its text and its attributes', async () => {
  const hostile: Fact = {
    id: 'x.<b>"id"</b>',
    step: 'x&y',
    value: `<script>alert("it's")</script> & -j "DROP"`,
    raw: '"><img src=x onerror=alert(1)>',
    declared: { file: 'manifests/"a".yaml' },
  };
  const html = await pipelineHtml([{ fact: hostile, binding: { environment: '"lab"', run: "r'1" }, declared: { mark: '<m>', title: 'T "q" ' } }]);
  // Written inside a quoted attribute or as text: the page has no element the value named.
  assert.deepEqual([...new Set(findElements(parseHtml(html), () => true).map((e) => e.name))], ['p', 'span'], html);
  assert.deepEqual(boundElements(html), boundElements(factHtml(hostile, { environment: '"lab"', run: "r'1" }, { mark: '<m>', title: 'T "q" ' })));
  const [element] = boundElements(html) as Array<{ attributes: Array<{ name: string; value: string | null }> }>;
  assert.deepEqual(Object.fromEntries(element!.attributes.map((a) => [a.name, a.value])), {
    class: 'wraps code declared',
    'data-fact': hostile.id,
    'data-step': hostile.step,
    'data-raw': hostile.raw,
    'data-declared': hostile.declared!.file,
    'data-mark': '<m>',
    title: `T "q" ${hostile.declared!.file}`,
    'data-environment': '"lab"',
    'data-run': "r'1",
  });
});

test('a <Fact> the article cannot bind stops the compile, naming the file, the place and what is wrong; other MDX is left alone', async () => {
  const path = join(root, 'content/articles', S074, 'en.mdx');
  await assert.rejects(
    renderMdx(path, '---\nlang: en\n---\nA port: <Fact id="no.such.fact" />.\n', [factBinding()]),
    new RegExp(`^.*content/articles/${S074}/en\\.mdx:1:\\d+: <Fact id="no\\.such\\.fact">: no such fact`, 's'),
  );
  await assert.rejects(
    renderMdx(path, '---\nlang: en\n---\nA node: <Fact id="node.worker.ip" variant={"nftables"} />.\n', [factBinding()]),
    /en\.mdx:1:\d+: <Fact variant=\{\.\.\.\}>: expected literal attributes/,
  );
  await assert.rejects(
    renderMdx(path, '---\nlang: en\n---\nA node: <Fact id="node.worker.ip" environment="nowhere" />.\n', [factBinding()]),
    /en\.mdx:1:\d+: <Fact>.*nowhere/s,
  );
  // Outside content/articles/<slug>/ a <Fact> is a component like any other: here, none is given.
  await assert.rejects(
    renderMdx(join(root, 'content/elsewhere.mdx'), 'A <Fact id="node.worker.ip" />.\n', [factBinding()]),
    /Expected component `Fact` to be defined/,
  );
});
