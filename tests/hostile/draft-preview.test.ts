// A real `npm run build:draft` and `npm run check` of a copy of the site in which 077, a whole
// article (four releases, two environments, two modes, citations, excerpts,
// plurals, a claim of one mode only), has not run at all: no snapshots and no
// upstream.yaml. The draft builds and says on the page what is still to come, the check passes;
// a normal build of the same copy refuses in one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { siteCopy } from '../support/project-copy.ts';
import { REFERENCE_ARTICLES } from '../support/reference-articles.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SLUG = '077-session-affinity';

test('an article with nothing run previews as a draft, every run-bound part marked as still to come; a normal build refuses it', () => {
  // The reference articles beside it: the check reads the tests, which import their definitions.
  const copy = siteCopy(root, 'draft-preview', { articles: [...REFERENCE_ARTICLES, SLUG] });
  try {
    const dir = join(copy, 'content/articles', SLUG);
    for (const entry of readdirSync(dir)) if (entry.startsWith('snapshots') || entry === 'upstream.yaml') rmSync(join(dir, entry), { recursive: true });
    const astro = join(copy, 'node_modules/astro/bin/astro.mjs');
    const draft = spawnSync(process.execPath, [astro, 'build'], { cwd: copy, encoding: 'utf8', timeout: 170_000, env: { ...process.env, SHICE_DRAFT: '1' } });
    assert.equal(draft.status, 0, `${draft.stdout}\n${draft.stderr}`);
    for (const page of [SLUG, `en/${SLUG}`]) {
      const html = readFileSync(join(copy, 'dist', page, 'index.html'), 'utf8');
      assert.match(html, /run-badge-unmeasured/, `${page}: the badge says it is a draft`);
      assert.match(html, /class="headline-value">[^<]*(<a [^>]*>)?<span[^>]*data-unmeasured/, `${page}: the headline value is a placeholder`);
      assert.match(html, /class="excerpt-line" data-unmeasured/, `${page}: the excerpt has no output to show yet`);
      assert.match(html, /class="upstream-not-yet" data-unmeasured/, `${page}: the cited lines are still to be read`);
    }
    const evidence = readFileSync(join(copy, 'dist', SLUG, 'evidence', 'index.html'), 'utf8');
    assert.doesNotMatch(evidence, /data-claim-matrix="[^"]+"/, 'no run, no column');

    // npm run check (astro check, as a draft): the types and the MDX pass before any capture. It checks every
    // TypeScript file of the project, so the copy gets the ones a build does not read.
    for (const entry of ['bench', 'tests', 'tools', 'playwright.config.ts']) cpSync(join(root, entry), join(copy, entry), { recursive: true });
    const check = spawnSync(process.execPath, [astro, 'check'], { cwd: copy, encoding: 'utf8', timeout: 170_000, env: { ...process.env, SHICE_DRAFT: '1' } });
    assert.equal(check.status, 0, `${check.stdout}\n${check.stderr}`);
    assert.match(check.stdout, /0 errors/);

    rmSync(join(copy, 'dist'), { recursive: true, force: true });
    const normal = spawnSync(process.execPath, [astro, 'build'], { cwd: copy, encoding: 'utf8', timeout: 170_000, env: { ...process.env, SHICE_DRAFT: '' } });
    const said = `${normal.stdout}\n${normal.stderr}`;
    assert.notEqual(normal.status, 0, said);
    assert.match(said, new RegExp(`content/articles/${SLUG}/snapshots: not yet measured .*npm run capture -- ${SLUG}`));
    assert.ok(!existsSync(join(copy, 'dist', SLUG, 'index.html')), 'no page is written');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
