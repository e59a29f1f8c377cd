// The merge's reading of the disk: the folders given (each an --out folder of
// run folders, or one run folder), the checkout's articles and committed runs,
// and the judgement of every accepted run as the build would make it (schema,
// UTF-8, regular files, facts derived, claims evaluated) before anything is
// swapped in (swap-in.ts).
import { existsSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { ArticleDefinitions } from '../../evidence/runs/from-disk.ts';
import { environmentsOf } from '../../experiment/environments.ts';
import { headlineVersion, versionsOf } from '../../experiment/kubernetes.ts';
import { variantsOf } from '../../experiment/variants.ts';
import type { EnvironmentName } from '../../experiment/types.ts';
import { articleDir, listArticleSlugs, loadArticle } from '../../authoring/load.ts';
import { clip } from '../machine/clip.ts';
import { judgeRuns } from '../session/judge-run.ts';
import { placeOf, planMerge, runFolderName, type CheckoutArticle, type FoundRun } from './merge-plan.ts';
import type { IncomingGroup } from './swap-in.ts';
import { inspectTarget } from '../snapshots/target.ts';

/** A merge refused before anything was touched: every line names a folder; `code` 2 for the input, 1 for facts, 3 for broken claims. */
export interface MergeRefusal {
  code: 1 | 2 | 3;
  lines: string[];
}

export interface MergeInput {
  root: string;
  dirs: readonly string[];
  /** The capture's --variant: the variants expected of each article that declares them (none: each article's environment whole). */
  variants: readonly string[];
  /** Swap in runs on which claims no longer hold (a finding about Kubernetes, the prose to follow). */
  acceptBrokenClaims: boolean;
}

export interface MergeReady {
  /** Each article's environment: its runs swapped in together. */
  groups: Array<IncomingGroup & { environment: EnvironmentName }>;
  /** Lines to say before the swap: broken claims accepted, claims across variants not evaluated. */
  notes: string[];
}

/** The last line of a merge refused for broken claims. */
export const ACCEPT_HINT =
  'nothing was merged; if a claim was wrong about Kubernetes (a finding, not a broken run), merge with --accept-broken-claims and change the prose';

const shownOf = (path: string) => relative(process.cwd(), path) || '.';

/** The run folders in the folders given: a folder holding run.yaml is one; any other holds run folders and nothing else. */
export function findRuns(dirs: readonly string[]): { found: FoundRun[]; problems: string[] } {
  const found: FoundRun[] = [];
  const problems: string[] = [];
  for (const dir of dirs) {
    const absolute = resolve(dir);
    const facts = inspectTarget(absolute);
    if (facts.kind !== 'dir') {
      problems.push(`${clip(dir, 160)}: expected a folder of run folders written by --out, found ${facts.kind === 'absent' ? 'nothing' : `a ${facts.kind}`}`);
      continue;
    }
    if (facts.entries.some((e) => e.name === 'run.yaml')) {
      found.push({ dir: absolute, shown: shownOf(absolute), name: null, facts });
      continue;
    }
    if (facts.entries.length === 0) problems.push(`${clip(dir, 160)}: holds no run folder; expected the folder a capture's --out wrote`);
    for (const entry of facts.entries) {
      const path = join(absolute, entry.name);
      if (entry.type !== 'dir') {
        problems.push(
          `${shownOf(path)}: expected only run folders (<slug>[.<version>][.<environment>][.<variant>]) in a folder given to the merge, found a ${entry.type}`,
        );
        continue;
      }
      found.push({ dir: path, shown: shownOf(path), name: entry.name, facts: inspectTarget(path) });
    }
  }
  return { found, problems };
}

/** Every article of the checkout, its experiment and which of its runs are committed now. */
export async function checkoutArticles(root: string): Promise<Map<string, { article: CheckoutArticle; defs: ArticleDefinitions }>> {
  const articles = new Map<string, { article: CheckoutArticle; defs: ArticleDefinitions }>();
  for (const slug of await listArticleSlugs(root)) {
    const defs = await loadArticle(root, slug);
    const experiment = defs.experiment ?? null;
    const committed: CheckoutArticle['committed'] = {};
    const committedRunIds = new Map<string, string>();
    for (const release of versionsOf(experiment)) {
      for (const environment of environmentsOf(experiment)) {
        committed[placeOf(release, environment)] = (experiment ? variantsOf(experiment) : [null]).filter((variant) => {
          const folder = join(articleDir(root, slug), runFolderName('snapshots', experiment, environment, variant, release));
          const facts = inspectTarget(folder);
          const runYaml = (facts.kind === 'dir' ? facts.runYaml : null) as { runId?: unknown } | null;
          if (typeof runYaml?.runId === 'string') committedRunIds.set(runYaml.runId, basename(folder));
          return existsSync(join(folder, 'run.yaml'));
        });
      }
    }
    articles.set(slug, { article: { slug, experiment, committed, committedRunIds }, defs });
  }
  return articles;
}

/**
 * Reads and judges everything the merge would swap in; a refusal touches nothing.
 * The runs of each group are judged where they are, with the committed runs of
 * the variants not in the group beside them (what the swap leaves in place).
 */
export async function prepareMerge(input: MergeInput): Promise<MergeReady | MergeRefusal> {
  const { found, problems } = findRuns(input.dirs);
  const articles = await checkoutArticles(input.root);
  const plan = planMerge(
    found,
    [...articles.values()].map((a) => a.article),
    input.variants,
  );
  if (problems.length || 'problems' in plan) return { code: 2, lines: [...problems, ...('problems' in plan ? plan.problems : [])] };

  const facts: string[] = [];
  const broken: string[] = [];
  const notes: string[] = [];
  const groups: MergeReady['groups'] = [];
  for (const group of plan.groups) {
    const { defs, article } = articles.get(group.slug)!;
    const dir = articleDir(input.root, group.slug);
    const folderOfOther = (variant: string) => join(dir, runFolderName('snapshots', article.experiment, group.environment, variant, group.release));
    const judged = judgeRuns(
      group.slug,
      defs,
      group.runs.map((r) => ({ variant: r.variant, dir: r.dir })),
      folderOfOther,
    );
    const onOther = group.release === headlineVersion(article.experiment) ? '' : `, Kubernetes ${group.release.minor}`;
    const label = `${group.runs.map((r) => r.shown).join(', ')} (${group.slug}, ${group.environment}${onOther})`;
    if (judged.verdict === 'facts') {
      const why = judged.reason === 'malformed' ? 'does not read as snapshots' : 'facts cannot be derived';
      facts.push(`${label}: ${why}, so this is no measurement: ${judged.problems.join(' | ')}`);
      continue;
    }
    if (judged.broken.length) {
      const line = `${label}: ${judged.broken.length} claim(s) no longer hold: ${judged.broken.map((b) => b.replaceAll('\n', ' ')).join(' | ')}`;
      (input.acceptBrokenClaims ? notes : broken).push(input.acceptBrokenClaims ? `accepted: ${line}` : line);
    }
    notes.push(...judged.notes.map((n) => `${label}: ${n}`));
    groups.push({
      slug: group.slug,
      environment: group.environment,
      defs,
      folderOfOther,
      runs: group.runs.map((r) => ({ slug: group.slug, variant: r.variant, runId: r.runId, from: r.dir, target: join(dir, r.folder), articleDir: dir })),
    });
  }
  if (facts.length) return { code: 1, lines: facts };
  if (broken.length)
    return {
      code: 3,
      lines: [...broken, ACCEPT_HINT],
    };
  return { groups, notes };
}
