// A real lab capture whose run is judged before the swap: a copy of article
// 074 (its definition, article.ts, and manifests, no prose) given a
// claim that cannot hold, then an experiment changed under the article (s-local
// switched to Cluster), whose outputs no longer show what the article reads.
// Either way the committed-style target stays byte for byte and the run is kept
// aside at the folder the capture names; a broken claim's run is swapped in by --accept.
// The articles are written into a copy of the project, never into the real
// content/ (the suite's other files read it while this one runs), and the
// captures keep their records in a registry of this file's own.
// Needs Linux, root and the lab's Debian tools; in CI a missing one fails.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { labUnavailable } from '../../src/capture/lab/tools.ts';
import { loadSnapshots } from '../../src/evidence/load.ts';
import { readRecords } from '../../src/capture/recovery/run-registry.ts';
import { projectCopy } from '../support/project-copy.ts';
import { treeDigest } from '../support/tree-digest.ts';
import { HEADLINE_RELEASE } from '../../src/experiment/kubernetes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = '074-external-traffic-policy';
const missing = labUnavailable();
const skip = missing && process.env.CI !== 'true' ? `fault suite not run: ${missing}` : false;

const scratch = mkdtempSync(join(tmpdir(), 'shice-fault-project-'));
const project = projectCopy(root, scratch);
process.env.SHICE_RUN_REGISTRY = join(scratch, 'registry');
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * content/articles/<slug> of the project copy: a copy of 074 without its prose (the build's
 * check skips an article with no MDX) and without snapshots, changed by `edit`.
 */
function articleCopy(slug: string, edit: (dir: string) => void): { dir: string; remove: () => void } {
  const dir = join(project, 'content/articles', slug);
  const from = join(project, 'content/articles', SOURCE);
  for (const name of readdirSync(from).filter((n) => !/^snapshots|\.mdx$/.test(n))) cpSync(join(from, name), join(dir, name), { recursive: true });
  const definition = join(dir, 'article.ts');
  const source = readFileSync(definition, 'utf8');
  assert.equal(source.split(`slug: '${SOURCE}'`).length, 2, `${definition} names its slug once, in its experiment`);
  writeFileSync(definition, source.replace(`slug: '${SOURCE}'`, `slug: '${slug}'`));
  edit(dir);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function insertAfter(file: string, mark: string, text: string): void {
  const source = readFileSync(file, 'utf8');
  assert.ok(source.includes(mark), `${file} holds ${mark}`);
  writeFileSync(file, source.replace(mark, `${mark}\n${text}`));
}

/**
 * An --out folder whose lab target (`<slug>.lab`: the lab is the article's second environment) holds
 * a committed lab run of `slug` (074's, renamed), beside a file of someone else's.
 */
function outFor(slug: string): { out: string; target: string; digest: () => Record<string, string> } {
  const out = mkdtempSync(join(tmpdir(), 'shice-fault-judged-'));
  const target = join(out, `${slug}.lab`);
  cpSync(join(root, 'content/articles', SOURCE, 'snapshots.lab'), target, { recursive: true });
  const run = join(target, 'run.yaml');
  writeFileSync(run, readFileSync(run, 'utf8').replace(`slug: ${SOURCE}`, `slug: ${slug}`));
  writeFileSync(join(out, 'notes-of-someone-else.txt'), "not the capture's\n");
  return { out, target, digest: () => treeDigest(out) };
}

function capture(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [join(project, 'scripts/capture.ts'), ...args], {
    cwd: project,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

const runIdOf = (stderr: string) => /\(run ([0-9A-Za-z-]+)\) with --driver lab/.exec(stderr)?.[1];

test(
  'a claim that cannot hold: exit 3, each broken claim with its values and files, the target byte for byte, the run kept; --accept swaps it in',
  { skip, timeout: 240_000 },
  async () => {
    assert.equal(missing, null, `prerequisites: ${missing}`);
    const slug = '098-fault-claim-cannot-hold';
    const article = articleCopy(slug, (dir) =>
      insertAfter(
        join(dir, 'article.ts'),
        '\n  claims: [',
        `    {
      id: 'fault-cannot-hold',
      zh: '这一条永远不成立',
      en: 'This never holds',
      holds: (v) => v('local-via-worker2.rc') === 'never',
    },`,
      ),
    );
    const { out, target, digest } = outFor(slug);
    const kept = join(out, '.kept');
    const env = { SHICE_KEPT_RUNS: kept };
    try {
      const before = digest();
      const run = await capture([slug, '--variant', 'iptables', '--k8s', HEADLINE_RELEASE.minor, '--driver', 'lab', '--out', out], env);
      assert.equal(run.code, 3, run.stderr);
      const runId = runIdOf(run.stderr);
      assert.ok(runId, run.stderr);
      const keptRun = join(kept, runId);
      assert.match(
        run.stderr,
        new RegExp(`capture: ${slug}: 1 claim\\(s\\) no longer hold on this run, so it was not swapped in; the snapshots were left as they were:`),
      );
      assert.match(
        run.stderr,
        /claim "fault-cannot-hold" no longer holds: This never holds\n {4}local-via-worker2\.rc = "28" {2}from \S+\/\.kept\/[0-9A-Za-z-]+\/098-fault-claim-cannot-hold\.lab\/local-via-worker2\.yaml/,
      );
      assert.match(run.stderr, new RegExp(`the run is kept at \\S*${runId}; .*npm run capture -- --accept ${runId}`));
      assert.doesNotMatch(run.stderr, /claims: all/);
      const after = Object.fromEntries(Object.entries(digest()).filter(([path]) => !path.startsWith('.kept')));
      assert.deepEqual(after, before, 'the target and its neighbours are byte for byte as they were');
      assert.equal(loadSnapshots(join(keptRun, `${slug}.lab`)).run.runId, runId, 'the kept run is complete');
      assert.equal(readRecords().captures.filter((r) => r.runId === runId).length, 0, 'no record of the capture is left');

      const accepted = await capture(['--accept', runId], env);
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.match(accepted.stderr, new RegExp(`accepted run ${runId} of ${slug} variant iptables`));
      assert.equal(loadSnapshots(target).run.runId, runId, 'the target now holds the accepted run');
      assert.equal(existsSync(keptRun), false);
      assert.deepEqual(readdirSync(out).sort(), ['.kept', 'notes-of-someone-else.txt', `${slug}.lab`].sort(), 'no staging, previous folder or lock left');
    } finally {
      article.remove();
      rmSync(out, { recursive: true, force: true });
    }
  },
);

test(
  'a real run under a changed experiment (s-local switched to Cluster): the behaviour changed, the claims and facts that broke named, the run kept, the target byte for byte',
  { skip, timeout: 240_000 },
  async () => {
    assert.equal(missing, null, `prerequisites: ${missing}`);
    const slug = '098-fault-behaviour-changed';
    const article = articleCopy(slug, (dir) => {
      const services = join(dir, 'manifests/services.yaml');
      const source = readFileSync(services, 'utf8');
      const local = /(name: s-local\n[\s\S]*?externalTrafficPolicy: )Local/;
      assert.match(source, local, `${services} gives s-local the Local policy`);
      writeFileSync(services, source.replace(local, '$1Cluster'));
      // The committed lab run of 074 (its slug renamed) as this article's: what the report compares with.
      cpSync(join(root, 'content/articles', SOURCE, 'snapshots.lab'), join(dir, 'snapshots.lab'), { recursive: true });
      const run = join(dir, 'snapshots.lab', 'run.yaml');
      writeFileSync(run, readFileSync(run, 'utf8').replace(`slug: ${SOURCE}`, `slug: ${slug}`));
    });
    const { out, digest } = outFor(slug);
    const kept = join(out, '.kept');
    try {
      const before = digest();
      const run = await capture([slug, '--variant', 'iptables', '--k8s', HEADLINE_RELEASE.minor, '--driver', 'lab', '--out', out], { SHICE_KEPT_RUNS: kept });
      // A healthy run whose outputs no longer show what the article expects: a finding, not a broken run.
      assert.equal(run.code, 3, run.stderr);
      const runId = runIdOf(run.stderr)!;
      assert.match(run.stderr, new RegExp(`capture: ${slug}: \\d+ claim\\(s\\) no longer hold on this run, so it was not swapped in`));
      // curl through worker2 is answered now: the drop the claim rests on is gone, and so are the facts that show it.
      assert.match(run.stderr, /claim "local-drops-without-backend" no longer holds: .*\n {4}local-via-worker2\.rc = "0" /);
      assert.match(run.stderr, /fact "iptables-worker2\.dropRule" is not in this run: .*\n {4}looked for in \S+iptables-worker2\.yaml/);
      assert.match(run.stderr, /fact "local-via-worker2\.error" is not in this run: /);
      assert.match(run.stderr, /^what changed: the behaviour changed \(\d+ claims, \d+ facts\)$/m);
      assert.match(run.stderr, /^ {2}claim local-drops-without-backend: holds -> broken$/m);
      assert.match(run.stderr, /^ {2}local-via-worker2\.rc: "28" -> "0"$/m);
      // Its time is behaviour here: what the client saw changed from a timeout to an answer.
      assert.match(run.stderr, /^ {2}local-via-worker2\.seconds: "[\d.]+" \(timed out at the client's limit\) -> "[\d.]+" \(answered at once\)$/m);
      assert.match(run.stderr, /^ {2}service\.s-local\.externalTrafficPolicy: "Local" -> "Cluster"$/m);
      assert.match(run.stderr, new RegExp(`the run is kept at \\S*${runId}; .*--accept ${runId}`));
      const after = Object.fromEntries(Object.entries(digest()).filter(([path]) => !path.startsWith('.kept')));
      assert.deepEqual(after, before, 'the target and its neighbours are byte for byte as they were');
    } finally {
      article.remove();
      rmSync(out, { recursive: true, force: true });
    }
  },
);
