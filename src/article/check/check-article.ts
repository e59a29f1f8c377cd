// The build's checks over an article's MDX, before any page renders: every
// <Fact>/<Measured> names something the run has, no measured-looking value is
// typed into the prose, and the two languages bind the same evidence.
// Pure: callers pass the sources and the evidence.
import { load, YAMLException } from 'js-yaml';
import { checkReferences, componentsInCode, findFactReferences, findUnboundValues, type FactReference } from '../../evidence/mdx-check.ts';
import { scanMdx, type MdxScan } from '../../evidence/mdx-scan.ts';
import type { Lang } from '../../evidence/template.ts';

/**
 * Components whose digits are accounted for (besides Fact, Measured, Provenance): those that
 * render only bound values, and NotMeasured, the explicit, visibly marked "this number is not a measurement".
 */
export const ARTICLE_BOUND_COMPONENTS = ['VariantComparison', 'Chart', 'NotMeasured'];

/** Every component an article's MDX can use (ArticleBody.astro passes them; Fact is compiled in): written inside code, each is refused. */
export const ARTICLE_COMPONENTS: ReadonlySet<string> = new Set([
  'Fact',
  'RunBadge',
  'Measured',
  'Provenance',
  'RunEnvironment',
  'RunLimits',
  'Walkthrough',
  'Stop',
  'EvidenceLink',
  'Claim',
  'VariantComparison',
  'ClaimMatrix',
  'Excerpt',
  'ArticleLink',
  'Chart',
  'PacketPath',
  'NotMeasured',
  'Cite',
  'UpstreamTests',
]);

export interface ArticleSource {
  lang: Lang;
  /** As messages show it: content/articles/<slug>/<lang>.mdx */
  file: string;
  source: string;
}

/** A front matter that is no YAML, in one line: the file, the line in it, and what the YAML parser expected. */
export class FrontMatterError extends Error {
  override name = 'FrontMatterError';
}

/** The front matter's data; a YAML error is one line naming the file and the line (the front matter starts on line 2). */
export function frontMatter(source: ArticleSource): Record<string, unknown> | null {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(source.source);
  if (!match) return null;
  try {
    return load(match[1]!) as Record<string, unknown> | null;
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    const line = (error.mark?.line ?? 0) + 2;
    throw new FrontMatterError(`${source.file}:${line}: front matter: ${error.reason || 'not YAML'}; expected YAML between the two --- lines`);
  }
}

/** The frontmatter's languageSpecificFacts: fact id -> reason. */
export function languageSpecificFacts(source: ArticleSource): Map<string, string> {
  const data = frontMatter(source) as { languageSpecificFacts?: Record<string, string> } | null;
  return new Map(Object.entries(data?.languageSpecificFacts ?? {}));
}

/** Claim ids named by `<Claim ids="a b">` passages, with their line. */
export function findClaimReferences(source: string): { id: string; line: number }[] {
  const refs: { id: string; line: number }[] = [];
  for (const match of source.matchAll(/<Claim\s+ids="([^"]*)"/g)) {
    const line = source.slice(0, match.index).split('\n').length;
    for (const id of match[1]!.split(/\s+/).filter(Boolean)) refs.push({ id, line });
  }
  return refs;
}

/** The `<Stop id="…" title="…">` stops of an MDX file's <Walkthrough>, in order, with their line. */
export function findStops(source: string): { id: string; title: string | null; line: number }[] {
  return [...source.matchAll(/<Stop\b([^>]*)>/g)].map((match) => ({
    id: /\bid="([^"]*)"/.exec(match[1]!)?.[1] ?? '',
    title: /\btitle="([^"]*)"/.exec(match[1]!)?.[1] ?? null,
    line: source.slice(0, match.index).split('\n').length,
  }));
}

/**
 * A walkthrough's stops as one MDX file writes them against the ones the definition declares:
 * every declared stop once, in the declared order, each with a title; none unknown.
 */
export function stopProblems(file: string, source: string, declared: readonly string[]): string[] {
  const stops = findStops(source);
  if (!stops.length && !/<Walkthrough\b/.test(source)) return [];
  const problems: string[] = [];
  for (const stop of stops) {
    if (!declared.includes(stop.id))
      problems.push(`${file}:${stop.line}: <Stop id="${stop.id}">: unknown stop; the article's walkthrough declares: ${declared.join(', ') || 'none'}`);
    if (!stop.title) problems.push(`${file}:${stop.line}: <Stop id="${stop.id}">: expected a title="…" in this language`);
  }
  const written = stops.map((s) => s.id);
  for (const id of declared)
    if (!written.includes(id)) problems.push(`${file}: <Walkthrough> has no <Stop id="${id}">; expected every stop the walkthrough declares`);
  const known = written.filter((id) => declared.includes(id));
  const order = declared.filter((id) => known.includes(id));
  if (new Set(known).size !== known.length) problems.push(`${file}: a <Stop> appears twice (${known.join(', ')}); expected each stop once`);
  else if (known.join(' ') !== order.join(' '))
    problems.push(`${file}: the stops are in the order ${known.join(', ')}; expected the walkthrough's order, ${order.join(', ')}`);
  return problems;
}

/** What the checks read from one MDX file, read once: its scan, its references and its frontmatter's declarations. */
interface ReadSource {
  source: ArticleSource;
  scan: MdxScan;
  refs: FactReference[];
  claims: { id: string; line: number }[];
  specific: Map<string, string>;
}

function readSource(source: ArticleSource): ReadSource {
  const scan = scanMdx(source.source);
  return { source, scan, refs: findFactReferences(source.source, scan), claims: findClaimReferences(source.source), specific: languageSpecificFacts(source) };
}

function bindings(read: ReadSource): { facts: Set<string>; steps: Set<string>; claims: Set<string> } {
  return {
    facts: new Set(read.refs.filter((r) => r.kind === 'fact').map((r) => r.id)),
    steps: new Set(read.refs.filter((r) => r.kind === 'step').map((r) => r.id)),
    claims: new Set(read.claims.map((r) => r.id)),
  };
}

/** A fact or Measured step bound in one language and not the other, unless declared language-specific. */
export function checkParity(sources: readonly ArticleSource[]): string[] {
  return parityProblems(sources.length < 2 ? [] : sources.map(readSource));
}

function parityProblems(reads: readonly ReadSource[]): string[] {
  if (reads.length < 2) return [];
  const problems: string[] = [];
  const declared = new Map<string, string>();
  for (const r of reads) for (const [id, reason] of r.specific) declared.set(id, reason);
  const bound = reads.map((r) => ({ source: r.source, ...bindings(r) }));
  for (const a of bound) {
    for (const b of bound) {
      if (a === b) continue;
      for (const id of a.facts) {
        if (!b.facts.has(id) && !declared.has(id)) {
          problems.push(
            `${a.source.file}: binds <Fact id="${id}">, ${b.source.file} does not (bind it there too, or declare it under languageSpecificFacts with a reason)`,
          );
        }
      }
      for (const id of a.steps) {
        if (!b.steps.has(id)) problems.push(`${a.source.file}: shows step "${id}" in a <Measured>, ${b.source.file} does not`);
      }
      for (const id of a.claims) {
        if (!b.claims.has(id)) problems.push(`${a.source.file}: a passage rests on claim "${id}", no passage of ${b.source.file} does`);
      }
    }
  }
  return problems;
}

export function checkArticleSources(
  sources: readonly ArticleSource[],
  evidence: { factIds: Iterable<string>; stepIds: Iterable<string>; claimIds?: Iterable<string>; stopIds?: readonly string[] },
): string[] {
  const claimIds = new Set(evidence.claimIds ?? []);
  const factIds = [...evidence.factIds];
  const stepIds = [...evidence.stepIds];
  const problems: string[] = [];
  // Each file is scanned once; every check below reads that one scan.
  const reads = sources.flatMap((source) => {
    try {
      return [readSource(source)];
    } catch (error) {
      if (!(error instanceof FrontMatterError)) throw error;
      problems.push(error.message);
      return [];
    }
  });
  for (const { source: s, scan, claims, specific } of reads) {
    problems.push(...checkReferences(s.file, s.source, factIds, stepIds, scan).map((p) => p.message));
    problems.push(...componentsInCode(s.file, s.source, ARTICLE_COMPONENTS).map((p) => p.message));
    problems.push(...findUnboundValues(s.file, s.source, { boundComponents: ARTICLE_BOUND_COMPONENTS }, scan).map((p) => p.message));
    problems.push(...stopProblems(s.file, s.source, evidence.stopIds ?? []));
    for (const ref of claims) {
      if (!claimIds.has(ref.id))
        problems.push(
          `${s.file}:${ref.line}: <Claim ids="…${ref.id}…">: unknown claim "${ref.id}"; the article declares: ${[...claimIds].join(', ') || 'none'}`,
        );
    }
    for (const id of specific.keys()) {
      if (!factIds.includes(id)) problems.push(`${s.file}: languageSpecificFacts names "${id}", which is no fact of this article`);
    }
  }
  problems.push(...parityProblems(reads));
  return problems;
}
