// A capture's run judged before the swap (judge-run.ts), kept aside when it
// breaks (kept-run.ts), and swapped in by `--accept` (scripts/capture.ts, for
// real: it needs no lab, only files). On copies of article 074's committed runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadArticle } from '../../src/authoring/load.ts';
import { judgeRuns } from '../../src/capture/session/judge-run.ts';
import { keepAside, keptFolder, KeptRunError, readKept, type KeptManifest } from '../../src/capture/session/kept-run.ts';
import { parseCaptureArgs, UsageError } from '../../src/capture/session/cli-args.ts';
import { displayPath } from '../../src/evidence/errors.ts';
import { treeDigest } from '../support/tree-digest.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLUG = '074-external-traffic-policy';
const COMMITTED = join(root, 'content/articles', SLUG, 'snapshots');
const defs = await loadArticle(root, SLUG);

/** A scratch folder holding copies of both committed runs: `<tmp>/iptables`, `<tmp>/nftables`. */
function runs(): { tmp: string; iptables: string; nftables: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-judge-'));
  cpSync(COMMITTED, join(tmp, 'iptables'), { recursive: true });
  cpSync(`${COMMITTED}.nftables`, join(tmp, 'nftables'), { recursive: true });
  // The run a capture kept under this id (its kept.json names it; the swap checks the two agree).
  const yaml = join(tmp, 'iptables', 'run.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(/^runId: \S+$/m, 'runId: 20261203T000000Z-aaaaaa'));
  return { tmp, iptables: join(tmp, 'iptables'), nftables: join(tmp, 'nftables') };
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `${file} holds ${from}`);
  writeFileSync(file, text.replace(from, to));
}

/** The claim "local-drops-without-backend" broken as a real run would: curl refused (7) instead of timing out (28). */
const breakClaim = (dir: string) => edit(join(dir, 'local-via-worker2.yaml'), 'exitCode: 28', 'exitCode: 7');
/** health-worker2's fact broken: the health check printed no HTTP status line. */
const breakFact = (dir: string) => edit(join(dir, 'health-worker2.yaml'), 'HTTP/1.1 503 Service Unavailable', 'nothing came back');

const nowhere = (variant: string) => `/nonexistent/${variant}`;
/** Both variants' runs judged together, as one capture of every variant would stage them. */
const judgeBoth = (iptables: string, nftables: string) =>
  judgeRuns(
    SLUG,
    defs,
    [
      { variant: 'iptables', dir: iptables },
      { variant: 'nftables', dir: nftables },
    ],
    nowhere,
  );

test('the committed runs of both variants, judged together: every fact derives, no claim breaks', () => {
  const { tmp, iptables, nftables } = runs();
  try {
    const judged = judgeBoth(iptables, nftables);
    assert.deepEqual(judged, { verdict: 'claims', broken: [], notes: [] });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a claim that breaks is named with its variant, its values and the file each came from', () => {
  const { tmp, iptables, nftables } = runs();
  try {
    breakClaim(iptables);
    const judged = judgeBoth(iptables, nftables);
    assert.equal(judged.verdict, 'claims');
    // The variant's own claim, and the comparison that reads the same value in both runs.
    const [block, across] = judged.verdict === 'claims' ? judged.broken : [];
    assert.equal(judged.verdict === 'claims' && judged.broken.length, 2);
    assert.match(block!, /^iptables: claim "local-drops-without-backend" no longer holds: Under Local, a node without a local backend drops/);
    assert.ok(block!.includes(`local-via-worker2.rc = "7"  from ${displayPath(join(iptables, 'local-via-worker2.yaml'))}`), block);
    // A claim's values are the facts its check read: it stopped at the exit code, so the DROP rule's port is not listed.
    assert.doesNotMatch(block!, /iptables-worker2\.dropPort =/);
    assert.match(across!, /^across iptables, nftables: claim "modes-drop-alike" no longer holds/);
    assert.ok(across!.includes(`iptables:local-via-worker2.rc = "7"  from ${displayPath(join(iptables, 'local-via-worker2.yaml'))}`), across);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a comparison broken by the second variant's run lists each run's value with the file of its own run", () => {
  const { tmp, iptables, nftables } = runs();
  try {
    breakClaim(nftables);
    const judged = judgeBoth(iptables, nftables);
    assert.equal(judged.verdict, 'claims');
    const [block, across] = judged.verdict === 'claims' ? judged.broken : [];
    assert.equal(judged.verdict === 'claims' && judged.broken.length, 2);
    assert.match(block!, /^nftables: claim "nft-drops-without-backend" no longer holds/);
    assert.ok(block!.includes(`local-via-worker2.rc = "7"  from ${displayPath(join(nftables, 'local-via-worker2.yaml'))}`), block);
    assert.match(across!, /^across iptables, nftables: claim "modes-drop-alike" no longer holds/);
    assert.ok(across!.includes(`iptables:local-via-worker2.rc = "28"  from ${displayPath(join(iptables, 'local-via-worker2.yaml'))}`), across);
    assert.ok(across!.includes(`nftables:local-via-worker2.rc = "7"  from ${displayPath(join(nftables, 'local-via-worker2.yaml'))}`), across);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a healthy run that no longer shows what a fact reads: a change in behaviour, the fact and the claims resting on it broken', () => {
  const { tmp, iptables, nftables } = runs();
  try {
    breakFact(iptables);
    const judged = judgeBoth(iptables, nftables);
    assert.equal(judged.verdict, 'claims');
    const broken = judged.verdict === 'claims' ? judged.broken : [];
    const file = displayPath(join(iptables, 'health-worker2.yaml'));
    assert.ok(
      broken.some(
        (b) =>
          b.startsWith('iptables: claim "health-check-follows-local-endpoints" no longer holds:') &&
          b.includes(`this run has no fact health-worker2.status: ${file}: expected an HTTP status line`),
      ),
      broken.join('\n'),
    );
    assert.ok(
      broken.some(
        (b) => b.startsWith('iptables: fact "health-worker2.status" is not in this run: expected an HTTP status line') && b.endsWith(`looked for in ${file}`),
      ),
      broken.join('\n'),
    );
    assert.ok(!broken.some((b) => b.startsWith('nftables:')), 'the other variant is judged on its own');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a run that went wrong (a step reached its time limit) and lacks a fact is no measurement: the verdict "facts", naming variant, file and fact', () => {
  const { tmp, iptables, nftables } = runs();
  try {
    breakFact(iptables);
    edit(join(iptables, 'health-worker2.yaml'), 'exitCode: 0', 'exitCode: 0\ntimedOut: true');
    breakClaim(nftables);
    const judged = judgeBoth(iptables, nftables);
    assert.equal(judged.verdict, 'facts');
    const problems = judged.verdict === 'facts' ? judged.problems : [];
    assert.ok(problems.length >= 1);
    for (const p of problems) {
      assert.ok(p.startsWith(`variant iptables: ${displayPath(join(iptables, 'health-worker2.yaml'))}: fact "health-worker2.`), p);
      assert.match(p, /\(and the run went wrong: step health-worker2 reached its time limit\)$/);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('one variant staged alone: the claims across variants read the other variant where the swap leaves it, or are noted as not evaluated', () => {
  const { tmp, iptables, nftables } = runs();
  try {
    assert.deepEqual(
      judgeRuns(SLUG, defs, [{ variant: 'nftables', dir: nftables }], (v) => (v === 'iptables' ? iptables : nowhere(v))),
      { verdict: 'claims', broken: [], notes: [] },
    );
    const alone = judgeRuns(SLUG, defs, [{ variant: 'nftables', dir: nftables }], nowhere);
    assert.deepEqual(alone, {
      verdict: 'claims',
      broken: [],
      notes: ['the claims across variants were not evaluated: the default variant iptables has no run yet'],
    });
    // The default variant alone, the other nowhere yet: the comparisons read a run that does not exist, so they are noted, not broken.
    assert.deepEqual(judgeRuns(SLUG, defs, [{ variant: 'iptables', dir: iptables }], nowhere), {
      verdict: 'claims',
      broken: [],
      notes: [
        'the claims across variants modes-drop-alike, modes-source-alike, modes-health-alike were not evaluated: they read nftables, which has no run yet',
      ],
    });
    // What the staged run decides alone still breaks a comparison: curl refused (7) in it, whatever the other mode did.
    breakClaim(iptables);
    const judged = judgeRuns(SLUG, defs, [{ variant: 'iptables', dir: iptables }], nowhere);
    assert.equal(judged.verdict, 'claims');
    assert.deepEqual(judged.verdict === 'claims' && judged.broken.map((b) => b.split('\n')[0]), [
      'iptables: claim "local-drops-without-backend" no longer holds: Under Local, a node without a local backend drops packets to the NodePort: curl gives up with its timeout exit code and the filter table holds the DROP rule',
      'across iptables: claim "modes-drop-alike" no longer holds: In both modes the node without a local backend drops packets to the Local NodePort: curl gives up with the same timeout exit code',
    ]);
    assert.deepEqual(judged.verdict === 'claims' && judged.notes, [
      'the claims across variants modes-source-alike, modes-health-alike were not evaluated: they read nftables, which has no run yet',
    ]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

const manifestFor = (target: string, reason: KeptManifest['reason'] = 'claims'): KeptManifest => ({
  schema: 1,
  slug: SLUG,
  reason,
  keptAt: '2026-12-03T00:00:00.000Z',
  runs: [{ variant: 'iptables', runId: '20261203T000000Z-aaaaaa', target, folder: SLUG }],
});

test('a kept run: its staged folder moved beside kept.json, read back; a broken manifest or a missing folder is one line naming the file', () => {
  const { tmp, iptables } = runs();
  try {
    const base = join(tmp, 'kept');
    const manifest = manifestFor(join(tmp, 'out', SLUG));
    const dir = keepAside(base, manifest, () => iptables);
    assert.equal(dir, join(base, '20261203T000000Z-aaaaaa'));
    assert.equal(existsSync(iptables), false, 'moved, not copied');
    assert.deepEqual(readdirSync(dir).sort(), [SLUG, 'kept.json']);
    assert.deepEqual(readKept(keptFolder('20261203T000000Z-aaaaaa', base)), { dir, manifest });
    assert.equal(keptFolder(dir, base), dir);
    writeFileSync(join(dir, 'kept.json'), JSON.stringify({ ...manifest, reason: 'because' }));
    assert.throws(
      () => readKept(dir),
      (e: unknown) => e instanceof KeptRunError && /kept\.json: field "reason": expected one of/.test(e.message) && !e.message.includes('\n'),
    );
    writeFileSync(join(dir, 'kept.json'), JSON.stringify(manifest));
    rmSync(join(dir, SLUG), { recursive: true });
    assert.throws(() => readKept(dir), new RegExp(`kept\\.json: field "runs": names ${SLUG}, but .* does not exist`));
    assert.throws(() => readKept(join(tmp, 'nothing')), /no kept run here \(no kept\.json\)/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('--accept takes a kept run and nothing else', () => {
  assert.equal(parseCaptureArgs(['--accept', 'r-1']).accept, 'r-1');
  for (const argv of [
    ['--accept', 'r-1', SLUG],
    ['--accept', 'r-1', '--out', '/tmp/x'],
    ['--accept', 'r-1', '--driver', 'lab'],
    ['--accept', ''],
  ]) {
    assert.throws(() => parseCaptureArgs(argv), UsageError, argv.join(' '));
  }
});

/** A target holding the committed run, a kept run (broken claim) aimed at it, and the capture's own state folders. */
function acceptScene(reason: KeptManifest['reason'] = 'claims') {
  const { tmp, iptables } = runs();
  const out = join(tmp, 'out');
  mkdirSync(out);
  const target = join(out, SLUG);
  cpSync(COMMITTED, target, { recursive: true });
  writeFileSync(join(out, 'notes-of-someone-else.txt'), "not the capture's\n");
  breakClaim(iptables);
  const kept = keepAside(join(tmp, 'kept'), manifestFor(target, reason), () => iptables);
  const env = { ...process.env, SHICE_KEPT_RUNS: join(tmp, 'kept'), SHICE_RUN_REGISTRY: join(tmp, 'registry') };
  const accept = (ref: string) => spawnSync(process.execPath, [join(root, 'scripts/capture.ts'), '--accept', ref], { cwd: root, env, encoding: 'utf8' });
  return { tmp, out, target, kept, accept };
}

test("--accept swaps a kept run in under the capture's lock and records, says what broke, and leaves nothing behind", () => {
  const { tmp, out, target, kept, accept } = acceptScene();
  try {
    const keptRun = treeDigest(join(kept, SLUG));
    const result = accept('20261203T000000Z-aaaaaa');
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(treeDigest(target), keptRun, 'the target holds the kept run, byte for byte');
    assert.match(result.stderr, /^accepted run 20261203T000000Z-aaaaaa of 074-external-traffic-policy variant iptables: .* now holds it/m);
    assert.match(result.stderr, /claim "local-drops-without-backend" no longer holds/);
    assert.match(result.stderr, /local-via-worker2\.rc = "7"/);
    assert.equal(existsSync(kept), false, 'the kept folder is gone');
    assert.deepEqual(readdirSync(out).sort(), [SLUG, 'notes-of-someone-else.txt'], 'no staging, previous or lock left');
    assert.deepEqual(readdirSync(join(tmp, 'registry')), [], 'no record left');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('--accept refuses a run kept because its facts could not be derived; the target stays byte for byte', () => {
  const { tmp, target, kept, accept } = acceptScene('facts');
  try {
    const before = treeDigest(target);
    const result = accept(kept);
    assert.equal(result.status, 2, result.stderr);
    const lines = result.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /its facts could not be derived when it was captured; .* cannot be accepted$/);
    assert.deepEqual(treeDigest(target), before);
    assert.ok(existsSync(join(kept, 'kept.json')), 'the kept run stays');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('--accept of a run that no longer shows a fact the article reads (a finding): swapped in, and the report says the behaviour changed and what is gone', () => {
  const { tmp, target, kept, accept } = acceptScene('claims');
  try {
    breakFact(join(kept, SLUG));
    const result = accept(kept);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /^what changed: the behaviour changed \(\d+ claims?, \d+ facts?\)$/m);
    assert.match(result.stderr, /^ {2}claim health-check-follows-local-endpoints: holds -> broken$/m);
    assert.match(result.stderr, /^ {2}health-worker2\.status: "503" -> \(none\)$/m);
    assert.ok(!existsSync(kept), 'the kept run was swapped in');
    assert.match(readFileSync(join(target, 'health-worker2.yaml'), 'utf8'), /nothing came back/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
