// Every committed run of every article, and what a page bound to them must show,
// derived afresh in the test process from the raw snapshot files with the pure
// extractors the build uses (src/evidence), for any article: the browser suite's
// one load per page and the no-browser pass over dist/ (tests/built) read the same
// expectations. The checks return problems (one line each) instead of asserting,
// so each runner says them all at once with its own assertion.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listArticleSlugs, loadArticle, type Article } from '../../../src/authoring/load.ts';
import { loadSnapshots } from '../../../src/evidence/load.ts';
import { deriveFactsWithSkips, type Fact } from '../../../src/evidence/facts.ts';
import { withRunFacts } from '../../../src/evidence/run-facts.ts';
import { renderLine, type Lang } from '../../../src/evidence/template.ts';
import { choosePlurals } from '../../../src/article/render/plural.ts';
import { linesOfVariant } from '../../../src/evidence/runs/variants.ts';
import { environmentFolder, environmentsOf } from '../../../src/experiment/environments.ts';
import { versionFolder, versionsOf } from '../../../src/experiment/kubernetes.ts';
import { variantFolder, variantsOf } from '../../../src/experiment/variants.ts';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** One committed run: where it was measured, and what its snapshots say. */
export interface CommittedRun {
  version: string;
  environment: string;
  variant: string | null;
  /** What a page's element names of this run (data-version, data-environment, data-variant): null where it is the headline's. */
  names: { version: string | null; environment: string | null; variant: string | null };
  runId: string;
  /** The release its API server answered (run.yaml's versions.kubernetes). */
  kubernetes: string;
  steps: string[];
  facts: Map<string, Fact>;
  /** The raw text of the file behind each step id (and 'run'). */
  rawFiles: Map<string, string>;
  /** Each step's stdout and stderr as the loader reads them, and its argv. */
  stdout: Map<string, string>;
  stderr: Map<string, string>;
  /** The record page's path below the article's `run/`: '' for the headline's, else `v1.34/`, `lab/`, `v1.34/lab/nftables/`. */
  recordSuffix: string;
  expectedLine(step: string, lang: Lang): string;
}

export interface ArticleRuns {
  slug: string;
  article: Article;
  headline: CommittedRun;
  runs: CommittedRun[];
  /** The run an element names by its data-version, data-environment and data-variant (absent: the headline's). */
  named(version: string | null, environment: string | null, variant: string | null): CommittedRun | undefined;
}

function deriveRun(
  article: Article,
  dir: string,
  variant: string | null,
): Omit<CommittedRun, 'version' | 'environment' | 'variant' | 'names' | 'recordSuffix'> {
  const snapshots = loadSnapshots(dir);
  const own = [...article.factDefs, ...(variant === null ? [] : (article.variantFactDefs?.[variant] ?? []))];
  // The article's facts and the run's, as the build derives them; an optional fact this run lacks is simply absent.
  const { facts } = deriveFactsWithSkips(withRunFacts(own, snapshots.run), snapshots);
  const lines = variant === null ? article.lines : linesOfVariant(article.lines, article.experiment, variant);
  const rawFiles = new Map<string, string>([['run', readFileSync(join(dir, 'run.yaml'), 'utf8')]]);
  for (const id of snapshots.run.steps) rawFiles.set(id, readFileSync(join(dir, `${id}.yaml`), 'utf8'));
  return {
    runId: snapshots.run.runId,
    kubernetes: snapshots.run.versions['kubernetes'] ?? '',
    steps: [...snapshots.run.steps],
    facts,
    rawFiles,
    stdout: new Map([...snapshots.steps].map(([id, step]) => [id, step.stdout])),
    stderr: new Map([...snapshots.steps].map(([id, step]) => [id, step.stderr])),
    expectedLine: (step, lang) =>
      choosePlurals(renderLine(lines, step, lang, facts), lang)
        .map((s) => (s.kind === 'text' ? s.text : s.fact.value))
        .join(''),
  };
}

/** Every committed run of one article: each measured version × environment × variant whose folder holds a run.yaml. */
export async function articleRuns(slug: string): Promise<ArticleRuns> {
  const article = await loadArticle(ROOT, slug);
  const experiment = article.experiment;
  const versions = versionsOf(experiment);
  const environments = environmentsOf(experiment);
  const variants = variantsOf(experiment);
  const headlineDir = join(ROOT, 'content/articles', slug, 'snapshots');
  const runs: CommittedRun[] = [];
  for (const release of versions)
    for (const environment of environments)
      for (const variant of variants) {
        const dir = variantFolder(environmentFolder(versionFolder(headlineDir, release, versions[0]!), environment, environments[0]!), variant, variants[0]!);
        if (!existsSync(join(dir, 'run.yaml'))) continue;
        const names = {
          version: release === versions[0] ? null : release.minor,
          environment: environment === environments[0] ? null : environment,
          variant: variant === variants[0] ? null : variant,
        };
        const recordSuffix = [names.version, names.environment, names.variant]
          .filter((p) => p !== null)
          .map((p) => `${p}/`)
          .join('');
        runs.push({ version: release.minor, environment, variant, names, recordSuffix, ...deriveRun(article, dir, variant) });
      }
  const headline = runs.find((r) => r.recordSuffix === '');
  if (!headline) throw new Error(`${slug}: no committed headline run (content/articles/${slug}/snapshots/run.yaml)`);
  return {
    slug,
    article,
    headline,
    runs,
    named: (version, environment, variant) =>
      runs.find(
        (r) =>
          r.version === (version ?? headline.version) && r.environment === (environment ?? headline.environment) && r.variant === (variant ?? headline.variant),
      ),
  };
}

/** Every article with a definition, and its runs; the sweeps that take it fail on none. */
export async function everyArticleRuns(): Promise<ArticleRuns[]> {
  const slugs = await listArticleSlugs(ROOT);
  if (slugs.length === 0) throw new Error('content/articles/: no article to check (a sweep over no article would pass empty)');
  return Promise.all(slugs.map(articleRuns));
}

/** The digit-bearing tokens of a shown value ("172.18.0.3", "28", "3187.77"). */
export function numericTokens(text: string): string[] {
  return text.match(/\d+(?:[.:]\d+)*/g) ?? [];
}

/**
 * The values an article computes from its outputs rather than reads from them,
 * by fact id: checked against the derivation only. Every other number a page
 * shows must be written in its step's snapshot file, whatever the extractors
 * say; an article that computes a value names it here (its check fails until it does).
 */
export const COMPUTED: Record<string, RegExp> = {
  // 075 counts which pod answered each of 600 requests, and divides.
  '075-local-uneven-weights': /^spread-[a-z]+\.(?:requests|answered|(?:count|share|expected|expectedShare|bound|boundShare)\.[a-z0-9-]+)$/,
};

/** A bound element as a page shows it: data-fact and the attributes naming its step and run, and its text. */
export interface BoundElement {
  id: string;
  step: string | null;
  text: string;
  raw: string | null;
  environment: string | null;
  variant: string | null;
  version: string | null;
  run: string | null;
  /** The experiment file a declared value is read from (data-declared). */
  declared: string | null;
}

/** The run an element (or figure, excerpt, cell) names, or the problem with what it names. */
export function runNamed(runs: ArticleRuns, b: Pick<BoundElement, 'version' | 'environment' | 'variant' | 'run'>, what: string): CommittedRun | string {
  const run = runs.named(b.version, b.environment, b.variant);
  if (!run)
    return `${what}: data-version="${b.version}" data-environment="${b.environment}" data-variant="${b.variant}" names no committed run of ${runs.slug}`;
  // The headline's own values carry no data-run; a value of any other run (or named by a table of every run) carries its id.
  const expected = b.version === null && b.environment === null && b.variant === null ? null : run.runId;
  if (b.run !== expected) return `${what}: data-run="${b.run}", expected ${expected === null ? 'none (the article’s own run)' : `"${expected}"`}`;
  return run;
}

/**
 * Each bound element shows its run's derived value, names its step, and every
 * number it shows is written in that step's snapshot (independent of the
 * extractors); a declared value is written in the experiment file it names.
 */
export function boundValueProblems(elements: readonly BoundElement[], runs: ArticleRuns): string[] {
  const problems: string[] = [];
  for (const el of elements) {
    const what = `data-fact="${el.id}"`;
    const run = runNamed(runs, el, what);
    if (typeof run === 'string') {
      problems.push(run);
      continue;
    }
    const fact = run.facts.get(el.id);
    if (!fact) {
      problems.push(`${what}: no such fact of run ${run.runId}`);
      continue;
    }
    if (el.step !== fact.step) problems.push(`${what}: data-step="${el.step}", the fact comes from "${fact.step}"`);
    if (el.text !== fact.value) problems.push(`${what}: shows "${el.text}", its run's snapshots say "${fact.value}"`);
    if (el.raw !== (fact.raw ?? null)) problems.push(`${what}: data-raw="${el.raw}", expected ${fact.raw === undefined ? 'none' : `"${fact.raw}"`}`);
    if (el.step === 'declared') {
      if (!el.declared) problems.push(`${what}: a declared value names no file (data-declared)`);
      else if (!readFileSync(join(ROOT, 'content/articles', runs.slug, el.declared), 'utf8').includes(el.raw ?? el.text))
        problems.push(`${what}: "${el.raw ?? el.text}" is not written in ${el.declared}`);
      continue;
    }
    const file = run.rawFiles.get(el.step ?? '');
    if (file === undefined) {
      problems.push(`${what}: data-step="${el.step}" names no snapshot file of run ${run.runId}`);
      continue;
    }
    // Run facts may be computed (a pod gateway from a podCIDR): only a step's numbers must be written in its file,
    // unless the article computes the value from its outputs (a count, a share) and says so below.
    if (el.step === 'run' || COMPUTED[runs.slug]?.test(el.id)) continue;
    for (const token of numericTokens(el.raw ?? el.text)) if (!file.includes(token)) problems.push(`${what}: "${token}" is not in ${el.step}'s snapshot`);
  }
  return problems;
}

/** A measured figure as a page shows it: the steps it names and one line per step. */
export interface MeasuredFigure {
  environment: string | null;
  variant: string | null;
  version: string | null;
  run: string | null;
  steps: string[];
  heading: string;
  lines: { step: string | null; text: string; factSteps: (string | null)[] }[];
}

export const MEASURED_HEADING: Record<Lang, string> = { zh: '实测 · 本次运行的输出', en: 'Measured · output of this run' };

export function measuredFigureProblems(figures: readonly MeasuredFigure[], runs: ArticleRuns, lang: Lang): string[] {
  const problems: string[] = [];
  for (const figure of figures) {
    const what = `figure[data-measured="${figure.steps.join(' ')}"]`;
    const run = runNamed(runs, figure, what);
    if (typeof run === 'string') {
      problems.push(run);
      continue;
    }
    if (figure.heading !== MEASURED_HEADING[lang]) problems.push(`${what}: heading "${figure.heading}"`);
    const lineSteps = figure.lines.map((l) => l.step);
    if (lineSteps.join(' ') !== figure.steps.join(' ')) problems.push(`${what}: lines of ${lineSteps.join(' ')}, expected one per step in order`);
    for (const line of figure.lines) {
      const expected = run.expectedLine(line.step!, lang);
      if (line.text !== expected) problems.push(`${what}: the line of ${line.step} reads "${line.text}", expected "${expected}"`);
      for (const step of line.factSteps) if (!run.rawFiles.has(step!)) problems.push(`${what}: a value of step "${step}", not a step of run ${run.runId}`);
    }
  }
  return problems;
}

/** An excerpt as a page shows it: its lines, null for each marked gap. */
export interface Excerpt {
  step: string;
  environment: string | null;
  variant: string | null;
  version: string | null;
  run: string | null;
  mark: string | null;
  lines: (string | null)[];
}

/** Every excerpt shows its run's lines in their order and marks each stretch it left out. */
export function excerptProblems(excerpts: readonly Excerpt[], runs: ArticleRuns, lang: Lang): string[] {
  const problems: string[] = [];
  for (const excerpt of excerpts) {
    const what = `excerpt of ${excerpt.step} (${excerpt.version ?? '-'} ${excerpt.environment ?? '-'} ${excerpt.variant ?? '-'})`;
    const run = runNamed(runs, excerpt, what);
    if (typeof run === 'string') {
      problems.push(run);
      continue;
    }
    if (excerpt.mark !== (lang === 'zh' ? '节选' : 'excerpt')) problems.push(`${what}: marked "${excerpt.mark}"`);
    const stdout = run.stdout.get(excerpt.step);
    if (stdout === undefined) {
      problems.push(`${what}: no step ${excerpt.step} in run ${run.runId}`);
      continue;
    }
    const output = stdout.replace(/\n$/, '').split('\n');
    let at = -1;
    let gapBefore = true; // a first line that is not the output's first needs an ellipsis before it
    for (const line of excerpt.lines) {
      if (line === null) {
        gapBefore = true;
        continue;
      }
      const found = output.findIndex((l, i) => i > at && l.trim() === line.trim());
      if (found < 0) {
        problems.push(`${what}: "${line.trim()}" is no line of the output after the one before it`);
        break;
      }
      if (output.slice(at + 1, found).some((l) => l.trim() !== '') && !gapBefore)
        problems.push(`${what}: the lines before "${line.trim()}" were left out and no ellipsis says so`);
      at = found;
      gapBefore = false;
    }
    if (output.slice(at + 1).some((l) => l.trim() !== '') && excerpt.lines.at(-1) !== null)
      problems.push(`${what}: the lines after the last one shown were left out and not marked`);
  }
  return problems;
}
