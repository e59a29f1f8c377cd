// The evidence memo (src/article/evidence/evidence-memo.ts): an article's evidence is
// served from it only for the same article and only while every file it was
// derived from is exactly as it was; a changed snapshot is derived afresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyCommittedRuns } from '../support/snapshot-root.ts';
import { fileURLToPath } from 'node:url';
import {
  articleFileStamps,
  EvidenceMemo,
  evidenceMemo,
  memoKey,
  PageEvidence,
  stampsSignature,
  type FileStamp,
  type MemoTarget,
} from '../../src/article/evidence/evidence-memo.ts';
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';
import { checkArticles } from '../../src/article/check/integration.ts';
import type { ArticleEvidence } from '../../src/evidence/runs/types.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLUG = '074-external-traffic-policy';

const target = (over: Partial<MemoTarget> = {}): MemoTarget => ({
  slug: 'a',
  articleDir: '/x/content/articles/a',
  snapshotsDir: '/x/content/articles/a/snapshots',
  draft: false,
  ...over,
});
const evidence = (slug: string) => ({ slug }) as unknown as ArticleEvidence;

test('the signature is the set of stamps, whatever their order; any change of size, time or path changes it', () => {
  const a: FileStamp = { path: '/s/run.yaml', size: 10n, mtimeNs: 5n };
  const b: FileStamp = { path: '/s/curl.yaml', size: 20n, mtimeNs: 6n };
  assert.equal(stampsSignature([a, b]), stampsSignature([b, a]));
  assert.notEqual(stampsSignature([a, b]), stampsSignature([{ ...a, size: 11n }, b]));
  assert.notEqual(stampsSignature([a, b]), stampsSignature([{ ...a, mtimeNs: 7n }, b]));
  assert.notEqual(stampsSignature([a, b]), stampsSignature([a]));
  assert.notEqual(stampsSignature([a, b]), stampsSignature([a, b, { path: '/s/new.yaml', size: 1n, mtimeNs: 1n }]));
});

test('an entry belongs to one article, snapshots folder and draft setting', () => {
  assert.notEqual(memoKey(target()), memoKey(target({ slug: 'b', articleDir: '/x/content/articles/b' })));
  assert.notEqual(memoKey(target()), memoKey(target({ snapshotsDir: '/elsewhere/a' })));
  assert.notEqual(memoKey(target()), memoKey(target({ draft: true })));
});

test('the memo serves an entry only while the stamps are the same', () => {
  let stamps: FileStamp[] = [{ path: '/x/content/articles/a/snapshots/run.yaml', size: 10, mtimeNs: 1 }];
  const memo = new EvidenceMemo(() => stamps);
  assert.equal(memo.recall(target()), undefined);
  memo.remember(target(), memo.stamps(target()), evidence('a'));
  assert.equal(memo.recall(target())?.slug, 'a');
  // Another article, even one with the same files' stamps, does not get it.
  assert.equal(memo.recall(target({ slug: 'b' })), undefined);
  assert.equal(memo.recall(target({ draft: true })), undefined);
  // A snapshot rewritten: same size, another time.
  stamps = [{ ...stamps[0]!, mtimeNs: 2 }];
  assert.equal(memo.recall(target()), undefined);
  // And it stays a miss (the stale entry is dropped), even if the stamps came back.
  stamps = [{ ...stamps[0]!, mtimeNs: 1 }];
  assert.equal(memo.recall(target()), undefined);
});

test('stamps taken before deriving: a file changed during the derivation is not served', () => {
  let mtimeNs = 1;
  const memo = new EvidenceMemo(() => [{ path: '/p', size: 1, mtimeNs }]);
  const before = memo.stamps(target());
  mtimeNs = 2; // changed while deriving
  memo.remember(target(), before, evidence('a'));
  assert.equal(memo.recall(target()), undefined);
});

test("articleFileStamps sees every file of the article, the variants' snapshots and snapshots read from elsewhere", () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-memo-'));
  try {
    const article = join(dir, 'content/articles/a');
    mkdirSync(join(article, 'snapshots'), { recursive: true });
    mkdirSync(join(article, 'snapshots.nftables'), { recursive: true });
    writeFileSync(join(article, 'facts.ts'), 'x');
    writeFileSync(join(article, 'snapshots/run.yaml'), 'x');
    writeFileSync(join(article, 'snapshots.nftables/run.yaml'), 'x');
    const own = articleFileStamps({ slug: 'a', articleDir: article, snapshotsDir: join(article, 'snapshots'), draft: false })
      .map((s) => s.path)
      .sort();
    assert.deepEqual(own, [join(article, 'facts.ts'), join(article, 'snapshots.nftables/run.yaml'), join(article, 'snapshots/run.yaml')]);
    const other = join(dir, 'run-root');
    mkdirSync(join(other, 'a'), { recursive: true });
    mkdirSync(join(other, 'a.nftables'), { recursive: true });
    mkdirSync(join(other, 'ab'), { recursive: true });
    writeFileSync(join(other, 'a/run.yaml'), 'x');
    writeFileSync(join(other, 'a.nftables/run.yaml'), 'x');
    writeFileSync(join(other, 'ab/run.yaml'), 'x');
    const elsewhere = articleFileStamps({ slug: 'a', articleDir: article, snapshotsDir: join(other, 'a'), draft: false }).map((s) => s.path);
    assert.ok(elsewhere.includes(join(other, 'a/run.yaml')));
    assert.ok(elsewhere.includes(join(other, 'a.nftables/run.yaml')));
    assert.ok(!elsewhere.includes(join(other, 'ab/run.yaml')), "another article's folder is not this one's");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the build check remembers each article's evidence; a changed snapshot file is not served from the memo", async () => {
  // The committed runs copied to a snapshot root of their own (SHICE_SNAPSHOT_ROOT), so the test may change them.
  const runs = mkdtempSync(join(tmpdir(), 'shice-memo-'));
  try {
    copyCommittedRuns(root, runs);
    const env = { SHICE_SNAPSHOT_ROOT: runs };
    assert.deepEqual((await checkArticles(root, env, { only: REFERENCE_ARTICLES })).problems, []);
    const mine: MemoTarget = { slug: SLUG, articleDir: join(root, 'content/articles', SLUG), snapshotsDir: join(runs, SLUG), draft: false };
    const remembered = evidenceMemo().recall(mine);
    assert.ok(remembered, "the check left the article's evidence for the pages");
    assert.equal(remembered.slug, SLUG);
    assert.equal(remembered.snapshots.files.run, join(runs, SLUG, 'run.yaml'));
    assert.equal(evidenceMemo().recall({ ...mine, draft: true }), undefined);
    assert.equal(evidenceMemo().recall({ ...mine, snapshotsDir: join(root, 'content/articles', SLUG, 'snapshots') }), undefined);
    // A snapshot touched (same content, a new time): a miss. Checked again: remembered again.
    const run = join(runs, SLUG, 'run.yaml');
    const later = new Date(Date.now() + 60_000);
    utimesSync(run, later, later);
    assert.equal(evidenceMemo().recall(mine), undefined);
    await checkArticles(root, env, { only: REFERENCE_ARTICLES });
    assert.ok(evidenceMemo().recall(mine));
    // The other variant's snapshot changed: a miss too.
    appendFileSync(join(runs, `${SLUG}.nftables`, 'run.yaml'), '# changed\n');
    assert.equal(evidenceMemo().recall(mine), undefined);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

test("npm run dev's pages: an article's evidence derived once for all its pages, again when a snapshot or the definition changes", () => {
  const dir = mkdtempSync(join(tmpdir(), 'shice-memo-'));
  try {
    const article = join(dir, 'content/articles/a');
    mkdirSync(join(article, 'snapshots'), { recursive: true });
    const run = join(article, 'snapshots/run.yaml');
    writeFileSync(join(article, 'article.ts'), 'x');
    writeFileSync(run, 'runId: one\n');
    const mine = target({ articleDir: article, snapshotsDir: join(article, 'snapshots') });
    const pages = new PageEvidence();
    let derived = 0;
    const derive = () => (derived++, evidence(`a#${derived}`));
    const definition = { facts: [] };
    // An article's 36 pages (article, evidence page, 32 run records in two languages), each asking as often as it binds.
    for (let page = 0; page < 36 * 3; page++) assert.equal(pages.evidence(mine, definition, derive).slug, 'a#1');
    assert.equal(derived, 1);
    // A capture writes the run again: the next page derives it anew, and the ones after take that.
    writeFileSync(run, 'runId: two, longer\n');
    assert.equal(pages.evidence(mine, definition, derive).slug, 'a#2');
    assert.equal(pages.evidence(mine, definition, derive).slug, 'a#2');
    // The same bytes with a new time (a file touched) are a change too; so is a new file beside the run.
    const later = new Date(Date.now() + 60_000);
    utimesSync(run, later, later);
    assert.equal(pages.evidence(mine, definition, derive).slug, 'a#3');
    writeFileSync(join(article, 'snapshots/curl.yaml'), 'x');
    assert.equal(pages.evidence(mine, definition, derive).slug, 'a#4');
    // article.ts edited: Vite imports a new module, whose definition is another object.
    assert.equal(pages.evidence(mine, { facts: [] }, derive).slug, 'a#5');
    // Another article, or the same one in a draft build, is never served this one's.
    assert.equal(pages.evidence({ ...mine, slug: 'b' }, definition, derive).slug, 'a#6');
    assert.equal(pages.evidence({ ...mine, draft: true }, definition, derive).slug, 'a#7');
    assert.equal(derived, 7);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("npm run dev's pages: a derivation that fails is not kept; a file changed while deriving is derived again", () => {
  let mtimeNs = 1;
  const pages = new PageEvidence(() => [{ path: '/p', size: 1, mtimeNs }]);
  let derived = 0;
  assert.throws(() =>
    pages.evidence(target(), null, () => {
      derived++;
      throw new Error('broken snapshot');
    }),
  );
  const derive = () => (derived++, evidence(`a#${derived}`));
  assert.equal(pages.evidence(target(), null, derive).slug, 'a#2');
  // Stamped before deriving: a write during the derivation misses on the next page.
  const changing = () => ((mtimeNs = 2), derive());
  mtimeNs = 1;
  assert.equal(pages.evidence(target({ slug: 'c' }), null, changing).slug, 'a#3');
  assert.equal(pages.evidence(target({ slug: 'c' }), null, derive).slug, 'a#4');
  assert.equal(pages.evidence(target({ slug: 'c' }), null, derive).slug, 'a#4');
});
