// `npm run cite -- [slug ...]`: reads the lines each article's citations name
// from the Go module k8s.io/kubernetes of every release its runs used (`go mod
// download`, from the machine's module cache or the module proxy) and keeps
// them in the article's upstream.yaml. It says what changed since the last
// record (a citation that moved, one whose text changed), and writes nothing
// when a release lacks a cited line: the build would fail on it, named.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTICLES, articleDir, listArticleSlugs, loadArticle } from '../src/authoring/load.ts';
import { evidenceFromDisk } from '../src/evidence/runs/from-disk.ts';
import { readUpstreamRecord, runReleases } from '../src/evidence/upstream-disk.ts';
import { citeRelease, renderUpstream, UPSTREAM_FILE, UPSTREAM_MODULE, type CitedLines, type UpstreamRecord } from '../src/evidence/upstream.ts';
import { runTool } from '../src/capture/machine/process.ts';
import { parseCommandLine, UsageError } from '../src/capture/session/cli-args.ts';
import { articleTarget } from '../src/article/evidence/evidence-memo.ts';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const USAGE = `usage: npm run cite -- [slug ...]
  reads the lines every citation of article.ts names from ${UPSTREAM_MODULE} at each release the article's runs used,
  and writes them to content/articles/<slug>/${UPSTREAM_FILE} (every article with citations when no slug is given)`;
let slugs: string[];
try {
  const { values, positionals } = parseCommandLine(process.argv.slice(2), { help: { type: 'boolean', short: 'h', default: false } });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  slugs = positionals;
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`cite: ${error.message}; ${USAGE.split('\n')[0]}\n`);
  process.exit(2);
}

/** The release's module folder, as `go mod download` reports it (downloaded first when the cache lacks it). */
const moduleDirs = new Map<string, string>();
async function moduleDir(release: string): Promise<string> {
  const kept = moduleDirs.get(release);
  if (kept) return kept;
  const run = await runTool(['go', 'mod', 'download', '-json', `${UPSTREAM_MODULE}@${release}`], { timeoutMs: 600_000, cwd: root });
  if (run.missing) throw new Error(`cite: no go on PATH; the module ${UPSTREAM_MODULE}@${release} is read with go mod download`);
  let dir: unknown;
  try {
    dir = (JSON.parse(run.stdout) as { Dir?: unknown; Error?: unknown }).Dir;
  } catch {
    dir = undefined;
  }
  if (run.exitCode !== 0 || typeof dir !== 'string')
    throw new Error(
      `cite: go mod download ${UPSTREAM_MODULE}@${release} failed (${run.timedOut ? 'no answer within 10 min' : `exit ${run.exitCode}`}): ${(run.stderr || run.stdout).trim().split('\n')[0]}`,
    );
  moduleDirs.set(release, dir);
  return dir;
}

/** What changed of one citation since the last record, or null. */
function change(id: string, release: string, before: CitedLines | undefined, after: CitedLines): string | null {
  if (!before) return `${id} at ${release}: new, ${after.file}#L${after.from}-L${after.to}`;
  const moved = before.from !== after.from || before.to !== after.to || before.file !== after.file;
  const changed = before.text !== after.text;
  if (!moved && !changed) return null;
  return `${id} at ${release}: ${moved ? `moved from ${before.file}#L${before.from}-L${before.to} to ${after.file}#L${after.from}-L${after.to}` : 'in place'}${changed ? ', its text changed' : ''}`;
}

const known = await listArticleSlugs(root);
const unknown = slugs.filter((slug) => !known.includes(slug));
if (unknown.length) {
  process.stderr.write(`cite: ${unknown.map((s) => JSON.stringify(s)).join(', ')}: no such article in ${ARTICLES}\n`);
  process.exit(2);
}
let failed = false;
for (const slug of slugs.length ? slugs : known) {
  const article = await loadArticle(root, slug);
  if (!article.citations.length) {
    if (slugs.length) process.stderr.write(`cite: ${slug}: article.ts declares no citations; nothing to read\n`);
    continue;
  }
  const dir = articleDir(root, slug);
  const shown = `${ARTICLES}/${slug}/${UPSTREAM_FILE}`;
  const evidence = evidenceFromDisk(slug, articleTarget(root, slug).snapshotsDir, article, { variants: true });
  const releases = runReleases(evidence);
  if (!releases.length) {
    process.stderr.write(`cite: ${slug}: no run yet; cite reads the releases the runs used (npm run capture -- ${slug} first)\n`);
    continue;
  }
  const previous = readUpstreamRecord(dir, shown).record ?? new Map();
  const record: UpstreamRecord = new Map();
  const problems: string[] = [];
  const changes: string[] = [];
  for (const release of releases) {
    const moduleRoot = await moduleDir(release);
    const read = (file: string) => {
      const path = join(moduleRoot, file);
      return existsSync(path) ? readFileSync(path, 'utf8') : null;
    };
    const { cited, problems: missing } = citeRelease(article.citations, release, read, article.file);
    problems.push(...missing);
    record.set(release, cited);
    for (const [id, lines] of cited) {
      const said = change(id, release, previous.get(release)?.get(id), lines);
      if (said) changes.push(said);
    }
  }
  if (problems.length) {
    failed = true;
    process.stderr.write(`${problems.map((p) => `cite: ${p}`).join('\n')}\ncite: ${shown} left as it was\n`);
    continue;
  }
  const text = renderUpstream(record);
  if (existsSync(join(dir, UPSTREAM_FILE)) && readFileSync(join(dir, UPSTREAM_FILE), 'utf8') === text) {
    process.stdout.write(`cite: ${shown}: ${article.citations.length} citation(s) at ${releases.join(', ')}, unchanged\n`);
    continue;
  }
  // Written whole or not at all: a temporary file beside it, renamed over it.
  const temporary = join(dir, `.${UPSTREAM_FILE}.${process.pid}`);
  writeFileSync(temporary, text);
  renameSync(temporary, join(dir, UPSTREAM_FILE));
  process.stdout.write(`cite: ${shown}: ${article.citations.length} citation(s) at ${releases.join(', ')}\n${changes.map((c) => `  ${c}`).join('\n')}\n`);
}
process.exit(failed ? 1 : 0);
