// An article measured on several Kubernetes versions: each version's runs
// (every environment and variant) built from its own folders as
// buildArticleEnvironments builds them, the headline's carrying the others.
// Every folder's run must have run a release of the version it stands for;
// a declared older version without snapshots is not measured, and says so.
// Pure apart from reading the snapshots folders.
import { existsSync } from 'node:fs';
import { versionFolder, versionProblems, versionsOf } from '../../experiment/kubernetes.ts';
import { environmentFolder, environmentsOf } from '../../experiment/environments.ts';
import { EvidenceError, displayPath } from '../errors.ts';
import { buildArticleEnvironments } from './environments.ts';
import type { ArticleRunsInput } from './variants.ts';
import type { ArticleEvidence, VersionRuns } from './types.ts';

/**
 * The article's evidence: the headline version's (its folder is `snapshotsDir`,
 * required as before), carrying every measured version in `versionRuns`. An
 * experiment that declares one version or none is built as that version's
 * environments, as before, its runs checked to be of that version.
 */
export function buildArticleVersions(input: ArticleRunsInput): ArticleEvidence {
  const experiment = input.experiment;
  const problems = experiment ? versionProblems(experiment, input.linesFile) : [];
  if (problems.length) throw new EvidenceError(problems);
  const declared = versionsOf(experiment);
  const headline = declared[0]!;
  if (declared.length < 2) return buildArticleEnvironments({ ...input, version: headline });
  const exists = input.exists ?? existsSync;
  const runs = new Map<string, ArticleEvidence>();
  const notMeasured: string[] = [];
  for (const release of declared) {
    const folder = versionFolder(input.snapshotsDir, release, headline);
    // The headline must be there (the build fails on it as before); an older version may not have run yet.
    if (release !== headline && !exists(folder)) {
      // Its other environments' runs without its headline environment's would have no place on the page: say so, never drop them.
      const environments = environmentsOf(experiment);
      const stray = environments
        .slice(1)
        .map((e) => environmentFolder(folder, e, environments[0]!))
        .find((f) => exists(f));
      if (stray !== undefined)
        throw new EvidenceError(
          `${displayPath(stray)}: a run of ${release.minor} in another environment, but ${displayPath(folder)} is missing; expected ${release.minor}'s headline environment (${environments[0]}) measured first (article.ts, field "experiment.environments")`,
        );
      notMeasured.push(release.minor);
      continue;
    }
    const { folderOf: _staged, ...rest } = input;
    const evidence = buildArticleEnvironments({
      ...rest,
      snapshotsDir: folder,
      version: release,
      ...(release === headline && input.folderOf ? { folderOf: input.folderOf } : {}),
    });
    runs.set(release.minor, { ...evidence, version: release.minor });
  }
  const minors = declared.map((r) => r.minor);
  const versionRuns: VersionRuns = { headline: headline.minor, declared: minors, measured: minors.filter((m) => runs.has(m)), notMeasured, runs };
  return { ...runs.get(headline.minor)!, versionRuns };
}
