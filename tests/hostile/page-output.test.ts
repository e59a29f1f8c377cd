// The page side of hostile output, through a real `astro build` of the article
// from a snapshot folder (SHICE_SNAPSHOT_ROOT) whose steps hold bytes that are
// not UTF-8 and a stream the capture cut: the raw output shows escaped with a
// visible note, never a replacement character; a fact that reads a cut stream
// fails with a clear error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCommittedRuns } from '../support/snapshot-root.ts';
import { siteCopy } from '../support/project-copy.ts';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { toYaml } from '../../src/capture/snapshots/snapshot-writer.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { deriveFacts } from '../../src/evidence/facts.ts';
import { EvidenceError } from '../../src/evidence/errors.ts';
import { withRunFacts } from '../../src/evidence/run-facts.ts';
import { article074 } from '../support/articles.ts';

/** The facts of article 074's default run (iptables): the common ones and that variant's own. */
const factDefs = [...article074.factDefs, ...article074.variantFactDefs!.iptables!];

/** The facts the build derives from a snapshot folder: the article's and the run's. */
function deriveFrom(dir: string) {
  const snapshots = loadSnapshots(dir);
  return deriveFacts(
    withRunFacts(
      factDefs.filter((d) => !d.optional),
      snapshots.run,
    ),
    snapshots,
  );
}

const SLUG = '074-external-traffic-policy';
const root = fileURLToPath(new URL('../../', import.meta.url));

function edit(file: string, change: (step: Record<string, unknown>) => void): void {
  const step = load(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(step);
  writeFileSync(file, toYaml(step));
}

function htmlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? htmlFiles(path) : name.endsWith('.html') ? [path] : [];
  });
}

test('non-UTF-8 and cut output build into pages that show it escaped, with a note in each language', { timeout: 180_000 }, () => {
  // A copy of the site: the host lane never builds in the checkout, where the machine lane's builds run.
  const work = siteCopy(root, 'fault-page');
  try {
    // Every article's committed runs (the article binds its nftables and lab runs too); the headline run is changed.
    copyCommittedRuns(work, join(work, 'runs'));
    const snapshots = join(work, 'runs', SLUG);
    edit(join(snapshots, 'cluster-via-worker.yaml'), (step) => {
      const bytes = Buffer.concat([Buffer.from(step.stdout as string), Buffer.from([0xff, 0xfe]), Buffer.from(' trailing bytes\n')]);
      step.stdout = bytes.toString('base64');
      step.stdoutEncoding = 'base64';
    });
    const kept = 'removed\n'.repeat(16);
    edit(join(snapshots, 'delete-backend.yaml'), (step) => {
      step.stdout = kept;
      step.stdoutCut = { bytes: 5_000_000, sha256: createHash('sha256').update('the whole stream').digest('hex') };
    });
    // The facts still derive: client= is read from the escaped text; no fact reads delete-backend's stdout.
    const facts = deriveFrom(snapshots);
    assert.match(facts.get('cluster-via-worker.client')!.value, /^\d+\.\d+\.\d+\.\d+$/);

    const outDir = join(work, 'dist');
    const build = spawnSync(process.execPath, [join(work, 'node_modules/astro/bin/astro.mjs'), 'build', '--outDir', outDir], {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, SHICE_SNAPSHOT_ROOT: join(work, 'runs') },
      timeout: 170_000,
    });
    assert.equal(build.status, 0, `${build.stdout.slice(-2000)}\n${build.stderr.slice(-2000)}`);
    const noted = htmlFiles(outDir)
      .filter((f) => readFileSync(f, 'utf8').includes('data-stream-note'))
      .map((f) => f.slice(outDir.length))
      .sort();
    // The article in each language, and the record of the run in each language, where every step's output is.
    assert.deepEqual(noted, [`/${SLUG}/index.html`, `/${SLUG}/run/index.html`, `/en/${SLUG}/index.html`, `/en/${SLUG}/run/index.html`]);
    const pages = noted.filter((f) => !f.includes('/run/')).map((f) => readFileSync(join(outDir, f), 'utf8'));
    // The notes as a reader reads them: the prose pass keeps names like UTF-8 on one line with a span.
    const text = (html: string) => html.replace(/<[^>]+>/g, '');
    const [zh, en] = [pages.find((p) => text(p).includes('非 UTF-8')), pages.find((p) => text(p).includes('not UTF-8'))];
    assert.ok(zh && en, 'a note in each language');
    for (const html of [zh, en]) {
      assert.ok(!html.includes('\uFFFD'), 'no replacement character on the page');
      assert.match(html, /\\xff/);
      assert.match(html, /\\xfe/);
      assert.match(html, /5000000/);
    }
    assert.match(text(en), /The output was cut: the first 128 of 5000000 bytes are kept and shown/);
    assert.match(text(zh), /仅保存并显示前 128 字节，共 5000000 字节/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a fact that reads a cut stream fails with the step, the bytes kept and what to do', () => {
  const work = mkdtempSync(join(tmpdir(), 'shice-fault-cut-'));
  try {
    const snapshots = join(work, SLUG);
    cpSync(join(root, 'content/articles', SLUG, 'snapshots'), snapshots, { recursive: true });
    edit(join(snapshots, 'health-worker.yaml'), (step) => {
      step.stdoutCut = { bytes: 9_999_999, sha256: 'a'.repeat(64) };
    });
    assert.throws(
      () => deriveFrom(snapshots),
      (error: unknown) => {
        assert.ok(error instanceof EvidenceError);
        assert.match(
          error.problems[0]!,
          /health-worker\.yaml: fact "health-worker\.status": step health-worker's stdout was cut by the capture: \d+ of 9999999 bytes kept \(sha256 a{64}\); a fact cannot be derived from part of it \(make the step print less\)/,
        );
        return true;
      },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
