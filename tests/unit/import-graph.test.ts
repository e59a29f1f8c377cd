// The import check (scripts/lib/import-graph.ts, scripts/check-imports.ts):
// cycles, imports against the data flow and missing files, on small trees
// written to a temporary folder and checked by the script itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { astroCode, checkImports, importCycles, importSites, mdxCode } from '../../scripts/lib/import-graph.ts';

const SCRIPT = resolve('scripts/check-imports.ts');

/** Runs the check in a tree of `files` and symbolic `links` (path -> target); the tree is gone afterwards. */
function checkTree(files: Record<string, string>, links: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const root = mkdtempSync(join(tmpdir(), 'shice-imports-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    for (const [path, target] of Object.entries(links)) symlinkSync(target, join(root, path));
    try {
      const stdout = execFileSync(process.execPath, [SCRIPT], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return { code: 0, stdout, stderr: '' };
    } catch (error) {
      const e = error as { status: number; stdout: string; stderr: string };
      return { code: e.status, stdout: e.stdout, stderr: e.stderr };
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('a clean tree passes: static, type, re-export and dynamic imports of files that exist, packages ignored', () => {
  const r = checkTree({
    'src/experiment/types.ts': 'export type Step = { id: string };\n',
    'src/evidence/facts.ts':
      "import type { Step } from '../experiment/types.ts';\nimport { load } from 'js-yaml';\nexport const f = (s: Step) => load(s.id);\n",
    'src/capture/run.ts': "export { f } from '../evidence/facts.ts';\nexport const later = () => import('../evidence/facts.ts');\n",
    'src/components/Fact.astro': "---\nimport { f } from '../evidence/facts.ts';\n---\n<p>{f({ id: 'x' })}</p>\n",
    'scripts/go.ts': "import '../src/capture/run.ts';\n",
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /5 files, no cycle, no layer crossed/);
});

test('a cycle is printed as a -> b -> a, once, and fails the check', () => {
  const r = checkTree({
    'src/article/a.ts': "import { b } from './b.ts';\nexport const a = 1 + b;\n",
    'src/article/b.ts': "import type { A } from './a.ts';\nexport const b = 2;\nexport type B = A;\n",
    'src/article/c.ts': "import { a } from './a.ts';\nexport const c = a;\n",
  });
  assert.equal(r.code, 1);
  assert.deepEqual(r.stderr.trim().split('\n'), ['import cycle: src/article/a.ts -> src/article/b.ts -> src/article/a.ts']);
});

test('a layer violation names the file, the line, what it imports and the rule', () => {
  const r = checkTree({
    'src/article/from-disk.ts': 'export const x = 1;\n',
    'src/capture/what-changed.ts': "// the report\nimport { x } from '../article/from-disk.ts';\nexport const y = x;\n",
    'src/evidence/e.ts': "export const e = () => import('../capture/what-changed.ts');\n",
    'src/experiment/t.ts': "import type { e } from '../evidence/e.ts';\nexport type T = typeof e;\n",
  });
  assert.equal(r.code, 1);
  assert.deepEqual(r.stderr.trim().split('\n'), [
    'src/capture/what-changed.ts:2: imports src/article/from-disk.ts: src/capture must not import src/article (the capture writes snapshots; the pages only read them)',
    'src/evidence/e.ts:1: imports src/capture/what-changed.ts: src/evidence must not import src/capture (evidence is derived from snapshots, whoever wrote them, for whatever shows it)',
    'src/experiment/t.ts:1: imports src/evidence/e.ts: src/experiment must not import src/evidence (an experiment is plain data that everything else reads)',
  ]);
});

test('a rule that names a file, not a folder, names it whole: the process runner importing kubectl above it', () => {
  const r = checkTree({
    'src/capture/kubectl/commands.ts': "export const get = ['kubectl', 'get'];\n",
    'src/capture/machine/process.ts': "import { get } from '../kubectl/commands.ts';\nexport const argv = get;\n",
    'src/capture/machine/clip.ts': "import { get } from '../kubectl/commands.ts';\nexport const first = get[0];\n",
  });
  assert.equal(r.code, 1);
  // Its neighbour in the same folder is bound by the folder's rule only, which allows kubectl.
  assert.deepEqual(r.stderr.trim().split('\n'), [
    'src/capture/machine/process.ts:1: imports src/capture/kubectl/commands.ts: src/capture/machine/process.ts must not import src/capture/kubectl (every floor of the capture runs its processes through it)',
  ]);
});

test("the capture's own floors: the machine knows no session, a snapshot folder no recovery, the session no merge and no command", () => {
  const r = checkTree({
    'src/capture/session/runner.ts': 'export const run = 1;\n',
    'src/capture/merge/merge.ts': 'export const merge = 1;\n',
    'src/capture/recovery/recover.ts': 'export const recover = 1;\n',
    'src/capture/machine/host.ts': "import { run } from '../session/runner.ts';\nexport const h = run;\n",
    'src/capture/snapshots/target.ts': "import { recover } from '../recovery/recover.ts';\nexport const t = recover;\n",
    'src/capture/session/matrix.ts': "import { merge } from '../merge/merge.ts';\nexport const m = merge;\n",
    'src/capture/kind/index.ts': "import { run } from '../session/runner.ts';\nexport const k = run;\n",
    'src/capture/command/capture.ts': "import { run } from '../session/runner.ts';\nexport const capture = run;\n",
    'src/capture/session/verify.ts': "import { capture } from '../command/capture.ts';\nexport const v = capture;\n",
  });
  assert.equal(r.code, 1);
  assert.deepEqual(r.stderr.trim().split('\n').sort(), [
    'src/capture/kind/index.ts:1: imports src/capture/session/runner.ts: src/capture/kind must not import src/capture/session (a driver provides nodes: it knows neither another driver nor the platform above it)',
    'src/capture/machine/host.ts:1: imports src/capture/session/runner.ts: src/capture/machine must not import src/capture/session (the machine is the floor every capture stands on)',
    'src/capture/session/matrix.ts:1: imports src/capture/merge/merge.ts: src/capture/session must not import src/capture/merge (a capture runs without the merge (the merge uses its judgement) and without the commands that call it)',
    'src/capture/session/verify.ts:1: imports src/capture/command/capture.ts: src/capture/session must not import src/capture/command (a capture runs without the merge (the merge uses its judgement) and without the commands that call it)',
    'src/capture/snapshots/target.ts:1: imports src/capture/recovery/recover.ts: src/capture/snapshots must not import src/capture/recovery (writing a snapshot folder knows neither the records a run keeps nor its session)',
  ]);
});

test('a dynamic import of a missing file is found; a specifier held in a string, a template or a comment is not an import', () => {
  const r = checkTree({
    'tests/unit/x.test.ts': [
      "// import gone from './gone.ts';",
      "const template = `import nope from '../../src/nope.ts';`;",
      "const re = /'/; const text = \"import('./nowhere.ts')\";",
      "export const load = () => import('../../src/missing.ts');",
      '',
    ].join('\n'),
  });
  assert.equal(r.code, 1);
  assert.deepEqual(r.stderr.trim().split('\n'), ['tests/unit/x.test.ts:4: imports "../../src/missing.ts": no such file (expected src/missing.ts)']);
});

test("an .astro file's imports are its frontmatter's and its module scripts', at their own lines", () => {
  const source =
    "---\nimport A from './A.astro';\n---\n<p>import B from './B.astro'</p>\n<script>\nimport { c } from './c.ts';\n</script>\n<script is:inline>import('./inline.js')</script>\n";
  assert.deepEqual(importSites('X.astro', source), [
    { specifier: './A.astro', line: 2 },
    { specifier: './c.ts', line: 6 },
  ]);
  assert.equal(astroCode(source).split('\n').length, source.split('\n').length);
});

test('every cycle through a knot is named, each once, from its first file', () => {
  const edges = new Map([
    ['a', ['b', 'c']],
    ['b', ['a']],
    ['c', ['a']],
    ['d', ['d']],
    ['e', ['a']],
  ]);
  assert.deepEqual(importCycles(edges), [
    ['a', 'b', 'a'],
    ['a', 'c', 'a'],
    ['d', 'd'],
  ]);
  assert.deepEqual(
    importCycles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
});

test('an import outside the scanned files counts as found when the path exists', () => {
  const files = new Map([['src/pages/p.ts', "import { x } from '../../content/articles/001-a/facts.ts';\n"]]);
  assert.deepEqual(
    checkImports(files, (p) => p === 'content/articles/001-a/facts.ts'),
    [],
  );
  assert.equal(checkImports(files, () => false).length, 1);
});

test("an MDX file's imports: its import/export blocks and {expressions}, not its frontmatter, fenced or inline code", () => {
  const source = [
    '---',
    "title: import x from '/front'",
    '---',
    "import a from './a.txt?raw';",
    "export { b } from './b.ts';",
    '',
    "Prose that says import c from '/prose' and `{import('/inline')}` {await import('./d.ts')}.",
    '',
    '```js',
    "import e from '/fenced';",
    '```',
    '<Fact id="x" note={import(\'./f.ts\')} />',
    '{',
    "  import('./g.ts')",
    "} then {import('./h.ts')}",
  ].join('\n');
  assert.equal(mdxCode(source).split('\n').length, source.split('\n').length, 'every line keeps its number');
  assert.deepEqual(
    importSites('content/articles/001-a/en.mdx', source).map((s) => `${s.line}:${s.specifier}`),
    ['4:./a.txt?raw', '5:./b.ts', '7:./d.ts', '12:./f.ts', '14:./g.ts', '15:./h.ts'],
  );
});

test('an import outside the project, from MDX or a module, in any form: one line naming the file, the line and where it leads', () => {
  const outside = realpathSync(mkdtempSync(join(tmpdir(), 'shice-imports-outside-')));
  try {
    writeFileSync(join(outside, 'file'), 'secret');
    const mdx = [
      '---',
      'title: t',
      '---',
      `import a from '${outside}/file?raw';`,
      "import b from '../../../../x?url';",
      "import c from './inc.txt?raw';",
      `import d from 'file://${outside}/file';`,
      `export { e } from '/@fs${outside}/file?inline';`,
      "import f from './ok.txt?raw';",
      "import g from '/content/articles/001-a/ok.txt?raw';",
      '',
      `{await import('${outside}/file?raw')}`,
    ].join('\n');
    const r = checkTree(
      {
        'content/articles/001-a/en.mdx': mdx,
        'content/articles/001-a/ok.txt': 'ours',
        'src/article/x.ts': `import raw from '${outside}/file?raw';\nexport default raw;\n`,
      },
      { 'content/articles/001-a/inc.txt': join(outside, 'file') },
    );
    assert.equal(r.code, 1, r.stdout);
    const file = 'content/articles/001-a/en.mdx';
    const leads = (spec: string, where: string) =>
      `imports ${JSON.stringify(spec)}, which is ${JSON.stringify(where)}, outside the project; expected a file inside it`;
    assert.deepEqual(r.stderr.trim().split('\n'), [
      `${file}:4: ${leads(`${outside}/file?raw`, `${outside}/file`)}`,
      `${file}:5: ${leads('../../../../x?url', '../x')}`,
      `${file}:6: ${leads('./inc.txt?raw', `${outside}/file`)}`,
      `${file}:7: ${leads(`file://${outside}/file`, `${outside}/file`)}`,
      `${file}:8: ${leads(`/@fs${outside}/file?inline`, `${outside}/file`)}`,
      `${file}:12: ${leads(`${outside}/file?raw`, `${outside}/file`)}`,
      `src/article/x.ts:1: ${leads(`${outside}/file?raw`, `${outside}/file`)}`,
    ]);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});
