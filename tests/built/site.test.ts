// The built site (dist/) read as files, without a browser, after the build suite
// (`npm test -- built`): every run record of every article, in both languages,
// against its run's snapshots (the run it names, each step's row, argv and raw
// output as the snapshot has them, every bound value derived afresh); every
// same-site link, asset and #fragment of every page resolves, and every page is
// reachable from the home pages; every link-preview card is a 1200×630 PNG.
// A record only shows raw output: its text is what a browser shows, so reading
// the HTML is enough; its layout is checked on one record in the browser suite
// (tests/e2e/templates.spec.ts, the record with the widest output).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { boundValueProblems, everyArticleRuns, ROOT, type BoundElement } from '../e2e/support/runs.ts';
import { attr, byId, closest, findAll, hasClass, parseHtml, textOf, type Element } from './html.ts';
import { site } from '../../src/site.config.ts';

const DIST = join(ROOT, 'dist');
const LANGS = ['zh', 'en'] as const;
const articlePath = (lang: (typeof LANGS)[number], slug: string) => (lang === 'zh' ? `/${slug}/` : `/en/${slug}/`);
const SITE_URL = site.url.replace(/\/$/, '');

/** The file a site path is served from (a static host's answer): `/x/` is x/index.html. */
function fileOf(path: string): string | null {
  const clean = decodeURIComponent(path.split('#')[0]!.split('?')[0]!);
  for (const candidate of clean.endsWith('/') ? [`${clean}index.html`] : [clean, `${clean}/index.html`, `${clean}.html`]) {
    const file = join(DIST, candidate);
    if (existsSync(file) && statSync(file).isFile()) return file;
  }
  return null;
}

const parsed = new Map<string, Element>();
function page(file: string): Element {
  let root = parsed.get(file);
  if (!root) parsed.set(file, (root = parseHtml(readFileSync(file, 'utf8'))));
  return root;
}
const idSets = new Map<string, Set<string>>();
function idsOf(file: string): Set<string> {
  let ids = idSets.get(file);
  if (!ids) idSets.set(file, (ids = new Set(byId(page(file)).keys())));
  return ids;
}

function boundElements(root: Element): BoundElement[] {
  return findAll(root, (el) => el.attrs.has('data-fact')).map((el) => ({
    id: attr(el, 'data-fact')!,
    step: attr(el, 'data-step'),
    text: textOf(el),
    raw: attr(el, 'data-raw'),
    environment: attr(el, 'data-environment'),
    variant: attr(el, 'data-variant'),
    version: attr(el, 'data-version'),
    run: attr(el, 'data-run'),
    declared: attr(el, 'data-declared'),
  }));
}

const everyRun = await everyArticleRuns();

test('the build wrote dist/, and there are articles with runs to check', () => {
  assert.ok(existsSync(join(DIST, 'index.html')), 'dist/index.html: run `npm run build` (the build suite) first');
  assert.ok(everyRun.length > 0, 'an article to check');
  assert.ok(
    everyRun.every((a) => a.runs.length > 0),
    'every article has a committed run',
  );
});

for (const runs of everyRun) {
  test(`${runs.slug}: every run record, in both languages, shows its run's snapshots`, () => {
    let records = 0;
    for (const lang of LANGS) {
      const articleAt = articlePath(lang, runs.slug);
      for (const run of runs.runs) {
        const path = `${articleAt}run/${run.recordSuffix}`;
        const file = fileOf(path);
        assert.ok(file, `${path}: a record page for run ${run.runId}`);
        const root = page(file);
        records++;
        const problems: string[] = [];
        const record = findAll(root, (el) => hasClass(el, 'run-record'));
        assert.equal(record.length, 1, `${path}: one .run-record`);
        const names = { version: attr(record[0], 'data-version'), environment: attr(record[0], 'data-environment'), variant: attr(record[0], 'data-variant') };
        assert.deepEqual([attr(record[0], 'data-run'), names], [run.runId, run.names], `${path}: the record names its run`);

        // Every value bound, each to this record's run.
        const bound = boundElements(root);
        assert.ok(bound.length > 5 * run.rawFiles.size, `${path}: five values a step at least, besides the run's own (${bound.length})`);
        for (const el of bound)
          if (el.version !== run.names.version || el.environment !== run.names.environment || el.variant !== run.names.variant)
            problems.push(`data-fact="${el.id}": bound to ${el.version}/${el.environment}/${el.variant}, not the record's run`);
        problems.push(...boundValueProblems(bound, runs));

        // One row per step in order, each step's argv and raw output once, as the snapshot has them.
        const rows = findAll(root, (el) => el.tag === 'tr' && el.attrs.has('data-step')).map((tr) => attr(tr, 'data-step'));
        assert.deepEqual(rows, run.steps, `${path}: one row per step, in order`);
        const ids = byId(root);
        for (const step of run.steps) {
          const outputs = ids.get(`output-${step}`) ?? [];
          if (outputs.length !== 1 || !hasClass(outputs[0]!, 'step-output')) {
            problems.push(`#output-${step}: ${outputs.length} raw outputs`);
            continue;
          }
          const output = outputs[0]!;
          if (findAll(output, (el) => attr(el, 'data-fact') === `${step}.argv`).length !== 1) problems.push(`#output-${step}: its argv, bound, once`);
          const row = ids.get(`run-step-${step}`)?.[0];
          if (!row || findAll(row, (el) => el.tag === 'a' && attr(el, 'href') === `#output-${step}`).length !== 1)
            problems.push(`#run-step-${step}: a row linking its output`);
          for (const [stream, expected] of [
            ['stdout', run.stdout.get(step) ?? ''],
            ['stderr', run.stderr.get(step) ?? ''],
          ] as const) {
            const shown = findAll(output, (el) => hasClass(el, `step-${stream}`)).flatMap((s) => findAll(s, (el) => el.tag === 'pre'));
            // An HTTP response is shown as its head and its body, each highlighted as what it is, the blank line between them left out.
            const want = expected.replace(/\r\n/g, '\n').replace(/\n$/, '');
            if (want === '') continue; // an empty stream is said in words, not shown as a block
            const text = shown
              .map((pre) =>
                textOf(pre)
                  .replace(/\u200b/g, '')
                  .replace(/\n$/, ''),
              )
              .join('\n\n');
            if (shown.length === 0 || shown.length > 2) problems.push(`#output-${step}: ${shown.length} ${stream} blocks`);
            else if (text !== want) problems.push(`#output-${step}: its ${stream} is not the snapshot's`);
          }
        }
        for (const [id, same] of ids) if (same.length > 1) problems.push(`id="${id}" ${same.length} times`);
        // Fragment links on the page land; the record links its article.
        for (const a of findAll(root, (el) => el.tag === 'a' && (attr(el, 'href') ?? '').startsWith('#')))
          if (!ids.has(decodeURIComponent(attr(a, 'href')!.slice(1))) && attr(a, 'href') !== '#') problems.push(`a link to ${attr(a, 'href')}, no such id`);
        if (!findAll(root, (el) => hasClass(el, 'run-record-of')).some((p) => findAll(p, (a) => a.tag === 'a' && attr(a, 'href') === articleAt).length === 1))
          problems.push(`no link back to ${articleAt}`);
        // Labels in the page's language.
        const labels = findAll(
          root,
          (el) =>
            ['h1', 'h2', 'dt'].includes(el.tag) ||
            (el.tag === 'th' && attr(el, 'scope') === 'col') ||
            (hasClass(el, 'code-label') && closest(el, (x) => x.tag === 'main') !== null),
        )
          .map(textOf)
          .join(' ');
        if (lang === 'zh' && /capture|argv|Run|Step|stdout|stderr/.test(labels))
          problems.push(`English words in the Chinese record's labels: ${labels.slice(0, 200)}`);
        if (lang === 'en' && /\p{Script=Han}/u.test(labels)) problems.push("Chinese in the English record's labels");
        assert.deepEqual(problems, [], `${path}`);
      }
    }
    assert.equal(records, 2 * runs.runs.length);
  });
}

/** Every HTML file of dist/ as the site path a reader asks for. */
function htmlPages(dir = DIST, prefix = '/'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) return htmlPages(file, `${prefix}${name}/`);
    if (name === 'index.html') return [prefix];
    return name.endsWith('.html') ? [`${prefix}${name}`] : [];
  });
}

test('every same-site link, asset and #fragment of every page resolves, and every page is reachable from the home pages', () => {
  const local = (raw: string, from: string): string | null => {
    const url = new URL(raw, `${SITE_URL}${from}`);
    if (url.origin !== SITE_URL && url.origin !== new URL(SITE_URL).origin) return null;
    if (!['http:', 'https:'].includes(url.protocol)) return null;
    return url.pathname + url.hash;
  };
  const problems: string[] = [];
  const pages = htmlPages();
  assert.ok(pages.length > 10, `dist/ holds the site (${pages.length} pages)`);
  const links = new Map<string, string[]>();
  for (const path of pages) {
    const root = page(fileOf(path)!);
    const found: string[] = [];
    for (const el of findAll(root, () => true)) {
      for (const name of ['href', 'src']) if (el.attrs.has(name)) found.push(attr(el, name)!);
      if (el.attrs.has('srcset')) for (const c of attr(el, 'srcset')!.split(',')) found.push(c.trim().split(/\s+/)[0]!);
      if (el.tag === 'meta' && ['og:url', 'og:image'].includes(attr(el, 'property') ?? '')) found.push(attr(el, 'content')!);
    }
    const targets: string[] = [];
    for (const raw of found.filter((v) => v.trim() !== '')) {
      const target = local(raw.trim(), path);
      if (target === null) continue;
      const [where, fragment] = target.split('#') as [string, string | undefined];
      const file = fileOf(where);
      if (!file) {
        problems.push(`${path}: ${raw} leads nowhere in dist/`);
        continue;
      }
      if (file.endsWith('.html')) targets.push(where.endsWith('/') || where.endsWith('.html') ? where : `${where}/`);
      if (fragment && file.endsWith('.html') && !idsOf(file).has(decodeURIComponent(fragment))) problems.push(`${path}: ${raw}: no element with that id`);
    }
    links.set(path, targets);
  }
  // Reachable: the crawl a reader's browser would make from the home and 404 pages.
  const seen = new Set(['/', '/en/', '/404.html', '/en/404.html']);
  const queue = [...seen];
  while (queue.length) for (const next of links.get(queue.shift()!) ?? []) if (!seen.has(next) && seen.add(next)) queue.push(next);
  for (const path of pages) if (!seen.has(path) && !path.startsWith('/pagefind/')) problems.push(`${path}: no link reaches it from the home pages`);
  // What the stylesheets load (fonts) is there too.
  for (const css of readdirSync(join(DIST, '_astro')).filter((n) => n.endsWith('.css')))
    for (const m of readFileSync(join(DIST, '_astro', css), 'utf8').matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g))
      if (!m[1]!.startsWith('data:') && !fileOf(new URL(m[1]!, `${SITE_URL}/_astro/${css}`).pathname))
        problems.push(`_astro/${css}: url(${m[1]}) leads nowhere`);
  assert.deepEqual(problems, []);
});

test('every claim matrix link lands on its claim’s entry in its run’s record, whose every step link lands on a step output there', () => {
  for (const { slug } of everyRun)
    for (const lang of LANGS) {
      const path = `${articlePath(lang, slug)}evidence/`;
      const cells = findAll(page(fileOf(path)!), (el) => el.tag === 'td' && hasClass(el, 'claim-cell') && attr(el, 'data-claim-status') !== 'not-applicable');
      assert.ok(cells.length > 0, `${path}: the claim matrix has cells`);
      for (const cell of cells) {
        const claim = attr(
          closest(cell, (el) => el.tag === 'tr')!,
          'data-claim',
        )!;
        const href = attr(findAll(cell, (el) => el.tag === 'a')[0]!, 'href')!;
        const [record, fragment] = href.split('#') as [string, string];
        assert.equal(fragment, `claim-${claim}`, `${path}: ${href}`);
        const ids = byId(page(fileOf(record)!));
        const entry = ids.get(fragment) ?? [];
        assert.ok(entry.length === 1 && attr(entry[0]!, 'data-claim') === claim, `${path}: ${href} lands on the claim's entry`);
        for (const link of findAll(entry[0]!, (el) => el.tag === 'a')) {
          const step = (attr(link, 'href') ?? '').replace(/^#/, '');
          const target = ids.get(step) ?? [];
          assert.ok(target.length === 1 && hasClass(target[0]!, 'step-output'), `${record}#${fragment}: #${step} lands on a step output`);
        }
      }
    }
});

test('every shared page has a link-preview card, a 1200×630 PNG beside it: each home page, article and evidence page', () => {
  const pages = [
    ...LANGS.map((lang) => (lang === 'zh' ? '/' : `/${lang}/`)),
    ...everyRun.flatMap(({ slug }) => LANGS.flatMap((lang) => [articlePath(lang, slug), `${articlePath(lang, slug)}evidence/`])),
  ];
  for (const path of pages) {
    const root = page(fileOf(path)!);
    const image = attr(findAll(root, (el) => el.tag === 'meta' && attr(el, 'property') === 'og:image')[0], 'content');
    assert.ok(image !== null && image === `${SITE_URL}${path}og.png`, `${path}: og:image ${image}`);
    const bytes = readFileSync(fileOf(image.slice(SITE_URL.length))!);
    assert.equal(bytes.subarray(0, 8).toString('hex'), '89504e470d0a1a0a', `${image}: a PNG`);
    assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
    assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], [1200, 630], `${image}: 1200×630`);
    // An evidence page's card says what its matrix says: the claims that held in every run, of all.
    const lines = findAll(root, (el) => el.tag === 'tr' && el.attrs.has('data-claim-reach'));
    if (path.endsWith('/evidence/')) {
      assert.ok(lines.length > 0, `${path}: the matrix's lines`);
      const held = lines.filter((tr) => attr(tr, 'data-claim-status') === 'holds').length;
      const alt = attr(findAll(root, (el) => el.tag === 'meta' && attr(el, 'property') === 'og:image:alt')[0], 'content') ?? '';
      assert.ok(alt.includes(`${held}/${lines.length}`), `${path}: the card's alt "${alt}" says ${held}/${lines.length}`);
    }
  }
});
