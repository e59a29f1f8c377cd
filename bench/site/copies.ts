// What changes when an article is copied into a generated site: its slug, its
// series number and the ids of its runs, each of which the site refuses to see
// twice, and its links to other articles, which the site does not have. Pure; each function fails naming the file and the field it could not find.
import { scanMdx } from '../../src/evidence/mdx-scan.ts';

/** What copy `index` (1-based) adds to the names it changes: `-b0007`. */
function copySuffix(index: number, what: string): string {
  if (!Number.isInteger(index) || index < 1) throw new Error(`${what}: expected an index >= 1, got ${index}`);
  return `-b${String(index).padStart(4, '0')}`;
}

/** The slug of copy `index` (1-based) of `source`: `074-external-traffic-policy-b0007`. */
export function copySlug(source: string, index: number): string {
  return `${source}${copySuffix(index, 'copySlug')}`;
}

/**
 * The id of a run of copy `index`: `20261204T185005Z-aec012-b0007`. The build refuses two
 * committed runs with one id (every value is bound to the page by its run's id), so each
 * copy's runs get their own, made from the original's so that a page shows where it came from.
 */
export function copyRunId(runId: string, index: number): string {
  return `${runId}${copySuffix(index, 'copyRunId')}`;
}

function frontmatterRange(mdx: string, file: string): { start: number; end: number } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(mdx);
  if (!match) throw new Error(`${file}: expected a frontmatter block between --- lines at the top`);
  return { start: 4, end: 4 + match[1]!.length };
}

/** The MDX with frontmatter `series.number` set to `number`. */
export function renumberSeries(mdx: string, file: string, number: number): string {
  const { start, end } = frontmatterRange(mdx, file);
  const frontmatter = mdx.slice(start, end);
  const series = /^series:[ \t]*\r?\n((?:[ \t]+.*(?:\r?\n|$))+)/m.exec(frontmatter);
  const numberLine = /^([ \t]+number:[ \t]*)\d+[ \t]*$/m;
  if (!series || !numberLine.test(series[1]!)) {
    throw new Error(`${file}: frontmatter field "series.number": expected a line "  number: <n>" under "series:"`);
  }
  const block = series[1]!.replace(numberLine, `$1${number}`);
  const updated = frontmatter.slice(0, series.index) + frontmatter.slice(series.index).replace(series[1]!, block);
  return mdx.slice(0, start) + updated + mdx.slice(end);
}

function replaceOnce(text: string, pattern: RegExp, replacement: string, file: string, field: string, expected: string): string {
  const matches = [...text.matchAll(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`))];
  if (matches.length !== 1) {
    throw new Error(`${file}: field "${field}": expected exactly one ${expected}, found ${matches.length}`);
  }
  return text.replace(pattern, replacement);
}

/** article.ts with its experiment's `slug: '<from>'` renamed (capture checks it against the folder name). */
export function renameExperimentSlug(source: string, file: string, from: string, to: string): string {
  const quoted = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return replaceOnce(source, new RegExp(`(\\bslug:\\s*)(['"])${quoted}\\2`), `$1$2${to}$2`, file, 'slug', `slug: '${from}'`);
}

/** run.yaml with its top-level `slug:` renamed, everything else byte for byte. */
export function renameRunSlug(yaml: string, file: string, from: string, to: string): string {
  const quoted = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return replaceOnce(yaml, new RegExp(`^slug:[ \\t]*(['"]?)${quoted}\\1[ \\t]*$`, 'm'), `slug: ${to}`, file, 'slug', `top-level "slug: ${from}" line`);
}

/** run.yaml's top-level `runId`; fails naming the file unless there is exactly one. */
export function readRunId(yaml: string, file: string): string {
  const matches = [...yaml.matchAll(/^runId:[ \t]*(['"]?)([0-9A-Za-z-]+)\1[ \t]*$/gm)];
  if (matches.length !== 1) throw new Error(`${file}: field "runId": expected exactly one top-level "runId: <id>" line, found ${matches.length}`);
  return matches[0]![2]!;
}

/** Every occurrence of a run id as a word of its own (not inside a longer name of letters and digits). */
function runIdPattern(runId: string): RegExp {
  return new RegExp(`(?<![0-9A-Za-z])${runId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z])`, 'g');
}

/** What a run folder of the article becomes in copy `index`, under the copy's slug. */
export interface RunFolderCopy {
  /** The folder, as messages show it (`.../snapshots.lab`). */
  folder: string;
  fromSlug: string;
  toSlug: string;
  index: number;
}

/**
 * A run's snapshot folder (file name -> text) as it is in a copy of its article: run.yaml under
 * the copy's slug, and the run's id replaced by the copy's wherever the run holds it: run.yaml's
 * `runId`, and whatever names were made from it, such as the lab's network namespaces in each
 * step's argv (`ip netns exec shice-lab-<run id>.node.<node>`, which the build checks against
 * the run id: src/evidence/run-origin.ts). Everything else byte for byte. Pure.
 */
export function copyRunFolder(files: ReadonlyMap<string, string>, copy: RunFolderCopy): { files: Map<string, string>; runId: string } {
  const runFile = `${copy.folder}/run.yaml`;
  const yaml = files.get('run.yaml');
  if (yaml === undefined) throw new Error(`${runFile}: file not found; expected the run's metadata in every snapshot folder`);
  const from = readRunId(yaml, runFile);
  const runId = copyRunId(from, copy.index);
  const pattern = runIdPattern(from);
  const out = new Map<string, string>();
  for (const [name, text] of files) {
    const renamed = text.replace(pattern, runId);
    out.set(name, name === 'run.yaml' ? renameRunSlug(renamed, runFile, copy.fromSlug, copy.toSlug) : renamed);
  }
  return { files: out, runId };
}

/**
 * The MDX with every <ArticleLink slug="..."> pointing at `slug`. A generated site holds copies
 * of one article only, and the build refuses a link to an article it does not have: a
 * cross-reference to another article of the series points at the copy itself instead. The link
 * renders the same text and costs the build the same; only its href differs. Pure.
 */
export function pointArticleLinksAt(mdx: string, file: string, slug: string): string {
  let out = '';
  let from = 0;
  for (const tag of scanMdx(mdx).tags) {
    if (tag.name !== 'ArticleLink' || tag.closing) continue;
    const target = tag.attributes.find((a) => a.name === 'slug');
    if (target?.kind !== 'string') {
      const { line, column } = scanMdx(mdx).position(tag.start);
      throw new Error(`${file}:${line}:${column}: <ArticleLink>: expected a slug="..." attribute to point at the copy`);
    }
    const open = mdx.slice(tag.start, tag.end);
    out += mdx.slice(from, tag.start) + open.replace(/\bslug=(["'])[^"']*\1/, `slug="${slug}"`);
    from = tag.end;
  }
  return out + mdx.slice(from);
}
