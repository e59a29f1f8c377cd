// `npm run dev` re-runs the evidence checks when an article's prose changes:
// the terminal says what is wrong, and so does the page; fixing it clears both.
// A real `astro dev` on a scaffolded draft article, in a copy of the project in
// the temporary folder (its packages linked), so the real content/ is never
// written; every wait is for a condition: a line on the terminal, the page.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { siteCopy } from '../support/project-copy.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const projectCopy = () => siteCopy(root, 'dev');

/** Resolves when `check` holds, polling it; fails naming `what` and the dev server's last output at the deadline. */
async function until(what: string, check: () => boolean | Promise<boolean>, output: () => string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}; the dev server printed:\n${output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a number typed into the prose under npm run dev: the terminal and the page say so; fixing it clears both', { timeout: 180_000 }, async () => {
  const slug = '098-dev-watch-probe';
  const project = projectCopy();
  const articlesBefore = spawnSync('git', ['-C', root, 'status', '--porcelain', '--', 'content'], { encoding: 'utf8' }).stdout;
  let dev: ReturnType<typeof spawn> | undefined;
  try {
    const scaffold = spawnSync(process.execPath, [join(project, 'scripts/new-article.ts'), slug], { cwd: project, encoding: 'utf8' });
    assert.equal(scaffold.status, 0, scaffold.stderr);
    // Port 0: the server takes a free port and prints its address; never another tree's server.
    dev = spawn(process.execPath, [join(project, 'node_modules/astro/bin/astro.mjs'), 'dev', '--host', '127.0.0.1', '--port', '0'], {
      cwd: project,
      env: { ...process.env, SHICE_DRAFT: '1', ASTRO_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const printed = () => output;
    dev.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
    });
    dev.stderr!.on('data', (c: Buffer) => {
      output += c.toString();
    });
    let exited = false;
    dev.once('exit', () => {
      exited = true;
    });
    const running = () => {
      if (exited) assert.fail(`astro dev exited:\n${output.slice(-3000)}`);
      return true;
    };
    const terminal = (what: string, pattern: RegExp) => until(what, () => running() && pattern.test(output), printed);

    await terminal('the dev server to print its address', /http:\/\/127\.0\.0\.1:\d+\//);
    const base = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(output)![0];
    const page = async () => {
      try {
        const res = await fetch(`${base}en/${slug}/`, { headers: { accept: 'text/html' } });
        return { status: res.status, text: await res.text() };
      } catch {
        return { status: 0, text: '' };
      }
    };
    const pageShows = (what: string, holds: (p: { status: number; text: string }) => boolean) =>
      until(what, async () => running() && holds(await page()), printed);

    await pageShows('the draft page', (p) => p.status === 200 && !p.text.includes('class="dev-problems"'));
    const en = join(project, 'content/articles', slug, 'en.mdx');
    const prose = readFileSync(en, 'utf8');
    appendFileSync(en, '\nIt listens on port 8080.\n');
    await terminal(
      'the terminal to name the typed number',
      new RegExp(`after a change to content/articles/${slug}/en\\.mdx: the articles do not match their snapshots[\\s\\S]*en\\.mdx:\\d+.*8080`),
    );
    await pageShows('the page to show it', (p) => p.status === 200 && /class="dev-problems"[\s\S]*en\.mdx:\d+:\d+: unbound port &quot;8080&quot;/.test(p.text));
    writeFileSync(en, prose);
    await terminal('the terminal to clear it', new RegExp(`after a change to content/articles/${slug}/en\\.mdx: .*no problem`));
    await pageShows('the page to come back', (p) => p.status === 200 && !p.text.includes('class="dev-problems"'));

    // The definition too: a digit typed into a measured line of article.ts is named, and fixing it clears it.
    const definition = join(project, 'content/articles', slug, 'article.ts');
    const source = readFileSync(definition, 'utf8');
    const typedIn = source.replace('answered {request.answer};', 'answered {request.answer} on port 8080;');
    assert.notEqual(typedIn, source, 'the scaffold has the line this test edits');
    writeFileSync(definition, typedIn);
    await terminal(
      'the terminal to name the digit typed into the line',
      new RegExp(
        `after a change to content/articles/${slug}/article\\.ts: the articles do not match their snapshots[\\s\\S]*article\\.ts: step "request" \\(en\\)[^\\n]*8080`,
      ),
    );
    writeFileSync(definition, source);
    await terminal('the terminal to clear it', new RegExp(`after a change to content/articles/${slug}/article\\.ts: .*no problem`));
    await pageShows('the page to come back after the definition is fixed', (p) => p.status === 200 && !p.text.includes('class="dev-problems"'));

    // An article's MDX binds its <Fact>s as it compiles (src/article/render/mdx-facts.ts): a new snapshot reaches
    // them as it reaches the components. (A value left behind would fail the page: the render checks every one.)
    const article = `${base}en/074-external-traffic-policy/`;
    const runIds = (text: string) => [...text.matchAll(/data-fact="run\.id"[^>]*>(?:<[^>]*>)*([^<]*)</g)].map((m) => m[1]);
    const shown = runIds(await (await fetch(article, { headers: { accept: 'text/html' } })).text());
    const runYaml = join(project, 'content/articles/074-external-traffic-policy/snapshots/run.yaml');
    const run = readFileSync(runYaml, 'utf8');
    const runId = /^runId: (\S+)$/m.exec(run)![1]!;
    assert.ok(shown.length >= 3 && shown.every((id) => id === runId), `the article binds its run id in its MDX and its components: ${shown.join(', ')}`);
    writeFileSync(runYaml, run.replace(`runId: ${runId}`, 'runId: 20261204T184703Z-d3v0d3'));
    await until(
      "every bound run id, the MDX's too, to show the new one",
      async () => {
        const res = await fetch(article, { headers: { accept: 'text/html' } }).catch(() => null);
        const ids = res?.status === 200 ? runIds(await res.text()) : [];
        return running() && ids.length === shown.length && ids.every((id) => id === '20261204T184703Z-d3v0d3');
      },
      printed,
    );
  } finally {
    if (dev?.pid !== undefined && dev.exitCode === null && dev.signalCode === null) {
      const ended = new Promise((resolve) => dev!.once('exit', resolve));
      process.kill(-dev.pid, 'SIGTERM'); // its whole process group: astro's own children too
      await ended;
    }
    rmSync(project, { recursive: true, force: true });
  }
  assert.equal(
    spawnSync('git', ['-C', root, 'status', '--porcelain', '--', 'content'], { encoding: 'utf8' }).stdout,
    articlesBefore,
    'the real content/ is as it was',
  );
});
