// Hostile snapshot folders, read the way the build reads them (checkArticles,
// the integration's check): a hard link to a file elsewhere, run.yaml that is
// not UTF-8 or names another article, a folder missing after a swap was cut
// short, and SHICE_SNAPSHOT_ROOT naming the folder really read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, linkSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCommittedRuns } from '../support/snapshot-root.ts';
import { fileURLToPath } from 'node:url';
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';
import { checkArticles, problemsMessage } from '../../src/article/check/integration.ts';
import { invalidUtf8Offset, loadSnapshots } from '../../src/evidence/load.ts';
import { EvidenceError, displayPath } from '../../src/evidence/errors.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLUG = '074-external-traffic-policy';
const OTHER = '075-local-uneven-weights';

/** Every article's committed runs under a snapshot root of its own, laid out as SHICE_SNAPSHOT_ROOT reads it. */
function snapshotRoot(): string {
  return copyCommittedRuns(root, mkdtempSync(join(tmpdir(), 'shice-hostile-load-')));
}

/** The build's problems with the runs under `runs`; exactly one is expected, and returned. */
async function buildProblem(runs: string): Promise<string> {
  const { problems } = await checkArticles(root, { SHICE_SNAPSHOT_ROOT: runs }, { only: REFERENCE_ARTICLES });
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.ok(!problems[0]!.includes('\n'), 'one line');
  return problems[0]!;
}

const shown = displayPath;

test('a hard link in a snapshot folder to a file elsewhere is refused by the build, naming the file, never quoting it', async () => {
  const runs = snapshotRoot();
  try {
    const secret = join(runs, 'secret.txt');
    writeFileSync(secret, 'root:x:0:0:the secret line:/root:/bin/bash\n');
    const file = join(runs, SLUG, 'health-worker.yaml');
    unlinkSync(file);
    linkSync(secret, file);
    const problem = await buildProblem(runs);
    assert.equal(problem, `${shown(file)}: has 2 hard links; expected a file the capture wrote, with one link (another name of some other file is not read)`);
    assert.doesNotMatch(problem, /secret line/);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

test('a hard link to /etc/passwd is refused without quoting it (where the temp folder shares its file system)', (t) => {
  const runs = snapshotRoot();
  try {
    const file = join(runs, SLUG, 'health-worker.yaml');
    unlinkSync(file);
    try {
      linkSync('/etc/passwd', file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another file system, or fs.protected_hardlinks for a user who does not own it: nobody can make this link here.
      if (code === 'EXDEV' || code === 'EPERM') return t.skip(`no hard link to /etc/passwd can be made here (${code})`);
      throw error;
    }
    assert.throws(
      () => loadSnapshots(join(runs, SLUG)),
      (error: unknown) => {
        assert.ok(error instanceof EvidenceError);
        assert.match(error.message, /health-worker\.yaml: has \d+ hard links; expected a file the capture wrote/);
        assert.ok(!error.message.includes(readFileSync('/etc/passwd', 'utf8').split('\n')[0]!));
        return true;
      },
    );
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

test('run.yaml that is not UTF-8 fails the build naming the file and the byte offset, instead of becoming U+FFFD', async () => {
  const runs = snapshotRoot();
  try {
    const file = join(runs, SLUG, 'run.yaml');
    const bytes = readFileSync(file);
    const at = bytes.indexOf('runId: ') + 'runId: '.length;
    writeFileSync(file, Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]));
    assert.equal(
      await buildProblem(runs),
      `${shown(file)}: byte ${at} (0xff) is not UTF-8; expected a UTF-8 file as the capture writes them (output that is not UTF-8 is stored as base64)`,
    );
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

test('the first byte that is not UTF-8: stray, truncated, overlong, surrogate and too large sequences', () => {
  const at = (...bytes: number[]) => invalidUtf8Offset(Uint8Array.from(bytes));
  assert.equal(invalidUtf8Offset(Buffer.from('client=10.0.0.1 你好 🙂', 'utf8')), -1);
  assert.equal(at(0x61, 0x80), 1);
  assert.equal(at(0x61, 0xe4, 0xbd), 3, 'a sequence cut by the end of the file');
  assert.equal(at(0xc0, 0xaf), 0, 'an overlong slash');
  assert.equal(at(0xe0, 0x80, 0xaf), 1, 'an overlong three-byte form');
  assert.equal(at(0xed, 0xa0, 0x80), 1, 'a UTF-16 surrogate');
  assert.equal(at(0xf4, 0x90, 0x80, 0x80), 1, 'above U+10FFFF');
  assert.equal(at(0xe4, 0x41, 0xa0), 1);
});

test('a run.yaml naming another article fails the build in one line, naming the file and both slugs', async () => {
  const runs = snapshotRoot();
  try {
    const file = join(runs, SLUG, 'run.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(`slug: ${SLUG}`, `slug: ${OTHER}`));
    assert.equal(await buildProblem(runs), `${shown(file)}: field "slug": expected "${SLUG}" (the article these snapshots are read for), got "${OTHER}"`);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

test('with SHICE_SNAPSHOT_ROOT, an article without snapshots is named by the folder that was read', async () => {
  const runs = snapshotRoot();
  try {
    rmSync(join(runs, OTHER), { recursive: true });
    assert.equal(
      await buildProblem(runs),
      `${shown(join(runs, OTHER))}: not yet measured (no snapshots of ${OTHER}): capture it with \`npm run capture -- ${OTHER}\`, or preview it with \`npm run build:draft\``,
    );
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

test('a swap cut short (the folder set aside, the staged run beside it) makes the build say how to recover, not "not yet measured"', async () => {
  const runs = snapshotRoot();
  try {
    const runId = '20261202T000000Z-abcdef';
    renameSync(join(runs, SLUG), join(runs, `.${SLUG}.previous-${runId}`));
    cpSync(join(runs, `.${SLUG}.previous-${runId}`), join(runs, `.${SLUG}.staging-${runId}`), { recursive: true });
    for (const draft of [undefined, '1']) {
      const { problems } = await checkArticles(root, { SHICE_SNAPSHOT_ROOT: runs, ...(draft ? { SHICE_DRAFT: draft } : {}) }, { only: REFERENCE_ARTICLES });
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.match(
        problems[0]!,
        new RegExp(
          `^${shown(join(runs, SLUG)).replaceAll('.', '\\.')}: snapshot folder not found;.*\\.${SLUG}\\.previous-${runId}.*: run \`npm run capture -- --clean\` \\(or the next capture\\) to finish or undo the swap$`,
        ),
      );
      assert.doesNotMatch(problems[0]!, /not yet measured/);
    }
    assert.ok(!existsSync(join(runs, SLUG)));
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

test('what the build prints escapes bidi and terminal controls a snapshot carried into a problem', async () => {
  const runs = snapshotRoot();
  try {
    const file = join(runs, SLUG, 'run.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(`slug: ${SLUG}`, `slug: "${SLUG}\\u202e\\e[2J"`));
    const problem = await buildProblem(runs);
    assert.ok(problem.includes('\u202e'), 'the problem itself holds what the file holds');
    const printed = problemsMessage([problem]);
    assert.match(printed, /got "074-external-traffic-policy\\u202e\\u001b\[2J"$/, 'the escape JSON already wrote stays, the bidi override is escaped');
    assert.doesNotMatch(printed, /[\u202e\u001b]/);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});
