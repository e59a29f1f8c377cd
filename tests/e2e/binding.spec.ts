// A page is bound, not typed: a build from other snapshots shows the other
// values, and snapshot text cannot inject markup; a build for a public URL
// with a path carries it in every link. That every page of the
// committed site says what its snapshots say is checked page by page:
// pages.spec.ts (articles and evidence pages) and tests/built (run records).
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { load, dump } from 'js-yaml';
import {
  committedSnapshots,
  deriveEvidence,
  deriveRuns,
  deriveVersionRuns,
  HEADLINE_VERSION_074,
  ENVIRONMENTS_074,
  HEADLINE_074,
  numericTokens,
  ROOT,
  SLUG,
  VARIANTS_074,
  type DerivedEvidence,
  type Runs074,
  type Variant074,
} from './support/evidence.ts';
import { copyCommittedRuns } from '../support/snapshot-root.ts';
import { siteCopy } from '../support/project-copy.ts';

const LANGS = [
  { lang: 'zh' as const, path: `/${SLUG}/` },
  { lang: 'en' as const, path: `/en/${SLUG}/` },
];

interface BoundElement {
  id: string;
  step: string;
  text: string;
  raw: string | null;
  environment: string | null;
  variant: string | null;
  version: string | null;
  run: string | null;
  /** The experiment file a declared value is read from (data-declared). */
  declared: string | null;
}

async function boundElements(page: Page): Promise<BoundElement[]> {
  return page.$$eval('[data-fact]', (els) =>
    els.map((el) => ({
      id: el.getAttribute('data-fact')!,
      step: el.getAttribute('data-step')!,
      text: el.textContent ?? '',
      raw: el.getAttribute('data-raw'),
      environment: el.getAttribute('data-environment'),
      variant: el.getAttribute('data-variant'),
      version: el.getAttribute('data-version'),
      run: el.getAttribute('data-run'),
      declared: el.getAttribute('data-declared'),
    })),
  );
}

/** Text nodes with a number inside the article that no bound element, UI chrome or experiment file excerpt holds. */
async function strayDigits(page: Page): Promise<string[]> {
  return page.$eval('article[data-run]', (article) => {
    const allowed = '[data-fact], [data-measured], [data-ui], [data-not-measured], [data-source] pre, script, style';
    const stray: string[] = [];
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      // A number, not a digit inside a name: worker2 and iproute2 are names.
      if (!/(?<![\p{L}_-])\d/u.test(text)) continue;
      if (node.parentElement?.closest(allowed)) continue;
      stray.push(text.trim().slice(0, 80));
    }
    return stray;
  });
}

interface RunBinding {
  environment: string | null;
  variant: string | null;
  /** data-version: absent on the article's own version's values outside a table of every version. */
  version?: string | null;
  run: string | null;
}

/** The committed runs of every measured Kubernetes version of 074, by minor. */
const VERSION_RUNS = deriveVersionRuns(committedSnapshots);

/**
 * The run an element is bound to: its data-environment's (the headline when
 * absent; a table of every run names the headline too) in its data-variant (the
 * default when absent), whose id its data-run must be; the article's own run
 * when it carries neither, and then no data-run.
 */
function runOf(headlineRuns: Runs074, binding: RunBinding, what: string): DerivedEvidence {
  const { environment, variant, run } = binding;
  // Another version's value is bound to that version's runs, found by data-version (the headline's are the page's own).
  const version = binding.version ?? HEADLINE_VERSION_074;
  if (version !== HEADLINE_VERSION_074) expect(VERSION_RUNS.has(version), `${what}: data-version="${version}" is a measured version`).toBe(true);
  const runs = version === HEADLINE_VERSION_074 ? headlineRuns : VERSION_RUNS.get(version)!;
  if (environment === null && variant === null) {
    expect(run, `${what}: the article's own run carries no data-run`).toBeNull();
    return runs[HEADLINE_074].iptables;
  }
  if (environment !== null) expect(ENVIRONMENTS_074 as readonly string[], `${what}: data-environment="${environment}" is declared`).toContain(environment);
  if (variant !== null) expect(VARIANTS_074 as readonly string[], `${what}: data-variant="${variant}" is a measured variant`).toContain(variant);
  const evidence = runs[(environment ?? HEADLINE_074) as keyof Runs074][(variant ?? 'iptables') as Variant074];
  expect(run, `${what}: data-run is the id of the run in ${environment ?? HEADLINE_074}, ${variant ?? 'iptables'}`).toBe(evidence.runId);
  return evidence;
}

/** Each bound element shows its run's derived value, names its step, and every number it shows is written in that step's snapshot. */
function expectBoundValues(elements: readonly BoundElement[], runs: Runs074): void {
  for (const el of elements) {
    const evidence = runOf(runs, el, `data-fact="${el.id}"`);
    const fact = evidence.facts.get(el.id);
    expect(fact, `data-fact="${el.id}" is a fact of this run`).toBeTruthy();
    expect(el.step, `data-fact="${el.id}" names the step it came from`).toBe(fact!.step);
    expect(el.text, `data-fact="${el.id}" shows the derived value`).toBe(fact!.value);
    expect(el.raw, `data-fact="${el.id}" carries the exact value when rounded`).toBe(fact!.raw ?? null);
    // Independent of the extractors: each number a step fact shows is written in the step's
    // snapshot file. (Run facts may be computed, e.g. a pod gateway from a podCIDR.)
    if (el.step === 'declared') {
      // Not a measurement: read from an experiment file (a manifest), which it names, and written there.
      expect(el.declared, `${el.id}: a declared value names its file`).toBeTruthy();
      expect(readFileSync(join(ROOT, 'content/articles', SLUG, el.declared!), 'utf8'), `${el.id}: written in ${el.declared}`).toContain(el.raw ?? el.text);
      continue;
    }
    const file = evidence.rawFiles.get(el.step);
    expect(file, `data-step="${el.step}" names a snapshot file`).toBeTruthy();
    if (el.step === 'run') continue;
    for (const token of numericTokens(el.raw ?? el.text)) {
      expect(file, `${el.id}: "${token}" appears in ${el.step}'s snapshot`).toContain(token);
    }
  }
}

async function checkPageAgainst(page: Page, runs: Runs074, lang: 'zh' | 'en', figuresAtLeast = 4): Promise<void> {
  await expect(page.locator('article[data-run]')).toHaveAttribute('data-run', runs[HEADLINE_074].iptables.runId);

  const elements = await boundElements(page);
  expect(elements.length, 'the article binds facts').toBeGreaterThan(20);
  expectBoundValues(elements, runs);

  const figures = await page.$$eval('figure[data-measured]', (els) =>
    els.map((fig) => ({
      environment: fig.getAttribute('data-environment'),
      variant: fig.getAttribute('data-variant'),
      run: fig.getAttribute('data-environment') === null && fig.getAttribute('data-variant') === null ? null : fig.getAttribute('data-run'),
      steps: fig.getAttribute('data-measured')!.split(' '),
      lines: [...fig.querySelectorAll(':scope > .measured-lines > li')].map((li) => ({
        step: li.getAttribute('data-step'),
        text: li.textContent ?? '',
        factSteps: [...li.querySelectorAll('[data-fact]')].map((f) => f.getAttribute('data-step')),
      })),
      heading: fig.querySelector('figcaption')?.textContent ?? '',
    })),
  );
  expect(figures.length, 'the page has measured figures').toBeGreaterThanOrEqual(figuresAtLeast);
  for (const figure of figures) {
    const evidence = runOf(runs, figure, `figure[data-measured="${figure.steps.join(' ')}"]`);
    expect(figure.heading).toBe(lang === 'zh' ? '实测 · 本次运行的输出' : 'Measured · output of this run');
    expect(
      figure.lines.map((l) => l.step),
      'one line per step, in order',
    ).toEqual(figure.steps);
    for (const line of figure.lines) {
      expect(line.text, `the line of ${line.step}`).toBe(evidence.expectedLine(line.step!, lang));
      for (const step of line.factSteps) expect(evidence.rawFiles.has(step!)).toBe(true);
    }
  }

  expect(await strayDigits(page), 'no digit in the prose outside a bound element').toEqual([]);
}

/**
 * A copy of the site to build in: never the checkout, where the build suite's dist/ is served to the other specs. Every
 * article, since each links the others (ArticleLink refuses a link to an article the site does not have).
 */
const siteToBuild = (what: string) => siteCopy(ROOT, what);

/** Builds a copy of the site from a copy of the committed snapshots changed by `mutate`. */
function buildFrom(mutate: (dir: string) => void, env: NodeJS.ProcessEnv = {}): { root: string; dist: string; snapshots: string } {
  const root = siteToBuild('fixture');
  // Every article's runs, every variant and environment, as SHICE_SNAPSHOT_ROOT lays them out; `mutate` changes 074's headline run.
  const snapshots = join(copyCommittedRuns(root, join(root, 'snapshots')), SLUG);
  mutate(snapshots);
  const dist = join(root, 'dist');
  const build = spawnSync(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'build', '--outDir', dist], {
    cwd: root,
    env: { ...process.env, ...env, SHICE_SNAPSHOT_ROOT: join(root, 'snapshots') },
    encoding: 'utf8',
  });
  if (build.status !== 0) {
    // The caller's finally never sees a root it was not given: remove it here.
    rmSync(root, { recursive: true, force: true });
    throw new Error(`fixture build failed:\n${build.stdout}\n${build.stderr}`);
  }
  return { root, dist, snapshots };
}

function editYaml(file: string, edit: (data: Record<string, unknown>) => void): void {
  const data = load(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(data);
  writeFileSync(file, dump(data, { lineWidth: -1 }));
}

// The builds here run one after another: two astro builds at once on two cores only slow each other.
test.describe.serial('builds from other snapshots', () => {
  test.setTimeout(180_000);

  test('SHICE_SITE_URL sets canonical URLs, feeds and the sitemap, and every link carries the base path', () => {
    const copy = siteToBuild('base');
    const out = join(copy, 'dist');
    try {
      const build = spawnSync(process.execPath, [join(copy, 'node_modules/astro/bin/astro.mjs'), 'build', '--outDir', out], {
        cwd: copy,
        env: { ...process.env, SHICE_SITE_URL: 'https://measured.example.org/shice/' },
        encoding: 'utf8',
      });
      expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
      expect(build.stdout, 'no placeholder warning when the URL is set').not.toContain('SHICE_SITE_URL is not set');
      const article = readFileSync(join(out, 'en', SLUG, 'index.html'), 'utf8');
      expect(article).toContain(`<link rel="canonical" href="https://measured.example.org/shice/en/${SLUG}/">`);
      expect(readFileSync(join(out, 'sitemap-0.xml'), 'utf8')).toContain(`<loc>https://measured.example.org/shice/${SLUG}/</loc>`);
      expect(readFileSync(join(out, 'rss.xml'), 'utf8')).toContain(`https://measured.example.org/shice/${SLUG}/`);
      const htmlFiles = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const file = join(dir, name);
          return statSync(file).isDirectory() ? htmlFiles(file) : name.endsWith('.html') ? [file] : [];
        });
      for (const file of htmlFiles(out)) {
        const rootLinks = [...readFileSync(file, 'utf8').matchAll(/(?:href|src)="(\/[^"]*)"/g)].map((m) => m[1]!);
        expect(
          rootLinks.filter((link) => !link.startsWith('/shice/')),
          file,
        ).toEqual([]);
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test('a snapshot holding <script> and <img onerror> renders as text', async ({ page }) => {
    const payload = '<script>window.__shiceXss = 1</script><img src=x onerror="window.__shiceXss = 2">';
    const site = buildFrom((dir) => {
      editYaml(join(dir, 'cluster-via-worker.yaml'), (s) => {
        s['stderr'] = `${payload}\n`;
      });
      editYaml(join(dir, 'iptables-worker2.yaml'), (s) => {
        s['stdout'] = `# ${payload}\n${s['stdout']}`;
      });
      editYaml(join(dir, 'run.yaml'), (r) => {
        (r['environment'] as { summary: Record<string, string> }).summary['zh'] = `A lab ${payload}`;
      });
    });
    try {
      await page.goto(pathToFileURL(join(site.dist, SLUG, 'index.html')).href);
      await page.locator('details.measured-raw').evaluateAll((els) => els.forEach((d) => ((d as HTMLDetailsElement).open = true)));
      expect(await page.evaluate(() => (window as unknown as { __shiceXss?: number }).__shiceXss)).toBeUndefined();
      expect(await page.locator('article img').count(), 'no <img> from a snapshot').toBe(0);
      expect(
        await page
          .locator('article script:not([type="module"]):not([src])')
          .evaluateAll((els) => els.filter((e) => e.textContent?.includes('__shiceXss')).length),
      ).toBe(0);
      await expect(page.locator('[data-fact="run.environment.summary.zh"]:not([data-run])').first()).toHaveText(`A lab ${payload}`);
      await expect(page.locator('figure[data-measured~="cluster-via-worker"] .step-stderr').first()).toContainText('<script>window.__shiceXss = 1</script>');
    } finally {
      rmSync(site.root, { recursive: true, force: true });
    }
  });

  test('a build from snapshots whose values differ shows those values, not the committed ones', async ({ page }) => {
    const committed = deriveEvidence(committedSnapshots);
    const site = buildFrom(
      (dir) => {
        editYaml(join(dir, 'run.yaml'), (r) => {
          r['runId'] = 'fixture-run-differing';
        });
        editYaml(join(dir, 'cluster-via-worker2.yaml'), (s) => {
          s['stdout'] = 'client=192.0.2.77\n';
        });
        editYaml(join(dir, 'local-via-worker2.yaml'), (s) => {
          s['exitCode'] = 7;
          s['durationMs'] = 12.5;
          s['stderr'] = 'curl: (7) Failed to connect to 172.18.0.4 port 30154 after 12 ms: Connection refused\n';
        });
        editYaml(join(dir, 'health-worker.yaml'), (s) => {
          s['stdout'] = String(s['stdout']).replace(/^HTTP\/1\.1 200 OK/, 'HTTP/1.1 299 Odd');
        });
      },
      { SHICE_DRAFT: '1' },
    ); // these values break claims: a draft build flags them instead of failing
    try {
      const fixtureRuns = deriveRuns(site.snapshots);
      const fixture = fixtureRuns[HEADLINE_074].iptables;
      expect(fixture.facts.get('cluster-via-worker2.client')!.value).toBe('192.0.2.77');
      for (const { lang, path } of LANGS) {
        await page.goto(pathToFileURL(join(site.dist, path.slice(1), 'index.html')).href);
        await checkPageAgainst(page, fixtureRuns, lang);
        for (const id of ['cluster-via-worker2.client', 'local-via-worker2.rc', 'health-worker.status']) {
          const shown = await page.locator(`[data-fact="${id}"]`).first().textContent();
          expect(shown).toBe(fixture.facts.get(id)!.value);
          expect(shown).not.toBe(committed.facts.get(id)!.value);
        }
        // The passages resting on the broken claims carry a visible warning; the others do not.
        const broken = page.locator('.claim[data-claim-status="broken"]');
        await expect(broken.filter({ has: page.locator('[data-claim="local-drops-without-backend"]') })).toHaveCount(1);
        await expect(broken.filter({ has: page.locator('[data-claim="local-drops-without-backend"]') }).locator('.claim-warning')).toBeVisible();
        await expect(page.locator('.claim[data-claims="local-keeps-client"]')).toHaveAttribute('data-claim-status', 'holds');
        await expect(page.locator('figure[data-measured~="local-via-worker2"] li[data-claim="local-drops-without-backend"]').first()).toHaveAttribute(
          'data-claim-status',
          'broken',
        );
      }
    } finally {
      rmSync(site.root, { recursive: true, force: true });
    }
  });
});
