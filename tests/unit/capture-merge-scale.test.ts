// capture:merge at the size of the whole series: 300 run folders (75 articles ×
// kind and lab × iptables and nftables), read, judged and swapped in; the test
// reports how long that took (wall and CPU), and asserts only what it did. The
// articles are copies of 074 under other slugs and their runs copies of 074's
// committed runs with the slug and run id changed: material for a timing, never
// evidence (nothing here reaches a page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareMerge } from '../../src/capture/merge.ts';
import { swapInRuns } from '../../src/capture/swap-in.ts';

const root = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const SOURCE = '074-external-traffic-policy';
const ARTICLES = 75;
const RUNS = { snapshots: '', 'snapshots.nftables': '.nftables', 'snapshots.lab': '.lab', 'snapshots.lab.nftables': '.lab.nftables' };

/** Every text file under `dir` with `from` replaced by `to`. */
function rewrite(dir: string, from: string, to: string): void {
  for (const name of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!name.isFile()) continue;
    const file = join(name.parentPath, name.name);
    const text = readFileSync(file, 'utf8');
    if (text.includes(from)) writeFileSync(file, text.replaceAll(from, to));
  }
}

test(`a merge of ${ARTICLES * 4} run folders: read, judged and swapped in, its time reported`, async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), 'shice-merge-scale-'));
  const cwd = process.cwd();
  try {
    const project = join(tmp, 'project');
    const articles = join(project, 'content/articles');
    mkdirSync(articles, { recursive: true });
    symlinkSync(join(root, 'src'), join(project, 'src'));
    const dirs: string[] = [];
    for (let i = 1; i <= ARTICLES; i++) {
      const slug = `${String(100 + i)}-scale`;
      // The article's definitions, its committed runs left out (the merge brings them).
      cpSync(join(root, 'content/articles', SOURCE), join(articles, slug), {
        recursive: true,
        filter: (src) => !/\/snapshots[^/]*$/.test(src) && !src.endsWith('.mdx'),
      });
      rewrite(join(articles, slug), SOURCE, slug);
      for (const [folder, suffix] of Object.entries(RUNS)) {
        const out = join(tmp, 'artifacts', `${slug}${suffix}`);
        cpSync(join(root, 'content/articles', SOURCE, folder), join(out, `${slug}${suffix}`), { recursive: true });
        const yaml = join(out, `${slug}${suffix}`, 'run.yaml');
        const text = readFileSync(yaml, 'utf8');
        const runId = /^runId: (\S+)$/m.exec(text)![1]!;
        writeFileSync(yaml, text.replace(`slug: ${SOURCE}`, `slug: ${slug}`));
        // A run id of its own, everywhere the run recorded it (the lab's namespaces carry it).
        rewrite(join(out, `${slug}${suffix}`), runId, `${runId.slice(0, -6)}${String(i).padStart(3, '0')}${suffix.length}`);
        dirs.push(out);
      }
    }
    // A declared fact reads its manifest from content/articles under the working directory, as the build and npm run do.
    process.chdir(project);
    process.env.SHICE_RUN_REGISTRY = join(tmp, 'registry');

    const cpu = process.cpuUsage();
    const started = performance.now();
    const ready = await prepareMerge({ root: project, dirs, variants: [], acceptBrokenClaims: false });
    const prepared = performance.now();
    assert.ok(!('code' in ready), 'code' in ready ? ready.lines.slice(0, 3).join('\n') : '');
    assert.equal(ready.groups.flatMap((g) => g.runs).length, ARTICLES * 4);
    await swapInRuns(ready.groups, { signal: new AbortController().signal, say: () => {}, acceptBrokenClaims: false });
    const done = performance.now();
    const used = process.cpuUsage(cpu);

    for (const slug of readdirSync(articles)) {
      const folders = readdirSync(join(articles, slug)).filter((n) => n.startsWith('snapshots') || n.startsWith('.snapshots'));
      assert.deepEqual(folders.sort(), Object.keys(RUNS).sort(), `${slug}: the four runs and nothing beside them`);
    }
    const s = (ms: number) => (ms / 1000).toFixed(1);
    t.diagnostic(
      `${ARTICLES * 4} run folders of ${ARTICLES} articles: checked and judged in ${s(prepared - started)} s, swapped in in ${s(done - prepared)} s; ${s(done - started)} s wall, ${s((used.user + used.system) / 1000)} s CPU`,
    );
  } finally {
    process.chdir(cwd);
    rmSync(tmp, { recursive: true, force: true });
  }
});
