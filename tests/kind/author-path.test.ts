// The path an author takes with a new article, taken as an author takes it, on a
// copy of the project (the real content/ is never written): `npm run new`, the
// modes declared, the draft build before anything ran, the build that refuses
// an article nobody measured, a capture in the lab and a draft with its run, a
// capture on a real kind cluster here (no registry: the scaffold declares its
// image's substitute), and the build that publishes it, whose page shows what
// the snapshots hold.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { load } from 'js-yaml';
import { siteCopy } from '../support/project-copy.ts';
import { declareInScaffold } from '../support/scaffold-edit.ts';
import { kindTest, prepareKind, ROOT, runScript, stopKindIfStarted, unavailable, type KindHost } from './support.ts';

const SLUG = '099-author-path';
let host: KindHost | null = null;
let project: string | null = null;

before(async () => {
  if (unavailable !== null) return;
  host = await prepareKind((line) => process.stdout.write(`# ${line}\n`));
  // The new article alone: the author's path costs the same whatever the series holds.
  project = siteCopy(ROOT, 'author', { articles: [] });
});

after(async () => {
  if (project !== null) rmSync(project, { recursive: true, force: true });
  await stopKindIfStarted(host);
});

const ASTRO = 'node_modules/astro/bin/astro.mjs';
const files = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : []);

kindTest(
  'a new article from npm run new to a published page: modes declared, draft build, a lab capture and a draft with its run, a kind capture, build',
  async (t) => {
    const dir = join(project!, 'content/articles', SLUG);
    const env = { ...host!.env, ASTRO_TELEMETRY_DISABLED: '1' };
    const run = (script: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
      runScript(script, args, { ...env, ...extra }, (line) => t.diagnostic(line), project!);

    const help = await run('scripts/new-article.ts', ['--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^usage: npm run new -- <slug>/);
    assert.deepEqual(files(dir), [], '--help creates nothing');

    const made = await run('scripts/new-article.ts', [SLUG]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, new RegExp(`next: .*npm run capture -- ${SLUG} \\(a real kind cluster.*npm run capture -- ${SLUG} --driver lab`));
    const scaffolded = files(dir);
    const again = await run('scripts/new-article.ts', [SLUG]);
    assert.equal(again.code, 2);
    assert.equal(again.stderr, `new: content/articles/${SLUG} exists already; choose another slug\n`);
    assert.deepEqual(files(dir), scaffolded, 'a taken slug changes nothing');

    // What the author adds first: the modes the article compares (only the default one is captured below).
    declareInScaffold(join(dir, 'article.ts'), ["variants: { axis: 'kubeProxyMode', values: ['iptables', 'nftables'] }"]);

    // A preview from the first minute: nothing measured, every value a placeholder.
    const draft = await run(ASTRO, ['build'], { SHICE_DRAFT: '1' });
    assert.equal(draft.code, 0, draft.stderr);
    assert.match(readFileSync(join(project!, 'dist', SLUG, 'index.html'), 'utf8'), /尚未实测/, 'the draft shows its values as not yet measured');
    assert.deepEqual(files(join(project!, 'dist', SLUG, 'run')), [], 'no record of a run that has not happened');
    const refused = await run(ASTRO, ['build']);
    assert.notEqual(refused.code, 0, 'a normal build refuses an article nobody measured');
    assert.match(refused.stdout + refused.stderr, new RegExp(`content/articles/${SLUG}/snapshots: not yet measured .*npm run capture -- ${SLUG}`));

    // The lab first (seconds), a preview with its run, then the headline on kind.
    const lab = await run('scripts/capture.ts', [SLUG, '--driver', 'lab', '--variant', 'iptables']);
    assert.equal(lab.code, 0, lab.stderr);
    const preview = await run(ASTRO, ['build'], { SHICE_DRAFT: '1' });
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(readFileSync(join(project!, 'dist', SLUG, 'index.html'), 'utf8'), /尚未实测/, 'the headline (kind) is still a placeholder');
    const labRecord = readFileSync(join(project!, 'dist', SLUG, 'run', 'lab', 'index.html'), 'utf8');
    const labRun = load(readFileSync(join(dir, 'snapshots.lab', 'run.yaml'), 'utf8')) as { runId: string };
    assert.ok(labRecord.includes(labRun.runId), "the lab's run has its record in the preview");
    assert.match(
      readFileSync(join(project!, 'dist', SLUG, 'evidence', 'index.html'), 'utf8'),
      new RegExp(`data-environment="lab"[^>]*data-run="${labRun.runId}"|data-run="${labRun.runId}"[^>]*data-environment="lab"`),
      "the evidence page's claim matrix has the lab's column",
    );
    const kind = await run('scripts/capture.ts', [SLUG, '--variant', 'iptables']);
    assert.equal(kind.code, 0, kind.stderr);
    for (const [folder, driver] of [
      ['snapshots', 'kind'],
      ['snapshots.lab', 'lab'],
    ] as const) {
      const record = load(readFileSync(join(dir, folder, 'run.yaml'), 'utf8')) as { driver: string; versions: Record<string, string> };
      assert.equal(record.driver, driver, `${folder}: measured in ${driver}`);
      if (driver === 'kind' && /built on this machine/.test(record.versions['node-image-source'] ?? ''))
        assert.match(
          record.versions['image-substitutes'] ?? '',
          /^nginx:1\.27-alpine -> shice\/nginx-light:/,
          "the scaffold's image ran as its declared substitute",
        );
    }

    const built = await run(ASTRO, ['build']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const page = readFileSync(join(project!, 'dist', SLUG, 'index.html'), 'utf8');
    const step = load(readFileSync(join(dir, 'snapshots', 'request.yaml'), 'utf8')) as { stdout: string };
    // Each element bound to the fact, its text without the markup inside it.
    const shown = [...page.matchAll(/<([a-z]+)\b[^>]*\bdata-fact="request\.answer"[^>]*>(.*?)<\/\1>/gs)].map((m) => m[2]!.replace(/<[^>]*>/g, ''));
    assert.ok(shown.length > 0, 'the page binds the answer');
    assert.deepEqual([...new Set(shown)], [step.stdout.trim()], 'the published page shows the answer the kind run recorded, wherever it shows it');
    assert.doesNotMatch(page, /尚未实测/, 'nothing on the published page is unmeasured');
  },
);
