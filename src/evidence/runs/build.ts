// One run's evidence as the pages and the capture read it: the snapshots, the facts derived
// from them, and the measured-line templates, checked against each other.
// Pure apart from reading the snapshots folder.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { interruptedSwapHint, loadSnapshots } from '../load.ts';
import { deriveFactsWithSkips, type FactDef } from '../facts.ts';
import { assertLineTemplates, type LineTemplates } from '../template.ts';
import { withRunFacts } from '../run-facts.ts';
import { checkClaimDefs, evaluateClaims, type ClaimDef } from '../claims.ts';
import { EvidenceError } from '../errors.ts';
import { DECLARED_STEP } from '../facts.ts';
import type { ArticleEvidence } from './types.ts';
import type { EnvironmentName, Experiment } from '../../experiment/types.ts';
import { DRIVER_OF } from '../../experiment/environments.ts';
import { minorOf, type KubeRelease } from '../../experiment/kubernetes.ts';
import { declaredObjects, notYetMeasuredError, unmeasuredFacts, unmeasuredSnapshots } from './unmeasured.ts';

/**
 * Where an article's snapshots are read from: its own folder, or
 * `<root>/<slug>` when SHICE_SNAPSHOT_ROOT names another run's folder
 * (the layout `npm run capture -- --out <root>` writes).
 */
export function snapshotsDir(articleDir: string, slug: string, root: string | undefined): string {
  return root ? resolve(root, slug) : join(articleDir, 'snapshots');
}

export function buildArticleEvidence(input: {
  slug: string;
  snapshotsDir: string;
  factDefs: FactDef[];
  lines: LineTemplates;
  linesFile: string;
  claimDefs?: ClaimDef[];
  claimsFile?: string;
  /** A draft build: an article without snapshots builds, its facts shown as not yet measured. */
  draft?: boolean;
  /** The environment this folder holds (environments.ts): its run must say it ran there (run.yaml's `driver`). */
  environment?: EnvironmentName;
  /** The Kubernetes release this folder holds (versions.ts): its run must have run a release of that minor (run.yaml's `versions.kubernetes`). */
  version?: KubeRelease;
  /** In a draft never captured: the nodes, pods and Services it declares get their run facts as placeholders. */
  experiment?: Experiment | null;
  /** The variant (kube-proxy mode) this folder holds: a draft's placeholder run names it. */
  variant?: string;
  /** A capture judging its run: a fact not found breaks the claims that read it instead of failing (facts.ts, `collect`). */
  collectUnfound?: boolean;
}): ArticleEvidence {
  // Never captured (no folder, and nothing beside it a half-done swap left): refused, or in a draft, placeholders.
  // A swap cut short is no draft: the loader says how to recover.
  const unmeasured = !existsSync(input.snapshotsDir) && interruptedSwapHint(input.snapshotsDir) === '';
  if (unmeasured && !input.draft) throw notYetMeasuredError(input.slug, input.snapshotsDir);
  const snapshots = unmeasured
    ? unmeasuredSnapshots(input.slug, input.snapshotsDir, Object.keys(input.lines), declaredObjects(input.slug, input.experiment ?? null), {
        ...(input.environment === undefined ? {} : { environment: input.environment }),
        ...(input.variant === undefined ? {} : { kubeProxyMode: input.variant }),
      })
    : loadSnapshots(input.snapshotsDir, { slug: input.slug });
  if (!unmeasured && input.environment !== undefined && snapshots.run.driver !== DRIVER_OF[input.environment])
    throw new EvidenceError(
      `${snapshots.files.run}: field "driver": expected "${DRIVER_OF[input.environment]}" (the driver of the ${input.environment} environment, which this folder holds), got "${snapshots.run.driver}"`,
    );
  if (!unmeasured && input.version !== undefined) {
    const problem = versionMismatch(snapshots.run.versions, input.version, snapshots.files.run);
    if (problem) throw new EvidenceError(problem);
  }
  const defs = withRunFacts(input.factDefs, snapshots.run, input.linesFile);
  const { facts, skipped, unfound } = unmeasured
    ? (() => {
        // What the manifests declare needs no run: those facts are real even now.
        const placeholders = unmeasuredFacts(defs);
        const real = deriveFactsWithSkips(
          input.factDefs.filter((d) => d.step === DECLARED_STEP),
          snapshots,
        ).facts;
        for (const [id, fact] of real) placeholders.set(id, fact);
        return { facts: placeholders, skipped: [], unfound: [] };
      })()
    : deriveFactsWithSkips(defs, snapshots, { collect: input.collectUnfound ?? false });
  // A fact not found is still one the lines may name: the run lacks it, the definition does not.
  assertLineTemplates(input.lines, { file: input.linesFile, factIds: [...facts.keys(), ...unfound.map((u) => u.id)], stepIds: snapshots.run.steps });
  const claimDefs = input.claimDefs ?? [];
  const claimProblems = checkClaimDefs(claimDefs, input.claimsFile ?? 'article.ts');
  if (claimProblems.length) throw new EvidenceError(claimProblems);
  const fileOfStep = (step: string) => (step === 'run' ? snapshots.files.run : (snapshots.files.steps.get(step) ?? step));
  const notFound = new Map(unfound.map((u) => [u.id, `${u.file}: ${u.message}`]));
  const claims = evaluateClaims(claimDefs, facts, fileOfStep, (id) => notFound.get(id));
  return {
    slug: input.slug,
    snapshots,
    facts,
    skipped,
    lines: input.lines,
    linesFile: input.linesFile,
    claims,
    ...(unfound.length ? { unfound } : {}),
    ...(input.environment === undefined ? {} : { environment: input.environment }),
    ...(unmeasured ? { unmeasured } : {}),
  };
}

/**
 * Why a run may not stand for `release`: run.yaml's `versions.kubernetes` (the
 * API server's own answer) is not a release of its minor. Null when it is. Pure.
 */
export function versionMismatch(versions: Readonly<Record<string, string>>, release: KubeRelease, file: string): string | null {
  const found = versions['kubernetes'];
  const field = `${file}: field "versions.kubernetes"`;
  const expected = `expected a ${release.minor} release (the Kubernetes version this folder holds, e.g. ${release.release})`;
  if (found === undefined) return `${field}: missing; ${expected}`;
  return minorOf(found) === release.minor ? null : `${field}: ${expected}, got ${JSON.stringify(found)}`;
}
