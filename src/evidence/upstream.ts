// Sentences that explain a mechanism cite the upstream code that decides it: a
// file of kubernetes/kubernetes and the lines that say it, at the release each
// run used. `npm run cite` reads those lines from the release's Go module and
// keeps them in the article's upstream.yaml, beside the snapshots; the build
// checks every sentence's citation against that record for every release the
// runs used, and the page shows the lines with a link to them at the tag.
// Pure: the caller reads the files.
import { dump, load } from 'js-yaml';
import type { Lang } from './template.ts';

/** The record `npm run cite` writes in an article's folder. */
export const UPSTREAM_FILE = 'upstream.yaml';
export const UPSTREAM_REPOSITORY = 'https://github.com/kubernetes/kubernetes';
/** The Go module whose source is the repository's at a release's tag. */
export const UPSTREAM_MODULE = 'k8s.io/kubernetes';

/** A citation as article.ts declares it (field "citations", by id). */
export interface CitationDef {
  id: string;
  /** The file, as the repository (and the release's Go module) holds it: "pkg/proxy/iptables/proxier.go". */
  file: string;
  /**
   * The lines cited, in order and adjacent, each as the file has them without its indentation; or the
   * first lines, an ELIDED entry, and the last lines of a longer passage: the lines between are the
   * record's (upstream.yaml), and must be alike in every release the runs used.
   */
  lines: string[];
  /** What the lines decide, in each language: the caption the page shows above them. */
  about: Record<Lang, string>;
}

/** Where a citation's lines are in one release, and the lines as that release's file has them. */
export interface CitedLines {
  file: string;
  /** First and last line, counted from 1. */
  from: number;
  to: number;
  text: string;
}

/** release ("v1.37.2") -> citation id -> its lines there. */
export type UpstreamRecord = Map<string, Map<string, CitedLines>>;

const normalize = (line: string): string => line.trim();

/** The entry of a citation's lines that stands for the lines between its first and its last ones. */
export const ELIDED = '…';
/** How many lines an elided passage may span: a citation is a few lines a reader reads, not a function. */
export const MAX_CITED_LINES = 40;

/** The problem with a citation's lines, or null: an ELIDED entry once at most, with lines before and after it. */
export function quoteProblem(quote: readonly string[]): string | null {
  const at = quote.indexOf(ELIDED);
  if (at < 0) return null;
  if (quote.indexOf(ELIDED, at + 1) >= 0) return `"${ELIDED}" more than once; expected it once, between the first and the last lines`;
  if (at === 0 || at === quote.length - 1) return `"${ELIDED}" first or last; expected it between the first and the last lines`;
  return null;
}

/**
 * Where `quote` stands in `source` as adjacent lines (indentation aside), or why it does not: absent, or there
 * more than once. An elided quote's first lines must be there once, and its last lines after them, within
 * MAX_CITED_LINES.
 */
export function locateLines(source: string, quote: readonly string[]): { from: number; to: number } | 'absent' | 'ambiguous' {
  const lines = source.split('\n').map(normalize);
  const at = quote.indexOf(ELIDED);
  const head = (at < 0 ? quote : quote.slice(0, at)).map(normalize);
  const tail = at < 0 ? null : quote.slice(at + 1).map(normalize);
  if (head.every((l) => l === '')) return 'absent';
  const matches = (wanted: readonly string[], i: number) => i + wanted.length <= lines.length && wanted.every((w, k) => lines[i + k] === w);
  const found: number[] = [];
  for (let i = 0; i + head.length <= lines.length; i++) if (matches(head, i)) found.push(i);
  if (found.length === 0) return 'absent';
  if (found.length > 1) return 'ambiguous';
  const from = found[0]!;
  if (tail === null) return { from: from + 1, to: from + head.length };
  for (let j = from + head.length; j + tail.length - from <= MAX_CITED_LINES; j++) if (matches(tail, j)) return { from: from + 1, to: j + tail.length };
  return 'absent';
}

/**
 * One release's cited lines, from its files (`read` gives a file's text, or null when the release has no
 * such file). Every problem is one line naming the citation, the file and the release.
 */
export function citeRelease(
  defs: readonly CitationDef[],
  release: string,
  read: (file: string) => string | null,
  where: string,
): { cited: Map<string, CitedLines>; problems: string[] } {
  const cited = new Map<string, CitedLines>();
  const problems: string[] = [];
  for (const def of defs) {
    const source = read(def.file);
    if (source === null) {
      problems.push(`${where}, citation "${def.id}": Kubernetes ${release} has no file ${def.file}`);
      continue;
    }
    const at = locateLines(source, def.lines);
    if (typeof at === 'string') {
      problems.push(
        `${where}, citation "${def.id}": ${at === 'absent' ? 'the cited lines are not' : 'the cited lines are more than once'} in ${def.file} at Kubernetes ${release}`,
      );
      continue;
    }
    const text = source
      .split('\n')
      .slice(at.from - 1, at.to)
      .join('\n');
    cited.set(def.id, { file: def.file, ...at, text });
  }
  return { cited, problems };
}

/** upstream.yaml's text: releases newest first, citations by id; the header says where it comes from. */
export function renderUpstream(record: UpstreamRecord): string {
  const releases = [...record.keys()].sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
  const data = Object.fromEntries(
    releases.map((release) => [
      release,
      Object.fromEntries(
        [...record.get(release)!].sort(([a], [b]) => a.localeCompare(b)).map(([id, c]) => [id, { file: c.file, from: c.from, to: c.to, text: c.text }]),
      ),
    ]),
  );
  return `# Written by npm run cite from the Go module ${UPSTREAM_MODULE} of each release the runs used: the lines each\n# citation of article.ts names, as that release's file has them. The build checks the prose against it.\n${dump(data, { lineWidth: -1, noRefs: true })}`;
}

/** upstream.yaml read back; every malformed entry is one line naming the file and the field. */
export function parseUpstream(text: string, shown: string): { record: UpstreamRecord; problems: string[] } {
  const record: UpstreamRecord = new Map();
  const problems: string[] = [];
  let data: unknown;
  try {
    data = load(text);
  } catch (error) {
    return { record, problems: [`${shown}: not YAML (${(error as Error).message.split('\n')[0]})`] };
  }
  if (data === null || data === undefined) return { record, problems };
  if (typeof data !== 'object' || Array.isArray(data)) return { record, problems: [`${shown}: expected releases ("v1.37.2: ...") at the top level`] };
  for (const [release, entries] of Object.entries(data)) {
    if (!/^v\d+\.\d+\.\d+$/.test(release)) problems.push(`${shown}: field "${release}": expected a Kubernetes release, such as v1.37.2`);
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
      problems.push(`${shown}: field "${release}": expected citations by id`);
      continue;
    }
    const cited = new Map<string, CitedLines>();
    for (const [id, entry] of Object.entries(entries as Record<string, unknown>)) {
      const e = entry as Partial<CitedLines> | null;
      const field = `${shown}: field "${release}.${id}"`;
      if (typeof e !== 'object' || e === null) problems.push(`${field}: expected { file, from, to, text }`);
      else if (typeof e.file !== 'string' || typeof e.text !== 'string') problems.push(`${field}: expected a file and the text of its lines`);
      else if (!Number.isInteger(e.from) || !Number.isInteger(e.to) || e.from! < 1 || e.to! < e.from!)
        problems.push(`${field}: expected from and to, line numbers with from <= to`);
      else if (e.text.split('\n').length !== e.to! - e.from! + 1)
        problems.push(`${field}: the text holds ${e.text.split('\n').length} line(s); from and to span ${e.to! - e.from! + 1}`);
      else cited.set(id, { file: e.file, from: e.from!, to: e.to!, text: e.text });
    }
    record.set(release, cited);
  }
  return { record, problems };
}

/** The lines as the page shows them: the indentation they all share taken off (blank lines aside), each line's own kept. */
export function dedented(text: string): string {
  const lines = text.split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[\t ]*/.exec(l)![0]);
  const shared = indents.reduce((common, indent) => {
    let n = 0;
    while (n < common.length && n < indent.length && common[n] === indent[n]) n++;
    return common.slice(0, n);
  }, indents[0] ?? '');
  return lines.map((l) => (l.startsWith(shared) ? l.slice(shared.length) : l.trimStart())).join('\n');
}

/** The link to a citation's lines in the repository at the release's tag. */
export function upstreamLink(release: string, lines: Pick<CitedLines, 'file' | 'from' | 'to'>): string {
  return `${UPSTREAM_REPOSITORY}/blob/${release}/${lines.file}#L${lines.from}${lines.to === lines.from ? '' : `-L${lines.to}`}`;
}

/** A `<Cite id="…" />` of an MDX file, with its line and the sentence it ends (markup left out, cut). */
export interface CiteReference {
  id: string;
  line: number;
  sentence: string;
}

/** The citations an MDX file makes, in order. */
export function findCitations(source: string): CiteReference[] {
  return [...source.matchAll(/<Cite\s+id="([^"]*)"\s*\/>/g)].map((m) => {
    const before = source.slice(0, m.index);
    // The sentence the citation ends: back to the previous sentence's end or the paragraph's start.
    const end = [...before.matchAll(/[。！？；：]|[.!?;:](?=\s)|\n\n/g)].at(-1);
    const start = end ? end.index + end[0].length : 0;
    const sentence = before
      .slice(start)
      .replace(/<[^>]*>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    return { id: m[1]!, line: before.split('\n').length, sentence: sentence.length > 48 ? `…${sentence.slice(-47)}` : sentence };
  });
}

export interface CitationInput {
  /** content/articles/<slug>/article.ts and upstream.yaml, as messages show them. */
  definitionFile: string;
  upstreamFile: string;
  defs: readonly CitationDef[];
  /** null when the article has no upstream.yaml. */
  record: UpstreamRecord | null;
  /** Every release a run of the article used ("v1.37.2"). */
  releases: readonly string[];
  /** The article's and its evidence page's MDX, by file. */
  sources: readonly { lang: Lang; file: string; source: string }[];
}

/**
 * Every problem of an article's citations, one line each: a <Cite> naming no citation, a citation one
 * language makes and the other does not, one no sentence makes, and (for every release a run used) a
 * cited sentence whose lines upstream.yaml does not hold at that release as article.ts quotes them.
 */
export function citationProblems(input: CitationInput): string[] {
  const problems: string[] = [];
  const byId = new Map(input.defs.map((d) => [d.id, d]));
  const refs = input.sources.map((s) => ({ ...s, cites: findCitations(s.source) }));
  const declared = [...byId.keys()].join(', ') || 'none';
  for (const r of refs)
    for (const c of r.cites)
      if (!byId.has(c.id))
        problems.push(`${r.file}:${c.line}: <Cite id="${c.id}">: no such citation in ${input.definitionFile} (field "citations" declares: ${declared})`);
  const langs = [...new Set(input.sources.map((s) => s.lang))];
  for (const def of input.defs) {
    const citedIn = langs.filter((lang) => refs.some((r) => r.lang === lang && r.cites.some((c) => c.id === def.id)));
    if (citedIn.length === 0)
      problems.push(
        `${input.definitionFile}: field "citations.${def.id}": no sentence cites it; expected a <Cite id="${def.id}" /> in each language, or remove it`,
      );
    else if (citedIn.length < langs.length)
      problems.push(
        `${input.definitionFile}: field "citations.${def.id}": cited in ${citedIn.join(', ')} only; expected a <Cite id="${def.id}" /> in each language`,
      );
  }
  if (input.defs.length === 0) return problems;
  if (input.record === null) {
    problems.push(`${input.upstreamFile}: missing; expected the cited lines of every release the runs used (npm run cite -- <slug> writes it)`);
    return problems;
  }
  // An elided citation's lines between its first and last are the record's: alike in every release, or its sentence may rest on lines one release lacks.
  for (const def of input.defs.filter((d) => d.lines.includes(ELIDED))) {
    const texts = input.releases.flatMap((release) => {
      const lines = input.record!.get(release)?.get(def.id);
      return lines ? [{ release, text: lines.text.split('\n').map(normalize).join('\n') }] : [];
    });
    const other = texts.find((t) => t.text !== texts[0]!.text);
    if (other)
      problems.push(
        `${input.definitionFile}: field "citations.${def.id}": the lines between its first and last differ between Kubernetes ${texts[0]!.release} and ${other.release} (${input.upstreamFile}); expected lines every release has alike: cite fewer, or quote them in full`,
      );
  }
  for (const release of input.releases) {
    const cited = input.record.get(release);
    for (const def of input.defs) {
      const lines = cited?.get(def.id);
      const wrong =
        lines === undefined
          ? `${input.upstreamFile} holds no lines of it at Kubernetes ${release}`
          : lines.file !== def.file
            ? `${input.upstreamFile} holds ${lines.file} at Kubernetes ${release}, not ${def.file}`
            : typeof locateLines(lines.text, def.lines) === 'string'
              ? `its lines are not at ${lines.file}#L${lines.from}-L${lines.to} of Kubernetes ${release} as ${input.upstreamFile} holds them`
              : null;
      if (wrong === null) continue;
      const where = refs.flatMap((r) => r.cites.filter((c) => c.id === def.id).map((c) => `${r.file}:${c.line}`))[0];
      const sentence = refs.flatMap((r) => r.cites.filter((c) => c.id === def.id)).map((c) => c.sentence)[0];
      problems.push(
        `${where ?? input.definitionFile}: the sentence "${sentence ?? ''}" cites ${def.file} ("${def.id}"): ${wrong}; run npm run cite -- ${input.definitionFile.split('/')[2]} and read the lines again`,
      );
    }
  }
  return problems;
}
