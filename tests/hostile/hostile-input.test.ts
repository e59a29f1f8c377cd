// Hostile input that needs no lab: snapshot folders holding links, prose that
// hides numbers in full-width digits or in attributes a reader sees, output
// that is not UTF-8 or too long, arguments of 100 KB, targets that are special
// files. Each asserts behaviour, including the failure's one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { evidenceFromDisk } from '../../src/evidence/runs/from-disk.ts';
import { loadArticle } from '../../src/authoring/load.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import { findUnboundValues } from '../../src/evidence/mdx-check.ts';
import { escapeInvalidUtf8, readableStep, storeStream, streamBytes, STREAM_LIMIT_BYTES } from '../../src/evidence/raw-stream.ts';
import { outputBlocks, streamNoteText } from '../../src/article/render/raw-output.ts';
import { judgeTarget, checkPathShape, outFolderProblem } from '../../src/capture/snapshots/target.ts';
import { treeDigest } from '../support/tree-digest.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SAMPLE = join(root, 'tests/fixtures/snapshots/074-sample');

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof EvidenceError) return error.problems;
    throw error;
  }
  assert.fail('expected an EvidenceError');
}

function sampleCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'shice-fault-links-'));
  cpSync(SAMPLE, join(dir, 'snapshots'), { recursive: true });
  return dir;
}

test('a step file that is a link to /etc/passwd is refused without reading it, and no message quotes it', () => {
  const dir = sampleCopy();
  try {
    const file = join(dir, 'snapshots', 'health-worker.yaml');
    unlinkSync(file);
    symlinkSync('/etc/passwd', file);
    const found = problems(() => loadSnapshots(join(dir, 'snapshots')));
    assert.deepEqual(found, [`${file}: is a symbolic link; expected a regular file written by the capture (snapshots are not read through links)`]);
    const passwd = readFileSync('/etc/passwd', 'utf8');
    assert.ok(!found.join('\n').includes(passwd.split('\n')[0]!), 'the message does not quote the file');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a link to a valid YAML snapshot outside the folder is refused too, and so is a linked run.yaml', () => {
  const dir = sampleCopy();
  try {
    const outside = join(dir, 'elsewhere.yaml');
    const file = join(dir, 'snapshots', 'health-worker.yaml');
    cpSync(file, outside);
    unlinkSync(file);
    symlinkSync(outside, file);
    assert.match(problems(() => loadSnapshots(join(dir, 'snapshots')))[0]!, /health-worker\.yaml: is a symbolic link/);
    const run = join(dir, 'snapshots', 'run.yaml');
    cpSync(run, join(dir, 'run.yaml'));
    unlinkSync(run);
    symlinkSync(join(dir, 'run.yaml'), run);
    assert.match(problems(() => loadSnapshots(join(dir, 'snapshots')))[0]!, /run\.yaml: is a symbolic link/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the build error for a missing snapshot folder says how to recover when an interrupted swap left a .previous folder', async () => {
  const dir = sampleCopy();
  try {
    renameSync(join(dir, 'snapshots'), join(dir, '.snapshots.previous-20261202T000000Z-abcdef'));
    // The function the build's check calls for every article (integration.ts), not the loader alone.
    const defs = await loadArticle(root, '074-external-traffic-policy');
    const [message] = problems(() => evidenceFromDisk('074-external-traffic-policy', join(dir, 'snapshots'), defs, { variants: true }));
    assert.match(
      message!,
      /snapshot folder not found;.*\.snapshots\.previous-20261202T000000Z-abcdef: run `npm run capture -- --clean` \(or the next capture\) to finish or undo the swap/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('full-width digits in prose are unbound numbers like ASCII ones', () => {
  const found = findUnboundValues('zh.mdx', '经 worker2 访问时，curl 等了 ３.０２ 秒后放弃，退出码 ２８。\n');
  assert.deepEqual(
    found.map((f) => [f.text, f.kind]),
    [
      ['３.０２', 'duration'],
      ['２８', 'exit-code'],
    ],
  );
  assert.match(found[0]!.message, /^zh\.mdx:1:\d+: unbound duration "３.０２"/);
});

test('numbers in attributes a reader sees (title, alt, aria-label) are unbound; other attributes are not prose', () => {
  const source = [
    'It <abbr title="waited 3.02 s">timed out</abbr>.',
    '<img src="x-200.png" alt="HTTP 503 from worker2" />',
    '<span aria-label="exit code 28">gave up</span>',
    '<span data-port="31575" class="c2">plain</span>',
    '<Fact id="local-via-worker2.seconds" title="3.02 s" />',
    '',
  ].join('\n');
  const found = findUnboundValues('en.mdx', source);
  assert.deepEqual(
    found.map((f) => [f.line, f.text, f.kind]),
    [
      [1, '3.02', 'duration'],
      [2, '503', 'http-status'],
      [3, '28', 'exit-code'],
    ],
  );
  assert.match(found[0]!.message, /unbound duration "3\.02" in attribute title of <abbr>/);
});

test('output that is not UTF-8 is stored losslessly (base64), read by facts and pages with \\xNN escapes and a note', () => {
  const bytes = Buffer.from([0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x3d, 0xff, 0xfe, 0x0a, 0xe4, 0xbd, 0xa0]);
  const stored = storeStream(bytes);
  assert.equal(stored.encoding, 'base64');
  assert.deepEqual(Buffer.from(stored.text, 'base64'), bytes);
  assert.equal(escapeInvalidUtf8(bytes), 'client=\\xff\\xfe\n你');
  const step = { stdout: stored.text, stdoutEncoding: 'base64' as const, stderr: '' };
  assert.deepEqual(Buffer.from(streamBytes(step, 'stdout')), bytes);
  assert.equal(outputBlocks(step)[0]!.code, 'client=\\xff\\xfe\n你');
  assert.match(streamNoteText(step, 'stdout', 'en')!, /not UTF-8: shown here as \\xNN escapes/);
  assert.match(streamNoteText(step, 'stdout', 'zh')!, /非 UTF-8/);
  assert.equal(streamNoteText({ stdout: 'fine', stderr: '' }, 'stdout', 'en'), null);
});

test('output above the limit is stored cut with its full size and SHA-256; a fact that reads it fails clearly', () => {
  const big = Buffer.alloc(STREAM_LIMIT_BYTES + 10, 0x61);
  big.write('你', STREAM_LIMIT_BYTES - 1); // a character across the limit is not split
  const stored = storeStream(big);
  assert.equal(stored.encoding, undefined);
  assert.equal(stored.cut!.bytes, big.length);
  assert.match(stored.cut!.sha256, /^[0-9a-f]{64}$/);
  assert.equal(Buffer.byteLength(stored.text), STREAM_LIMIT_BYTES - 1);
  const step = {
    id: 'big',
    kind: 'exec' as const,
    node: 'worker',
    title: '',
    command: ['x'],
    argv: ['x'],
    exitCode: 0,
    startedAt: '2026-12-02T00:00:00.000Z',
    durationMs: 1,
    stdout: stored.text,
    stdoutCut: stored.cut!,
    stderr: '',
  };
  assert.throws(
    () => readableStep(step).stdout,
    /step big's stdout was cut by the capture: 1048575 of 1048586 bytes kept \(sha256 [0-9a-f]{64}\); a fact cannot be derived from part of it/,
  );
  assert.equal(readableStep(step).stderr, '');
  assert.match(streamNoteText(step, 'stdout', 'en')!, /the first 1048575 of 1048586 bytes are kept and shown/);
});

test('what a capture may replace: only a snapshot folder of the same slug, or nothing, or an empty folder', () => {
  const slug = '074-external-traffic-policy';
  const run = { schema: 1, slug, runId: 'r-1' };
  assert.deepEqual(judgeTarget({ kind: 'absent' }, slug), { ok: true, state: 'absent' });
  assert.deepEqual(judgeTarget({ kind: 'dir', entries: [], runYaml: null }, slug), { ok: true, state: 'empty' });
  assert.deepEqual(
    judgeTarget(
      {
        kind: 'dir',
        entries: [
          { name: 'run.yaml', type: 'file' },
          { name: 'a-step.yaml', type: 'file' },
        ],
        runYaml: run,
      },
      slug,
    ),
    { ok: true, state: 'snapshots' },
  );
  const refused = (facts: Parameters<typeof judgeTarget>[0]) => {
    const verdict = judgeTarget(facts, slug);
    assert.equal(verdict.ok, false);
    return (verdict as { reason: string }).reason;
  };
  assert.equal(refused({ kind: 'file' }), 'is a file, not a folder');
  assert.match(
    refused({
      kind: 'dir',
      entries: [
        { name: 'run.yaml', type: 'file' },
        { name: 'notes.txt', type: 'file' },
      ],
      runYaml: run,
    }),
    /did not write \(notes\.txt\)/,
  );
  assert.match(
    refused({
      kind: 'dir',
      entries: [
        { name: 'run.yaml', type: 'file' },
        { name: 'x.yaml', type: 'symlink' },
      ],
      runYaml: run,
    }),
    /did not write \(x\.yaml\)/,
  );
  assert.match(
    refused({ kind: 'dir', entries: [{ name: 'run.yaml', type: 'file' }], runYaml: { ...run, slug: 'other' } }),
    /snapshots of another article \(other\)/,
  );
  assert.match(refused({ kind: 'dir', entries: [{ name: 'run.yaml', type: 'file' }], runYaml: { slug } }), /run\.yaml the capture did not write/);
  assert.match(
    refused({
      kind: 'dir',
      entries: [
        { name: 'article.ts', type: 'file' },
        { name: 'snapshots', type: 'dir' },
      ],
      runYaml: null,
    }),
    /article\.ts, snapshots\//,
  );
  // --out is never the articles folder or a folder in it: the lab's <slug>.lab would land beside the articles.
  const articles = '/work/site/content/articles';
  assert.match(outFolderProblem(articles, articles)!, /^is the articles folder/);
  assert.match(outFolderProblem(`${articles}/074-x/tmp`, articles)!, /^is inside the articles folder \(074-x\/tmp\)/);
  assert.equal(outFolderProblem('/work/site/content/articles-out', articles), null);
  assert.equal(outFolderProblem('/tmp/runs', articles), null);
  // The checkout's own code: a capture once wrote its runs into src/ when asked to.
  assert.match(outFolderProblem('/work/site/src', articles)!, /^is inside the checkout's own src\//);
  assert.match(outFolderProblem('/work/site/tests/x', articles)!, /^is inside the checkout's own tests\//);
  assert.equal(checkPathShape('/tmp/run/074'), null);
  assert.match(checkPathShape(`/tmp/${'a'.repeat(250)}`)!, /a name in the path is too long/);
  assert.match(checkPathShape(`/tmp/${'abc/'.repeat(1100)}`)!, /the path is too long/);
});

const capture = (args: string[]) => spawnSync(process.execPath, [join(root, 'scripts/capture.ts'), ...args], { cwd: root, encoding: 'utf8', timeout: 30_000 });

test('special and impossible targets fail at once with one line and exit 2; nothing is touched', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-fault-targets-'));
  try {
    writeFileSync(join(dir, 'a-file'), 'keep me\n');
    const before = treeDigest(dir);
    for (const [out, expected] of [
      // The lab's runs are 074's second environment: they go in <slug>.lab.
      ['/proc/x', /--out \/proc\/x: 074-external-traffic-policy\.lab: is under \/proc, a kernel file system/],
      ['/sys/x', /is under \/sys, a kernel file system/],
      [join(dir, 'a-file'), /a-file is a file, so no folder can be made below it/],
      [join(dir, 'x'.repeat(300)), /a name in the path is too long/],
      [join(dir, ...Array.from({ length: 40 }, () => 'y'.repeat(120))), /the path is too long/],
    ] as const) {
      const started = performance.now();
      const result = capture(['--driver', 'lab', '--out', out]);
      assert.equal(result.status, 2, `${out.slice(0, 40)}: ${result.stderr}`);
      assert.ok(performance.now() - started < 15_000, 'at once');
      const lines = result.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, expected);
      assert.ok(lines[0]!.length < 400, 'long arguments are cut');
    }
    assert.deepEqual(treeDigest(dir), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a 100 KB slug is cut in the one-line error', () => {
  const result = capture(['x'.repeat(100_000), '--driver', 'lab', '--out', tmpdir()]);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^capture: unknown article "x{60}… \(100000 characters\)"; known: /);
  assert.ok(result.stderr.length < 400, `${result.stderr.length} characters`);
});
