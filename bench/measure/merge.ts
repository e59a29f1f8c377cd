// capture:merge at the size of the whole series: the runs of 75 articles (kind
// and lab, iptables and nftables: 300 run folders) read, judged and swapped in
// by the code capture.yml's merge job runs, timed (wall and CPU). The articles
// are copies of --article under other slugs and their runs copies of its
// committed headline runs with the slug and run id changed: material for a
// timing, never evidence (nothing here reaches a page). The figure is measured
// only when the merge did what it is for: every run swapped in, nothing beside.
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareMerge } from '../../src/capture/merge/merge.ts';
import { swapInRuns } from '../../src/capture/merge/swap-in.ts';
import { measured, notMeasured, type Figure } from '../figures.ts';
import { makeTempDir } from '../temp-dirs.ts';
import { errorMessage, withTemporary, type BenchContext } from './context.ts';

export const MERGE_ARTICLES = 75;
/** The headline's four runs: the folder each lives in and the suffix of its artifact. */
const RUNS = { snapshots: '', 'snapshots.nftables': '.nftables', 'snapshots.lab': '.lab', 'snapshots.lab.nftables': '.lab.nftables' };
const FOLDERS = MERGE_ARTICLES * Object.keys(RUNS).length;

const BASE = {
  id: 'merge.series',
  group: 'merge' as const,
  label: `capture:merge of the series' runs: ${FOLDERS} run folders of ${MERGE_ARTICLES} articles, read, judged and swapped in`,
  unit: 's' as const,
};

/** Every text file under `dir` with `from` replaced by `to`. */
function rewrite(dir: string, from: string, to: string): void {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    if (text.includes(from)) writeFileSync(file, text.replaceAll(from, to));
  }
}

/** A project of MERGE_ARTICLES copies of `source` without their runs, and each copy's runs as the merge job's artifacts. */
function writeSeries(root: string, tmp: string, source: string): { project: string; dirs: string[] } {
  const project = join(tmp, 'project');
  const articles = join(project, 'content/articles');
  mkdirSync(articles, { recursive: true });
  symlinkSync(join(root, 'src'), join(project, 'src'));
  const dirs: string[] = [];
  for (let i = 1; i <= MERGE_ARTICLES; i++) {
    const slug = `${String(100 + i)}-merge-scale`;
    cpSync(join(root, 'content/articles', source), join(articles, slug), {
      recursive: true,
      filter: (src) => !/\/snapshots[^/]*$/.test(src) && !src.endsWith('.mdx'),
    });
    rewrite(join(articles, slug), source, slug);
    for (const [folder, suffix] of Object.entries(RUNS)) {
      const out = join(tmp, 'artifacts', `${slug}${suffix}`);
      cpSync(join(root, 'content/articles', source, folder), join(out, `${slug}${suffix}`), { recursive: true });
      const yaml = join(out, `${slug}${suffix}`, 'run.yaml');
      const text = readFileSync(yaml, 'utf8');
      const runId = /^runId: (\S+)$/m.exec(text)?.[1];
      if (!runId) throw new Error(`${source}/${folder}/run.yaml: no runId`);
      writeFileSync(yaml, text.replace(`slug: ${source}`, `slug: ${slug}`));
      // A run id of its own, everywhere the run recorded it (the lab's namespaces carry it).
      rewrite(join(out, `${slug}${suffix}`), runId, `${runId.slice(0, -6)}${String(i).padStart(3, '0')}${suffix.length}`);
      dirs.push(out);
    }
  }
  return { project, dirs };
}

export async function measureMerge(ctx: BenchContext): Promise<Figure[]> {
  const cwd = process.cwd();
  const registry = process.env.SHICE_RUN_REGISTRY;
  try {
    return await withTemporary(
      ctx,
      () => makeTempDir('merge'),
      (tmp) =>
        ctx.progress.task(`capture:merge of ${FOLDERS} run folders (${MERGE_ARTICLES} copies of ${ctx.args.article})`, async () => {
          const { project, dirs } = writeSeries(ctx.root, tmp.dir, ctx.args.article);
          // A declared fact reads its manifest from content/articles under the working directory, as npm run does.
          process.chdir(project);
          process.env.SHICE_RUN_REGISTRY = join(tmp.dir, 'registry');
          const cpu = process.cpuUsage();
          const started = performance.now();
          const ready = await prepareMerge({ root: project, dirs, variants: [], acceptBrokenClaims: false });
          if ('code' in ready) return [notMeasured(BASE, `the merge refused the runs: ${ready.lines[0] ?? `exit ${ready.code}`}`)];
          const runs = ready.groups.flatMap((g) => g.runs).length;
          if (runs !== FOLDERS) return [notMeasured(BASE, `the merge prepared ${runs} runs, expected ${FOLDERS}`)];
          const prepared = performance.now();
          await swapInRuns(ready.groups, { signal: ctx.cancelSignal, say: () => {}, acceptBrokenClaims: false });
          const done = performance.now();
          const used = process.cpuUsage(cpu);
          for (const slug of readdirSync(join(project, 'content/articles'))) {
            const folders = readdirSync(join(project, 'content/articles', slug)).filter((n) => n.startsWith('snapshots') || n.startsWith('.snapshots'));
            if (folders.sort().join() !== Object.keys(RUNS).sort().join())
              return [notMeasured(BASE, `${slug} holds ${folders.join(', ') || 'nothing'} after the merge, expected its four runs and nothing beside them`)];
          }
          const s = (ms: number) => (ms / 1000).toFixed(1);
          return [
            measured(BASE, (done - started) / 1000, {
              note: `checked and judged in ${s(prepared - started)} s, swapped in in ${s(done - prepared)} s; ${s((used.user + used.system) / 1000)} s CPU`,
              details: { judgeSeconds: (prepared - started) / 1000, swapSeconds: (done - prepared) / 1000, cpuSeconds: (used.user + used.system) / 1e6 },
            }),
          ];
        }),
    );
  } catch (error) {
    return [notMeasured(BASE, errorMessage(error))];
  } finally {
    process.chdir(cwd);
    if (registry === undefined) delete process.env.SHICE_RUN_REGISTRY;
    else process.env.SHICE_RUN_REGISTRY = registry;
  }
}
