// The path an author takes with a new article, taken as an author takes it, on a
// copy of the project (the real content/ is never written): `npm run new`, the
// draft build, the build that refuses an article nobody measured, a capture on a
// real kind cluster here (no registry: the scaffold declares its image's
// substitute), a capture in the lab, and the build that publishes it, whose page
// shows what the snapshots hold.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { load } from 'js-yaml';
import { siteCopy } from '../support/project-copy.ts';
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

kindTest('a new article from npm run new to a published page: draft build, captures on kind and in the lab, build', async (t) => {
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

  const draft = await run(ASTRO, ['build'], { SHICE_DRAFT: '1' });
  assert.equal(draft.code, 0, draft.stderr);
  assert.match(readFileSync(join(project!, 'dist', SLUG, 'index.html'), 'utf8'), /尚未实测/, 'the draft shows its values as not yet measured');
  const refused = await run(ASTRO, ['build']);
  assert.notEqual(refused.code, 0, 'a normal build refuses an article nobody measured');
  assert.match(refused.stdout + refused.stderr, new RegExp(`content/articles/${SLUG}/snapshots: not yet measured .*npm run capture -- ${SLUG}`));

  // The two captures the next-step line names, the headline on kind and the lab, at the same time:
  // each writes its own folder under a lock of its own.
  const [kind, lab] = await Promise.all([run('scripts/capture.ts', [SLUG]), run('scripts/capture.ts', [SLUG, '--driver', 'lab'])]);
  assert.equal(kind.code, 0, kind.stderr);
  assert.equal(lab.code, 0, lab.stderr);
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
});
