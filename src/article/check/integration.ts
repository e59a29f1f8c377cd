// An Astro integration that checks every article's evidence and MDX when the
// build (or dev, or check) starts, so a broken binding stops the build with
// every problem listed by file, instead of failing somewhere inside a render.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { AstroConfig, AstroIntegration } from 'astro';
import { EvidenceError } from '../../evidence/errors.ts';
import { terminalSafe } from '../../evidence/terminal-text.ts';
import { isDraft } from '../evidence/draft.ts';
import { bindableIds, brokenClaimsByEnvironment, evaluatedClaimCount, everyRun } from '../../evidence/runs/variants.ts';
import { evidenceFromDisk } from '../../evidence/runs/from-disk.ts';
import { ARTICLES, ArticleFolderError, articleFolders, loadArticle } from '../../authoring/load.ts';
import { checkArticleSources, type ArticleSource } from './check-article.ts';
import { checkChineseMdx } from './zh-copy.ts';
import { articleTarget, evidenceMemo } from '../evidence/evidence-memo.ts';
import { setDevProblems } from './dev-problems.ts';
import { refusal } from './bounds.ts';
import { placeholderWarning } from '../../site-address.ts';
import { packetPathProblems, type PacketPathDef } from '../render/packet-path.ts';
import type { ArticleEvidence } from '../../evidence/runs/types.ts';
import { SITE_ADDRESS } from '../../site.config.ts';
import { citationProblems, UPSTREAM_FILE } from '../../evidence/upstream.ts';
import { connectionReuseWarnings } from '../../experiment/connection-reuse.ts';
import { readUpstreamRecord, runReleases } from '../../evidence/upstream-disk.ts';

/** Every problem of every article, one line each; an empty list means the build may go on. */
export async function checkArticles(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  options: {
    /** A key that makes every article load afresh (dev, after a change) instead of from the module cache. */
    fresh?: string;
    /** The articles to check, of those content/articles holds (every one when absent). */
    only?: readonly string[];
  } = {},
): Promise<{ problems: string[]; drafts: string[]; findings: string[]; warnings: string[]; summary: string }> {
  const problems: string[] = [];
  /** Claims that broke outside the headline environment: the page shows them, the build names them. */
  const findings: string[] = [];
  let factCount = 0;
  let claimCount = 0;
  const drafts: string[] = [];
  /** What the definition allows and a reader might not want: said, not refused (a curl that reuses its connection). */
  const warnings: string[] = [];
  const memo = evidenceMemo();
  const committedRuns: CommittedRun[] = [];
  let slugs: string[];
  try {
    slugs = articleFolders(root);
    const missing = (options.only ?? []).filter((slug) => !slugs.includes(slug));
    if (missing.length)
      return {
        problems: missing.map((slug) => `${ARTICLES}/${slug}: no such article; expected one of: ${slugs.join(', ')}`),
        drafts,
        findings,
        warnings,
        summary: 'the articles were not read',
      };
    if (options.only) slugs = slugs.filter((slug) => options.only!.includes(slug));
  } catch (error) {
    if (!(error instanceof ArticleFolderError)) throw error;
    return { problems: error.message.split('\n'), drafts, findings, warnings, summary: 'the articles were not read' };
  }
  for (const slug of slugs) {
    const dir = join(root, ARTICLES, slug);
    const sources: ArticleSource[] = (['zh', 'en'] as const)
      .filter((lang) => existsSync(join(dir, `${lang}.mdx`)))
      .map((lang) => ({ lang, file: `${ARTICLES}/${slug}/${lang}.mdx`, source: readFileSync(join(dir, `${lang}.mdx`), 'utf8') }));
    if (!sources.length) continue;
    // The evidence page's MDX, checked as the article's: its bindings, its two languages against each other.
    const evidenceSources: ArticleSource[] = (['zh', 'en'] as const)
      .filter((lang) => existsSync(join(dir, `evidence.${lang}.mdx`)))
      .map((lang) => ({ lang, file: `${ARTICLES}/${slug}/evidence.${lang}.mdx`, source: readFileSync(join(dir, `evidence.${lang}.mdx`), 'utf8') }));
    problems.push(...evidencePageProblems(sources, evidenceSources));
    // Chinese copywriting: full-width punctuation and spacing, over the prose only.
    for (const s of [...sources, ...evidenceSources]) if (s.lang === 'zh') problems.push(...checkChineseMdx(s.file, s.source));
    try {
      const target = articleTarget(root, slug, env);
      // Stamped before deriving: a file that changes meanwhile is not served from the memo.
      const stamps = options.fresh === undefined ? memo.stamps(target) : null;
      const article = await loadArticle(root, slug, options.fresh);
      warnings.push(...connectionReuseWarnings(article.experiment, article.file));
      const evidence = evidenceFromDisk(slug, target.snapshotsDir, article, { variants: true, draft: target.draft });
      // The pages take it from the memo instead of deriving it again (evidence-memo.ts); dev pages derive afresh.
      if (stamps !== null) memo.remember(target, stamps, evidence);
      // A draft's placeholders (runs still to come) are no committed runs.
      committedRuns.push(
        ...everyRun(evidence)
          .filter((run) => !run.unmeasured)
          .map((run) => ({ runId: run.snapshots.run.runId, file: run.snapshots.files.run })),
      );
      // With variants: every measured run's facts and steps as <variant>:<id>, and the claims of every run and across runs.
      const bindable = bindableIds(evidence);
      factCount += bindable.factIds.length;
      problems.push(
        ...checkArticleSources(sources, {
          factIds: bindable.factIds,
          stepIds: bindable.stepIds,
          claimIds: bindable.claims.map((c) => c.id),
          stopIds: (article.walkthrough ?? []).map((stop) => stop.id),
        }),
      );
      problems.push(
        ...checkArticleSources(evidenceSources, {
          factIds: bindable.factIds,
          stepIds: bindable.stepIds,
          claimIds: bindable.claims.map((c) => c.id),
        }),
      );
      // Citations (<Cite id>): every sentence's cited lines, as upstream.yaml holds them for every release a run used.
      const upstream = readUpstreamRecord(dir, `${ARTICLES}/${slug}/${UPSTREAM_FILE}`);
      problems.push(...upstream.problems);
      // A draft previews an article whose runs or whose npm run cite are still to come: what is off is a warning until then.
      if (!evidence.unmeasured)
        (isDraft(env) ? drafts : problems).push(
          ...citationProblems({
            definitionFile: article.file,
            upstreamFile: `${ARTICLES}/${slug}/${UPSTREAM_FILE}`,
            defs: article.citations,
            record: upstream.record,
            releases: runReleases(evidence),
            sources: [...sources, ...evidenceSources],
          }),
        );
      // Packet paths (<PacketPath id>): every definition names facts some run of the article has, used on a page or not.
      problems.push(...packetPathsProblems(article.paths, article.file, evidence));
      const { headline: broken, elsewhere } = brokenClaimsByEnvironment(evidence);
      findings.push(...elsewhere.map((block) => `content/articles/${slug}: ${block}`));
      claimCount += evaluatedClaimCount(evidence);
      if (evidence.unmeasured) drafts.push(`content/articles/${slug}: not yet measured; every fact shows as such (capture it: npm run capture -- ${slug})`);
      else if (broken.length && isDraft(env)) drafts.push(...broken);
      else problems.push(...broken);
    } catch (error) {
      if (error instanceof EvidenceError) problems.push(...error.problems);
      else problems.push((error as Error).message);
    }
  }
  problems.push(...sharedRunIds(committedRuns));
  const summary = `${slugs.length} article(s), ${factCount} facts derived from their snapshots, ${claimCount} claims checked`;
  return { problems, drafts, findings, warnings, summary };
}

/**
 * An article that links its evidence page (<EvidenceLink />) writes one in each language it is
 * written in, and an evidence page belongs to an article. Pure.
 */
export function evidencePageProblems(article: readonly ArticleSource[], evidence: readonly ArticleSource[]): string[] {
  const problems: string[] = [];
  for (const a of article) {
    if (/<EvidenceLink\b/.test(a.source) && !evidence.some((e) => e.lang === a.lang))
      problems.push(
        `${a.file}: <EvidenceLink /> links the evidence page, but there is no ${a.file.replace(/(zh|en)\.mdx$/, 'evidence.$1.mdx')}; expected the page it links to`,
      );
  }
  for (const e of evidence) {
    if (!article.some((a) => a.lang === e.lang))
      problems.push(`${e.file}: an evidence page without its article (${e.file.replace(/evidence\.(zh|en)\.mdx$/, '$1.mdx')})`);
  }
  return problems;
}

interface CommittedRun {
  runId: string;
  /** Its run.yaml, as messages show it. */
  file: string;
}

/** One line per run id that two committed runs share: each run's values are bound to the page by its id. Pure. */
export function sharedRunIds(runs: readonly CommittedRun[]): string[] {
  const byId = Map.groupBy(new Map(runs.map((r) => [r.file, r])).values(), (r) => r.runId);
  return [...byId].flatMap(([runId, same]) =>
    same.length < 2
      ? []
      : [`${same[1]!.file}: field "runId": ${runId} is also the run id of ${same[0]!.file}; expected every committed run to have its own id`],
  );
}

/**
 * The problems of an article's packet paths, one line each: a definition naming a fact no run
 * of the article has, a path id declared twice, and what packetPathProblems finds. The page
 * checks again against the run it binds (`variant=`, `environment=`) when it draws one. Pure.
 */
export function packetPathsProblems(defs: readonly PacketPathDef[], shown: string, evidence: ArticleEvidence): string[] {
  const runs = everyRun(evidence);
  const has = (id: string) => runs.some((run) => run.facts.has(id));
  const problems = defs.flatMap((def) => packetPathProblems(def, has, shown, 'any run of the article'));
  const ids = defs.map((d) => d.id);
  for (const twice of new Set(ids.filter((id, i) => ids.indexOf(id) !== i))) problems.push(`${shown}: path "${twice}" is declared twice`);
  return problems;
}

// Problems quote values and paths from snapshots: escaped, so the terminal shows what the files hold.
export const problemsMessage = (problems: readonly string[]): string =>
  terminalSafe(`the articles do not match their snapshots (${problems.length} problem(s)):\n${problems.map((p) => `  ${p}`).join('\n')}`);

/**
 * Files whose change can change what an article binds: its prose, its definition
 * (article.ts, and any module beside it), its manifests and its snapshots. Pure.
 */
export function isEvidenceSource(root: string, file: string): boolean {
  const rel = relative(root, file).split(sep).join('/');
  const m = /^content\/articles\/[^/]+\/(.+)$/.exec(rel);
  if (!m) return false;
  return (
    /^(zh|en)\.mdx$/.test(m[1]!) ||
    /^[^/]+\.ts$/.test(m[1]!) ||
    /^snapshots(\.[a-z0-9-]+)*\/[^/]+\.yaml$/.test(m[1]!) ||
    /^manifests\/[^/]+\.ya?ml$/.test(m[1]!)
  );
}

type VitePlugin = Extract<NonNullable<NonNullable<AstroConfig['vite']>['plugins']>[number], { name: string }>;

/**
 * `npm run dev`: an article's MDX binds its <Fact>s as it compiles (../render/mdx-facts.ts), so a change to
 * what they read (the article's definition, manifests or snapshots) is a change to its MDX files: Vite
 * compiles them again, as if they had been edited.
 */
export function recompileMdxOnEvidence(root: string): VitePlugin {
  return {
    name: 'shice:mdx-evidence',
    apply: 'serve',
    hotUpdate({ file, modules }) {
      if (!isEvidenceSource(root, file) || file.endsWith('.mdx')) return;
      const dir = join(root, ARTICLES, relative(join(root, ARTICLES), file).split(sep)[0]!);
      if (!existsSync(dir)) return; // the article is gone, and its pages with it
      const graph = this.environment.moduleGraph;
      const mdx = readdirSync(dir)
        .filter((name) => name.endsWith('.mdx'))
        .flatMap((name) => [...(graph.getModulesByFile(join(dir, name)) ?? [])]);
      return mdx.length ? [...modules, ...mdx] : undefined;
    },
  };
}

export function shiceEvidence(): AstroIntegration {
  let root = '';
  return {
    name: 'shice-evidence',
    hooks: {
      'astro:config:setup': async ({ config, logger, command, updateConfig }) => {
        const placeholder = placeholderWarning(SITE_ADDRESS);
        if (command === 'build' && placeholder) logger.warn(placeholder);
        root = resolve(new URL('.', config.root).pathname);
        // `astro preview` serves pages already built (a draft build's too): it judges nothing.
        if (command === 'preview') return;
        if (command === 'dev') updateConfig({ vite: { plugins: [recompileMdxOnEvidence(root)] } });
        const { problems, drafts, findings, warnings, summary } = await checkArticles(root);
        // The dev server starts anyway: it shows the problems in the terminal and on the pages, until they are fixed.
        if (command === 'dev') {
          setDevProblems(problems);
          if (problems.length) logger.error(problemsMessage(problems));
        } else if (problems.length) {
          throw refusal([problemsMessage(problems)]);
        }
        for (const draft of drafts) logger.warn(terminalSafe(`draft build (SHICE_DRAFT): ${draft}`));
        for (const warning of warnings) logger.warn(terminalSafe(warning));
        // Not a failure: a claim may hold in the headline environment and not in another; the page's claim matrix shows it.
        for (const finding of findings) logger.warn(terminalSafe(`a claim does not hold in every environment (shown on the page): ${finding}`));
        logger.info(summary);
      },
      // `npm run dev`: every change to an article's prose, facts, claims or snapshots runs the checks again.
      'astro:server:setup': ({ server, logger }) => {
        let running: Promise<void> = Promise.resolve();
        let generation = 0;
        const recheck = (file: string) => {
          if (!isEvidenceSource(root, file)) return;
          const mine = ++generation;
          running = running
            .then(async () => {
              if (mine !== generation) return; // a later change will check again
              const { problems, summary } = await checkArticles(root, process.env, { fresh: `${Date.now()}-${mine}` });
              setDevProblems(problems);
              if (problems.length) logger.error(`after a change to ${relative(root, file)}: ${problemsMessage(problems)}`);
              else logger.info(`after a change to ${relative(root, file)}: ${summary}, no problem`);
              server.ws.send({ type: 'full-reload' });
            })
            .catch((error: unknown) => logger.error(`the evidence check failed: ${(error as Error).message}`));
        };
        server.watcher.add(join(root, ARTICLES));
        for (const event of ['add', 'change', 'unlink'] as const) server.watcher.on(event, recheck);
      },
    },
  };
}
