// What changes when an article is copied into a generated site: its slug and
// its series number (the site refuses two articles with the same one). Pure;
// each function fails naming the file and the field it could not find.

/** The slug of copy `index` (1-based) of `source`: `074-external-traffic-policy-b0007`. */
export function copySlug(source: string, index: number): string {
  if (!Number.isInteger(index) || index < 1) throw new Error(`copySlug: expected an index >= 1, got ${index}`);
  return `${source}-b${String(index).padStart(4, '0')}`;
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
