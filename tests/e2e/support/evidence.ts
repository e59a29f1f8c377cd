// The evidence a page must show, derived afresh in the test process from the raw
// snapshot files, with the same pure extractors the build uses (src/evidence) —
// plus a check that does not trust them: every number a page shows must be
// written in the snapshot file the element names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSnapshots } from '../../../src/evidence/load.ts';
import { deriveFacts, type Fact } from '../../../src/evidence/facts.ts';
import { withRunFacts } from '../../../src/evidence/run-facts.ts';
import { renderLine, type Lang } from '../../../src/evidence/template.ts';
import { choosePlurals } from '../../../src/article/render/plural.ts';
import { article074, experiment074 } from '../../support/articles.ts';
import { linesOfVariant } from '../../../src/evidence/runs/variants.ts';
import { environmentFolder, environmentsOf } from '../../../src/experiment/environments.ts';
import type { EnvironmentName } from '../../../src/experiment/types.ts';
import { versionFolder, versionsOf } from '../../../src/experiment/kubernetes.ts';
import { existsSync } from 'node:fs';

/** Article 074's measured modes: the default (iptables) in snapshots/, nftables beside it in snapshots.nftables/. */
export const VARIANTS_074 = ['iptables', 'nftables'] as const;
export type Variant074 = (typeof VARIANTS_074)[number];
/** Where 074 is measured, as its experiment declares it: the headline (kind) first, the lab's runs in snapshots.lab*. */
export const ENVIRONMENTS_074 = environmentsOf(experiment074);
export const HEADLINE_074 = ENVIRONMENTS_074[0]!;

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const SLUG = '074-external-traffic-policy';
export const committedSnapshots = join(ROOT, 'content/articles', SLUG, 'snapshots');
/** A variant's folder beside the default run's folder. */
export const variantDir = (defaultDir: string, variant: Variant074): string => (variant === 'iptables' ? defaultDir : `${defaultDir}.${variant}`);
/** The folder of one run of 074 from the headline's default folder: snapshots, snapshots.nftables, snapshots.lab, snapshots.lab.nftables. */
export const runDir = (headlineDir: string, environment: EnvironmentName, variant: Variant074): string =>
  variantDir(environmentFolder(headlineDir, environment, HEADLINE_074), variant);

export interface DerivedEvidence {
  runId: string;
  facts: Map<string, Fact>;
  /** The raw text of the file behind each step id (and 'run'). */
  rawFiles: Map<string, string>;
  /** Each step's stdout as the loader reads it. */
  stdout: Map<string, string>;
  expectedLine(step: string, lang: Lang): string;
}

export function deriveEvidence(snapshotsDir: string, variant: Variant074 = 'iptables'): DerivedEvidence {
  const facts074 = [...article074.factDefs, ...article074.variantFactDefs![variant]!];
  const lines074 = linesOfVariant(article074.lines, experiment074, variant);
  const snapshots = loadSnapshots(snapshotsDir);
  // The article's facts and the run's, as the build derives them.
  const defs = withRunFacts(facts074, snapshots.run);
  const optional = new Set(defs.filter((d) => d.optional).map((d) => d.id));
  // Optional facts a run lacks are simply absent; deriveFacts would fail on the others.
  const facts = deriveFacts(
    defs.filter((d) => {
      if (!optional.has(d.id)) return true;
      try {
        deriveFacts([d], snapshots);
        return true;
      } catch {
        return false;
      }
    }),
    snapshots,
  );
  const rawFiles = new Map<string, string>([['run', readFileSync(join(snapshotsDir, 'run.yaml'), 'utf8')]]);
  for (const id of snapshots.run.steps) rawFiles.set(id, readFileSync(join(snapshotsDir, `${id}.yaml`), 'utf8'));
  return {
    runId: snapshots.run.runId,
    facts,
    rawFiles,
    stdout: new Map([...snapshots.steps].map(([id, step]) => [id, step.stdout])),
    expectedLine: (step, lang) =>
      choosePlurals(renderLine(lines074, step, lang, facts), lang)
        .map((s) => (s.kind === 'text' ? s.text : s.fact.value))
        .join(''),
  };
}

/** The digit-bearing tokens of a shown value ("172.18.0.3", "28", "3187.77"). */
export function numericTokens(text: string): string[] {
  return text.match(/\d+(?:[.:]\d+)*/g) ?? [];
}

/** Every run of article 074, by environment and variant, from the headline's default folder. */
export type Runs074 = Record<EnvironmentName, Record<Variant074, DerivedEvidence>>;

/** 074's Kubernetes versions, the headline (whose runs are the article's own) first. */
export const VERSIONS_074 = versionsOf(experiment074);
export const HEADLINE_VERSION_074 = VERSIONS_074[0]!.minor;

/** Every measured version's runs, by minor ("v1.34"): each version's folders from the headline's default folder. */
export function deriveVersionRuns(headlineDir: string): Map<string, Runs074> {
  const out = new Map<string, Runs074>();
  for (const release of VERSIONS_074) {
    const dir = versionFolder(headlineDir, release, VERSIONS_074[0]!);
    if (existsSync(join(dir, 'run.yaml'))) out.set(release.minor, deriveRuns(dir));
  }
  return out;
}

export function deriveRuns(headlineDir: string): Runs074 {
  const ofEnvironment = (environment: EnvironmentName) =>
    Object.fromEntries(VARIANTS_074.map((v) => [v, deriveEvidence(runDir(headlineDir, environment, v), v)])) as Record<Variant074, DerivedEvidence>;
  return Object.fromEntries(ENVIRONMENTS_074.map((e) => [e, ofEnvironment(e)])) as Runs074;
}
