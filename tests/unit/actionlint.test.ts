// The workflows lint (scripts/lib/actionlint.ts, scripts/lint-workflows.ts) on
// actionlint's real answers (tests/fixtures/actionlint, see its README): which
// files it lints, what its answer means, how a finding prints; and what the
// Go builds share (src/capture/machine/go-build.ts): the stamp and the progress line.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { actionlintArgs, formatFinding, judgeLint, parseFindings, requiredVersion, workflowFiles, type Listing } from '../../scripts/lib/actionlint.ts';
import { isPackageLine, moduleStamp } from '../../src/capture/machine/go-build.ts';

const sample = (name: string) => readFileSync(new URL(`../fixtures/actionlint/${name}`, import.meta.url), 'utf8');

/** A file system of folders (paths ending in /) and files, for the listing. */
function tree(paths: string[]): Listing {
  const dirs = new Set(paths.filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1)));
  const files = new Set(paths.filter((p) => !p.endsWith('/')));
  return {
    kind: (path) => (dirs.has(path) ? 'dir' : files.has(path) ? 'file' : null),
    entries: (dir) => [...dirs, ...files].filter((p) => p.startsWith(`${dir}/`) && !p.slice(dir.length + 1).includes('/')).map((p) => p.slice(dir.length + 1)),
  };
}

test("the files linted: by default .github/workflows' own .yml and .yaml files, sorted, not its folders or other files", () => {
  const fs = tree([
    '.github/',
    '.github/workflows/',
    '.github/workflows/site.yml',
    '.github/workflows/capture.yaml',
    '.github/workflows/README.md',
    '.github/workflows/old.yml/',
    '.github/workflows/nested/',
    '.github/workflows/nested/inner.yml',
  ]);
  assert.deepEqual(workflowFiles([], fs), { files: ['.github/workflows/capture.yaml', '.github/workflows/site.yml'] });
});

test('the files linted: folders and files as named, each once; nothing to lint is a problem, never a pass', () => {
  const fs = tree(['a/', 'a/x.yml', 'b/', 'b/notes.txt', 'c.yaml', 'd.json', '.github/']);
  assert.deepEqual(workflowFiles(['a', 'c.yaml', 'a/x.yml'], fs), { files: ['a/x.yml', 'c.yaml'] });
  assert.deepEqual(workflowFiles([], fs), { problem: 'no such file or folder: .github/workflows (expected workflow files, .yml or .yaml)' });
  assert.deepEqual(workflowFiles(['b'], fs), { problem: 'no workflow file to lint in b (expected *.yml or *.yaml there)' });
  assert.deepEqual(
    workflowFiles(['a', 'b'], fs),
    { problem: 'no workflow file to lint in b (expected *.yml or *.yaml there)' },
    'one empty folder fails the lot',
  );
  assert.deepEqual(workflowFiles(['d.json'], fs), { problem: 'd.json is not a workflow file: expected a .yml or .yaml file' });
  assert.deepEqual(workflowFiles(['nosuch.yml'], fs), { problem: 'no such file or folder: nosuch.yml (expected workflow files, .yml or .yaml)' });
});

test("actionlint's flags: JSON out, shellcheck by the path found, pyflakes off, then the files", () => {
  assert.deepEqual(actionlintArgs('/usr/bin/shellcheck', ['a.yml', 'b.yaml']), [
    '-format',
    '{{json .}}',
    '-shellcheck=/usr/bin/shellcheck',
    '-pyflakes=',
    'a.yml',
    'b.yaml',
  ]);
});

test("actionlint's real answer with findings (exit 1): each finding read, shellcheck's among them, printed as actionlint prints it", () => {
  const stdout = sample('findings.json');
  const findings = parseFindings(stdout)!;
  assert.equal(findings.length, 7);
  assert.deepEqual(
    findings.map((f) => `${f.filepath}:${f.line}:${f.column} ${f.kind}`),
    [
      'broken.yml:4:5 syntax-check',
      'broken.yml:9:15 action',
      'broken.yml:10:23 expression',
      'broken.yml:11:9 shellcheck',
      'broken.yml:13:24 expression',
      'broken.yml:16:11 action',
      'syntax.yaml:1:4 syntax-check',
    ],
  );
  assert.match(findings[3]!.message, /SC2086/, 'shellcheck ran on the run: script');
  const verdict = judgeLint({ code: 1, stdout, stderr: '' });
  assert.ok(!verdict.ok && 'findings' in verdict && verdict.findings.length === 7);
  assert.equal(
    formatFinding(findings[0]!),
    [
      'broken.yml:4:5: unexpected key "branch" for "push" section. expected one of "branches", "branches-ignore", "paths", "paths-ignore", "tags", "tags-ignore", "types", "workflows" [syntax-check]',
      '  |     branch: main',
      '  |     ^~~~~~~',
    ].join('\n'),
  );
});

test("actionlint's real clean answer (exit 0) passes; its fatal error (exit 3) and any answer that is not its JSON are problems in its words", () => {
  assert.deepEqual(judgeLint({ code: 0, stdout: sample('clean.json'), stderr: '' }), { ok: true });
  assert.deepEqual(judgeLint({ code: 3, stdout: '', stderr: sample('missing-file.stderr') }), {
    ok: false,
    problem: 'actionlint exited 3 without its JSON answer: could not read "nosuch.yml": open nosuch.yml: no such file or directory',
  });
  assert.deepEqual(judgeLint({ code: 1, stdout: sample('clean.json'), stderr: '' }), { ok: false, problem: 'actionlint exited 1' }, 'exit 1 with no finding');
  assert.deepEqual(judgeLint({ code: 0, stdout: sample('findings.json'), stderr: '' }), { ok: false, problem: 'actionlint exited 0' }, 'findings with exit 0');
  assert.deepEqual(judgeLint({ code: null, stdout: '', stderr: '' }), { ok: false, problem: 'actionlint was ended by a signal without its JSON answer' });
  assert.equal(parseFindings('broken.yml:4:5: unexpected key [syntax-check]'), null, 'the default text format is not the JSON');
  assert.equal(parseFindings('[{"message":"m"}]'), null, 'a finding without its place');
});

test('the pinned version, read from go.mod as go get -tool writes it', () => {
  const goMod = readFileSync(new URL('../../tools/go.mod', import.meta.url), 'utf8');
  assert.match(requiredVersion(goMod, 'github.com/rhysd/actionlint') ?? '', /^v\d+\.\d+\.\d+$/);
  assert.match(goMod, /^tool github\.com\/rhysd\/actionlint\/cmd\/actionlint$/m);
  assert.equal(requiredVersion('module m\n\nrequire github.com/rhysd/actionlint v1.7.12\n', 'github.com/rhysd/actionlint'), 'v1.7.12');
  assert.equal(requiredVersion('module m\n\nrequire (\n\tgithub.com/rhysd/actionlint-x v9.9.9\n)\n', 'github.com/rhysd/actionlint'), null);
});

test("the Go builds' stamp changes with the module's files, the Go and what else decides the binary; go build -v's package lines are its progress", () => {
  const files = { 'go.mod': 'module m', 'go.sum': 'x' };
  const stamp = moduleStamp(files, 'go1.26.8', { package: 'p' });
  assert.equal(moduleStamp({ 'go.sum': 'x', 'go.mod': 'module m' }, 'go1.26.8', { package: 'p' }), stamp, 'file order does not matter');
  assert.notEqual(moduleStamp({ ...files, 'go.sum': 'y' }, 'go1.26.8', { package: 'p' }), stamp);
  assert.notEqual(moduleStamp(files, 'go1.27.3', { package: 'p' }), stamp);
  assert.notEqual(moduleStamp(files, 'go1.26.8', { package: 'q' }), stamp);
  assert.ok(isPackageLine('github.com/rhysd/actionlint/cmd/actionlint'));
  assert.ok(isPackageLine('internal/abi'));
  assert.ok(!isPackageLine('# github.com/rhysd/actionlint'));
  assert.ok(!isPackageLine('./main.go:3:2: undefined: x'));
});
