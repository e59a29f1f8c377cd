import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import {
  ARTICLE_BODY_PATH,
  benchConfig,
  BENCH_CONFIG,
  OG_CARD_ROUTES,
  PLAIN_ARTICLE_BODY,
  PLAIN_REGISTRY,
  PLAIN_REGISTRY_ANSWERS,
  REGISTRY_KEPT_PATH,
  REGISTRY_PATH,
  RUN_RECORD_ROUTES,
  FLOOR_ROUTE_FILES,
  floorPageFile,
  floorRoute,
  type PageKind,
  type Variant,
} from '../../bench/site/variant-files.ts';
import { mainContent } from '../../bench/site/floor-pages.ts';
import { pagesOf } from '../../bench/measure/growth.ts';
import { astroCode, importedPath, importSites } from '../../scripts/lib/import-graph.ts';
import { firstDifference, summarizeArticle } from '../../bench/fidelity.ts';
import { createProgress, formatClock } from '../../bench/progress.ts';
import { buildEnvironment } from '../../bench/site/astro-build.ts';
import { failureLine } from '../../bench/failure-line.ts';
import { errorMessage } from '../../bench/measure/context.ts';

/** Loads the generated wrapper over a stand-in astro.config.mjs, as Astro would. */
async function loadConfig(variant: Variant, integrations: string[]): Promise<{ integrations: Array<{ name: string }>; site: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'shice-bench-test-'));
  try {
    await writeFile(
      join(dir, 'astro.config.mjs'),
      `export default { site: 'https://shice.example', integrations: ${JSON.stringify(integrations.map((name) => ({ name })))} };\n`,
    );
    await writeFile(join(dir, BENCH_CONFIG), benchConfig(variant));
    return (await import(pathToFileURL(join(dir, BENCH_CONFIG)).href)).default;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('the evidence variant builds with the project config, the evidence integration present', async () => {
  const config = await loadConfig('evidence', ['shice-evidence', '@astrojs/mdx', '@astrojs/sitemap']);
  assert.deepEqual(
    config.integrations.map((i) => i.name),
    ['shice-evidence', '@astrojs/mdx', '@astrojs/sitemap'],
  );
  assert.equal(config.site, 'https://shice.example');
});

test('the plain and probe variants build without it, everything else the same', async () => {
  for (const variant of ['plain', 'probe'] as const) {
    const config = await loadConfig(variant, ['shice-evidence', '@astrojs/mdx', '@astrojs/sitemap']);
    assert.deepEqual(
      config.integrations.map((i) => i.name),
      ['@astrojs/mdx', '@astrojs/sitemap'],
    );
    assert.equal(config.site, 'https://shice.example');
  }
});

test('a project config without the evidence integration stops the bench build (it would measure nothing)', async () => {
  await assert.rejects(loadConfig('evidence', ['@astrojs/mdx']), /astro\.config\.mjs: expected one integration named "shice-evidence", found 0/);
  await assert.rejects(loadConfig('plain', ['@astrojs/mdx']), /found 0/);
});

test('the plain ArticleBody renders the MDX and reads no evidence', () => {
  assert.match(PLAIN_ARTICLE_BODY, /<Content \/>/);
  assert.doesNotMatch(PLAIN_ARTICLE_BODY, /registry|articleEvidence|Astro\.locals/);
});

/** The modules a plain copy's pages load (relative imports, from every route it keeps), without those the plain copy replaces. */
function plainCopyModules(root: string): Map<string, string> {
  const routes = readdirSync(join(root, 'src/pages'), { recursive: true, encoding: 'utf8' })
    .map((path) => `src/pages/${path}`)
    .filter((path) => /\.(astro|ts)$/.test(path) && !RUN_RECORD_ROUTES.some((route) => path.startsWith(`${route}/`)));
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file) || file === ARTICLE_BODY_PATH || file === REGISTRY_PATH) return;
    const source = readFileSync(join(root, file), 'utf8');
    seen.set(file, source);
    for (const { specifier } of importSites(file, source)) {
      const path = importedPath(file, specifier, (p) => existsSync(join(root, p)));
      if (path && /\.(astro|ts)$/.test(path) && existsSync(join(root, path))) visit(path);
    }
  };
  for (const route of routes) visit(route);
  return seen;
}

/** The names a module imports from `target` (`*` for a namespace import). */
function namesImported(file: string, source: string, target: string): string[] {
  const code = file.endsWith('.astro') ? astroCode(source) : source;
  const tree = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names: string[] = [];
  for (const statement of tree.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (importedPath(file, statement.moduleSpecifier.text, () => true) !== target) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
    else if (bindings) for (const element of bindings.elements) if (!element.isTypeOnly) names.push((element.propertyName ?? element.name).text);
  }
  return names;
}

// The plain copy has MDX and no article.ts: a page that asks the registry for an article's
// definition would stop its build (the growth floor did, once the header read the run's day).
test("a plain copy's pages ask the registry only for what its stand-in answers without an article.ts", () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const modules = plainCopyModules(root);
  assert.ok(modules.has('src/components/site/ArticlePage.astro') && !modules.has('src/components/site/RunRecordPage.astro'));
  const asked = new Map<string, string[]>();
  for (const [file, source] of modules) {
    const names = namesImported(file, source, REGISTRY_PATH);
    if (names.length) asked.set(file, names);
  }
  assert.ok(asked.size > 0, "some page reads an article's evidence");
  for (const [file, names] of asked)
    for (const name of names) assert.ok((PLAIN_REGISTRY_ANSWERS as readonly string[]).includes(name), `${file} asks the registry for ${name}`);
  for (const name of PLAIN_REGISTRY_ANSWERS) assert.match(PLAIN_REGISTRY, new RegExp(`^export function ${name}\\(`, 'm'));
  assert.match(PLAIN_REGISTRY, new RegExp(`^export \\* from '\\./${REGISTRY_KEPT_PATH.split('/').at(-1)!.replace('.', '\\.')}';$`, 'm'));
});

test("the Open Graph card routes the generated sites leave out are the project's", () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  for (const route of OG_CARD_ROUTES) assert.match(readFileSync(join(root, route), 'utf8'), /ogImagePng/, route);
});

test('a build never reads snapshots from SHICE_SNAPSHOT_ROOT, and sends no telemetry', () => {
  const env = buildEnvironment({ PATH: '/usr/bin', SHICE_SNAPSHOT_ROOT: '/tmp/other-run' });
  assert.equal(env.SHICE_SNAPSHOT_ROOT, undefined);
  assert.equal(env.PATH, '/usr/bin');
  assert.equal(env.ASTRO_TELEMETRY_DISABLED, '1');
  assert.equal(env.SHICE_CACHE, undefined, "the real project's build keeps the machine's cache");
  // A cold build's Open Graph cards are drawn, never read back from an earlier build's cache.
  assert.equal(buildEnvironment({ SHICE_CACHE: '/var/cache/shice' }, '/srv/copy/.shice-cache').SHICE_CACHE, '/srv/copy/.shice-cache');
});

test('fidelity: the same text with and without bound values is the same page; other text is not', () => {
  const evidence = summarizeArticle(
    'e.html',
    '<article class="article-body"><p>client=<span class="fact" data-fact="x">10.244.1.1</span> “ok”</p><script>x()</script></article>',
  );
  const plain = summarizeArticle('p.html', '<article class="article-body">\n<p>client=10.244.1.1 "ok"</p>\n</article>');
  assert.equal(evidence.boundValues, 1);
  assert.equal(plain.boundValues, 0);
  assert.equal(firstDifference(plain.text, evidence.text), null);
  const other = summarizeArticle('o.html', '<article class="article-body"><p>client=10.244.1.2 "ok"</p></article>');
  assert.match(firstDifference(plain.text, other.text)!, /^at character 16: "client=10\.244\.1\.1"ok"" vs "client=10\.244\.1\.2"ok""$/);
  assert.throws(() => summarizeArticle('n.html', '<main></main>'), /n\.html: expected an <article class="article-body"> element/);
});

test('progress: task start, end with its time, and a failure line', async () => {
  let clock = 0;
  const lines: string[] = [];
  const progress = createProgress({ write: (s: string) => lines.push(s) }, { now: () => clock, heartbeatMs: 60_000 });
  const value = await progress.task('build 1 of 4', async () => {
    clock += 17_300;
    return 42;
  });
  assert.equal(value, 42);
  await assert.rejects(
    progress.task('probe build', async () => {
      clock += 1_000;
      throw new Error('astro build failed (exit 1):\nmore');
    }),
    /astro build failed/,
  );
  assert.deepEqual(lines, [
    '[bench  0:00] build 1 of 4 …\n',
    '[bench  0:17]   done in 17.3 s: build 1 of 4\n',
    '[bench  0:17] probe build …\n',
    '[bench  0:18]   failed after 1.0 s: probe build: astro build failed (exit 1):\n',
    '[bench  0:18]     │ more\n',
  ]);
  assert.equal(formatClock(605_000), '10:05');
});

test('a failed build or capture is named by the error it logged, not by its last line', () => {
  const output = [
    '10:44:26   ├─ /en/x-b0002/run/index.html (+156ms) ',
    '10:44:28 [ERROR] [build] Caught error rendering /en/x-b0001: Error: content/articles/x-b0001/en.mdx: <ArticleLink slug="y">: no article y in en',
    '  Stack trace:',
    '    at file:///tmp/x/dist/chunk.mjs:497:104',
  ].join('\n');
  assert.equal(failureLine(output), 'Caught error rendering /en/x-b0001: Error: content/articles/x-b0001/en.mdx: <ArticleLink slug="y">: no article y in en');
  assert.equal(
    failureLine('\x1b[31m[InvalidContentEntryDataError] articles → x/zh data does not match collection schema.\x1b[39m\n  series: Required\n'),
    '[InvalidContentEntryDataError] articles → x/zh data does not match collection schema.',
  );
  assert.equal(failureLine('building\nKilled\n'), 'Killed');
  assert.equal(failureLine(''), 'no output');
  // A capture that crashed on an import: the error, not Node's version after the stack.
  const crash = [
    'file:///p/src/capture/kind/driver.ts:29',
    "import { nodesWithoutLabel } from '../kubectl/topology.ts';",
    '         ^^^^^^^^^^^^^^^^^',
    "SyntaxError: The requested module '../kubectl/topology.ts' does not provide an export named 'nodesWithoutLabel'",
    '    at #asyncInstantiate (node:internal/modules/esm/module_job:455:21)',
    '',
    'Node.js v24.21.0',
  ].join('\n');
  assert.equal(failureLine(crash), "SyntaxError: The requested module '../kubectl/topology.ts' does not provide an export named 'nodesWithoutLabel'");
  assert.equal(failureLine('capture: 074: preflight failed\n\nNode.js v24.21.0\n'), 'capture: 074: preflight failed');
});

test('a build Vite stopped is named by the reason under its "Build failed" line, with the file it names', () => {
  // An astro build of a copy whose zh.mdx ends in a broken tag, as Astro 7 printed it (2026-12-05).
  const output = [
    '13:14:30 [build] Building static entrypoints...',
    '13:14:31 [ERROR] [vite] ✗ Build failed in 988ms',
    '182:1: Unexpected character after `<`, expected a valid JSX tag (note: to create a link in MDX, use `[text](url)`) (mdx-jsx:unexpected-character)',
    '  Location:',
    '    /tmp/shice-bench-evidence-x/content/articles/x-b0001/zh.mdx:182:1',
    '  Stack trace:',
    '    at TransformPluginContextImpl.handler (file:///p/node_modules/@astrojs/mdx/dist/vite-plugin-mdx.js:64:17)',
  ].join('\n');
  assert.equal(
    failureLine(output),
    'Build failed in 988ms: 182:1: Unexpected character after `<`, expected a valid JSX tag (note: to create a link in MDX, use `[text](url)`) (mdx-jsx:unexpected-character) (/tmp/shice-bench-evidence-x/content/articles/x-b0001/zh.mdx:182:1)',
  );
  // An [ERROR] line with nothing after its tags: the line under it.
  assert.equal(failureLine('12:00:00 [ERROR] [build]\n  Cannot find module x\n  Stack trace:\n    at y\n'), 'Cannot find module x');
  // Nothing under it either: what it said, never an empty line.
  assert.equal(failureLine('12:00:00 [ERROR] [vite] ✗ Build failed in 2.1s\n'), '✗ Build failed in 2.1s');
  assert.notEqual(failureLine('12:00:00 [ERROR] [build]\n  Stack trace:\n    at y\n'), '');
});

test("a figure's reason is the error's first line with words in it, never an empty one", () => {
  assert.equal(errorMessage(new Error('astro build in /t failed (exit 1): Error: x\ntail')), 'astro build in /t failed (exit 1): Error: x');
  assert.equal(errorMessage(new Error('\n  the reason\nmore')), 'the reason');
  assert.equal(errorMessage(new Error('')), 'Error without a message');
  assert.equal(errorMessage(new TypeError('\n')), 'TypeError without a message');
  assert.equal(errorMessage(''), 'an empty error');
  assert.equal(errorMessage('plain'), 'plain');
});

const root = fileURLToPath(new URL('../..', import.meta.url));

test("the floor's routes: each kind's file in each language, importing the layout that exists, reading the pages' content by name", () => {
  for (const [kind, files] of Object.entries(FLOOR_ROUTE_FILES) as [PageKind, readonly [string, string]][]) {
    for (const [i, file] of files.entries()) {
      assert.ok(existsSync(join(root, file)), `${file}: the project's own ${kind} route, which the floor replaces`);
      const lang = i === 0 ? 'zh' : 'en';
      const route = floorRoute(lang, kind);
      const layout = /import BaseLayout from '([^']+)'/.exec(route)![1]!;
      assert.ok(existsSync(join(root, file, '..', layout)), `${file}: ${layout} resolves`);
      assert.match(route, new RegExp(`<BaseLayout lang="${lang}"`));
      assert.match(route, /<Fragment set:html=\{Astro\.props\.html\} \/>/);
    }
  }
  assert.equal(floorPageFile('zh', 'article'), 'zh/article.html');
  assert.equal(floorPageFile('en', 'record'), 'en/run/_.html');
  assert.equal(floorPageFile('en', 'record', 'v1.34/lab/nftables'), 'en/run/v1.34~lab~nftables.html');
});

test("a floor page's content is what the built page's <main> holds; a page without one is named", () => {
  assert.equal(
    mainContent('<body><header>h</header><main id="content" tabindex="-1"><h1>t</h1><p>1</p></main><footer>f</footer></body>', 'p'),
    '<h1>t</h1><p>1</p>',
  );
  assert.throws(() => mainContent('<body>no main</body>', 'dist/x/index.html'), /^Error: dist\/x\/index\.html: no <main> element/);
  const html = new Map([
    ['zh/article.html', ''],
    ['en/article.html', ''],
    ['zh/evidence.html', ''],
    ['zh/run/_.html', ''],
    ['en/run/_.html', ''],
    ['en/run/v1.34~lab.html', ''],
  ]);
  assert.deepEqual(pagesOf({ html, entries: new Map() }), { article: 2, evidence: 1, record: 3 });
});
