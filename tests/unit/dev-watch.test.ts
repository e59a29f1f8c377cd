// `npm run dev` re-runs the evidence checks when an article's prose, facts,
// claims or snapshots change: the terminal says what is wrong, and so does the
// page. A real dev server on a scaffolded draft article.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { isEvidenceSource } from '../../src/article/check/integration.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('which files re-run the checks', () => {
  const at = (p: string) => join(root, p);
  for (const p of ['content/articles/075-x/zh.mdx', 'content/articles/075-x/facts.ts', 'content/articles/075-x/claims.ts', 'content/articles/075-x/snapshots/run.yaml', 'content/articles/075-x/manifests/web.yaml']) assert.ok(isEvidenceSource(root, at(p)), p);
  for (const p of ['src/article/render/chart.ts', 'content/articles/075-x/notes.txt', 'content/articles/075-x/snapshots/sub/a.yaml']) assert.ok(!isEvidenceSource(root, at(p)), p);
});

test('a number typed into the prose under npm run dev: the terminal and the page say so; fixing it clears both', { timeout: 120_000 }, async () => {
  const slug = '098-dev-watch-probe';
  const dir = join(root, 'content/articles', slug);
  rmSync(dir, { recursive: true, force: true });
  assert.equal(spawnSync(process.execPath, [join(root, 'scripts/new-article.ts'), slug], { cwd: root }).status, 0);
  const port = 4390 + Math.floor(Math.random() * 100);
  const dev = spawn(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'dev', '--host', '127.0.0.1', '--port', String(port)], {
    cwd: root, env: { ...process.env, SHICE_DRAFT: '1', ASTRO_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  dev.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
  dev.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
  const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 60_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; output:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const page = async () => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/en/${slug}/`, { headers: { accept: 'text/html' } });
      return { status: res.status, text: await res.text() };
    } catch {
      return { status: 0, text: '' };
    }
  };
  try {
    await until('the dev server', async () => (await page()).status === 200);
    const en = join(dir, 'en.mdx');
    appendFileSync(en, '\nIt listens on port 8080.\n');
    await until('the terminal to name the typed number', () => /after a change to content\/articles\/098-dev-watch-probe\/en\.mdx: the articles do not match their snapshots/.test(output) && /en\.mdx:\d+.*8080/.test(output));
    await until('the page to show it', async () => { const p = await page(); return p.status === 200 && /class="dev-problems"[\s\S]*en\.mdx:\d+:\d+: unbound port &quot;8080&quot;/.test(p.text); });
    spawnSync('sed', ['-i', '/port 8080/d', en]);
    await until('the terminal to clear it', () => /after a change to content\/articles\/098-dev-watch-probe\/en\.mdx: .*no problem/.test(output));
    await until('the page to come back', async () => { const p = await page(); return p.status === 200 && !p.text.includes('class="dev-problems"'); });
  } finally {
    dev.kill('SIGTERM');
    await new Promise((r) => dev.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
});
