// The binding checks over an MDX file's source: every <Fact id> and <Measured
// steps> names something that exists, and no digit stands in prose outside a
// bound element. Pure: the build and the tests pass the text and its path.
import { scanMdx, type MdxScan, type MdxTag } from './mdx-scan.ts';
import { KIND_LABELS, findNumericTokens, type ValueKind } from './numbers.ts';

/** Components that render bound values themselves: digits inside them are theirs to prove. */
export const BOUND_COMPONENTS: ReadonlySet<string> = new Set(['Fact', 'Measured', 'Provenance']);

/** Interface chrome that is not a claim about the world (a step counter, the series number) carries this attribute. */
export const UI_ATTRIBUTE = 'data-ui';

export interface FactReference {
  kind: 'fact' | 'step';
  id: string;
  line: number;
  column: number;
}

export interface BindingProblem {
  file: string;
  line: number;
  column: number;
  /** One line: `<file>:<line>:<column>: ...`. */
  message: string;
}

export interface UnboundValue extends BindingProblem {
  /** The number as written ("172.18.0.3", "3.1"). */
  text: string;
  kind: ValueKind;
  /** The source around it, on its line. */
  context: string;
}

const WORD_CHAR = /[A-Za-z0-9_.:/-]/;

const attribute = (tag: MdxTag, name: string) => tag.attributes.find((a) => a.name === name);

/** Every `<Fact id="...">` and every step id of `<Measured steps="a b">`, with its position. `scan`: the source's scanMdx, when the caller has it. */
export function findFactReferences(source: string, scan: MdxScan = scanMdx(source)): FactReference[] {
  const refs: FactReference[] = [];
  for (const tag of scan.tags) {
    if (tag.closing) continue;
    const { line, column } = scan.position(tag.start);
    // variant="x" binds run x of an experiment with variants (`x:<id>`), environment="e" the run in
    // environment e (`e:<id>`), both `e/x:<id>`, and version="v1.34" any of them on that version
    // (`v1.34/e/x:<id>`): as bindableIds names them (qualifyRun, src/evidence/runs/variants.ts).
    const named = (name: string) => {
      const a = attribute(tag, name);
      return a?.kind === 'string' && a.value ? a.value : undefined;
    };
    const run = [named('version'), named('environment'), named('variant')].filter(Boolean).join('/');
    const qualified = (id: string) => (run ? `${run}:${id}` : id);
    if (tag.name === 'Fact') {
      const id = attribute(tag, 'id');
      if (id?.kind === 'string' && id.value) refs.push({ kind: 'fact', id: qualified(id.value), line, column });
    } else if (tag.name === 'Measured') {
      const steps = attribute(tag, 'steps');
      if (steps?.kind === 'string') {
        for (const step of steps.value!.split(/\s+/).filter(Boolean)) refs.push({ kind: 'step', id: qualified(step), line, column });
      }
    }
  }
  return refs;
}

function closest(id: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(id, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(id.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Unknown fact ids, unknown step ids, and <Fact>/<Measured> tags without a literal id/steps. */
export function checkReferences(
  file: string,
  source: string,
  factIds: Iterable<string>,
  stepIds: Iterable<string>,
  scan: MdxScan = scanMdx(source),
): BindingProblem[] {
  const facts = new Set(factIds);
  const steps = new Set(stepIds);
  const problems: BindingProblem[] = [];
  const report = (line: number, column: number, text: string) => problems.push({ file, line, column, message: `${file}:${line}:${column}: ${text}` });

  for (const ref of findFactReferences(source, scan)) {
    const known = ref.kind === 'fact' ? facts : steps;
    if (known.has(ref.id)) continue;
    const suggestion = closest(ref.id, known);
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
    if (ref.kind === 'fact') report(ref.line, ref.column, `<Fact id="${ref.id}">: unknown fact id "${ref.id}"${hint}`);
    else report(ref.line, ref.column, `<Measured steps="...">: unknown step id "${ref.id}"${hint}`);
  }
  // A <pre> put together from <Fact>s is part of a step's output, by hand: nothing says which lines were left out.
  let pre: MdxTag | null = null;
  let reported = false;
  for (const tag of scan.tags) {
    if (tag.name === 'pre' && !tag.selfClosing) [pre, reported] = tag.closing ? [null, false] : [tag, false];
    else if (pre && !reported && tag.name === 'Fact' && !tag.closing) {
      const { line, column } = scan.position(pre.start);
      report(
        line,
        column,
        '<pre> holding <Fact>s shows part of a step\'s output by hand: use <Excerpt step="<step id>" blocks={[...]} or matching={[...]}>, which shows the lines as the run wrote them and marks every line left out',
      );
      reported = true;
    }
  }
  for (const tag of scan.tags) {
    if (tag.closing) continue;
    const { line, column } = scan.position(tag.start);
    if (tag.name === 'Fact') {
      const id = attribute(tag, 'id');
      if (id?.kind !== 'string' || !id.value) report(line, column, '<Fact> needs a literal id="<fact id>" attribute');
    } else if (tag.name === 'Measured') {
      const stepsAttr = attribute(tag, 'steps');
      if (stepsAttr?.kind !== 'string' || !stepsAttr.value?.trim()) report(line, column, '<Measured> needs a literal steps="<step id> ..." attribute');
    }
  }
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}

/** Offsets covered by bound elements: allow-listed components and anything carrying data-ui, children included. */
function boundRegions(tags: MdxTag[], sourceLength: number, components: ReadonlySet<string>): Array<[number, number]> {
  const regions: Array<[number, number]> = [];
  const stack: Array<{ tag: MdxTag; bound: boolean }> = [];
  for (const tag of tags) {
    const bound = components.has(tag.name) || tag.attributes.some((a) => a.name === UI_ATTRIBUTE);
    if (tag.closing) {
      const open = stack.map((e) => e.tag.name).lastIndexOf(tag.name);
      if (open < 0) continue;
      const entry = stack[open]!;
      stack.length = open;
      if (entry.bound) regions.push([entry.tag.start, tag.end]);
    } else if (!tag.selfClosing) {
      stack.push({ tag, bound });
    }
  }
  // An element never closed binds to the end: MDX would refuse the file anyway.
  for (const entry of stack) if (entry.bound) regions.push([entry.tag.start, sourceLength]);
  return regions;
}

/**
 * Attributes whose value reaches the reader: shown as a tooltip, in place of
 * an image, or read out by a screen reader.
 */
export const READER_ATTRIBUTES: ReadonlySet<string> = new Set([
  'title',
  'alt',
  'aria-label',
  'aria-description',
  'aria-roledescription',
  'aria-valuetext',
  'aria-placeholder',
  'placeholder',
  'label',
  'summary',
  'abbr',
  'content',
  'value',
]);

/** The source ranges of a tag's reader-visible attribute values (string or expression). */
function readerAttributes(source: string, tag: MdxTag): Array<{ start: number; end: number; where: string }> {
  const found: Array<{ start: number; end: number; where: string }> = [];
  const text = source.slice(tag.start, tag.end);
  for (const attr of tag.attributes) {
    if (!READER_ATTRIBUTES.has(attr.name.toLowerCase()) || attr.value === undefined || attr.kind === 'spread') continue;
    const at = text.indexOf(attr.value, text.indexOf(attr.name));
    if (at < 0) continue;
    found.push({ start: tag.start + at, end: tag.start + at + attr.value.length, where: ` in attribute ${attr.name} of <${tag.name}>` });
  }
  return found;
}

export interface UnboundOptions {
  /** Extra component names whose content counts as bound (added to BOUND_COMPONENTS). */
  boundComponents?: Iterable<string>;
}

/** Every number in prose outside bound elements, classified, with the text around it. */
export function findUnboundValues(file: string, source: string, options: UnboundOptions = {}, scan: MdxScan = scanMdx(source)): UnboundValue[] {
  const components = new Set([...BOUND_COMPONENTS, ...(options.boundComponents ?? [])]);
  const regions = boundRegions(scan.tags, source.length, components);
  const inBound = (offset: number) => regions.some(([start, end]) => offset >= start && offset < end);
  const lines = source.split('\n');
  const found: UnboundValue[] = [];
  // What a reader sees: the prose, and the attributes a browser shows (a tooltip, alt text, an accessible name).
  const spans = [
    ...scan.prose.map((span) => ({ ...span, where: '' })),
    // A bound component's or data-ui element's attributes are its own to prove, like its content.
    ...scan.tags.flatMap((tag) =>
      tag.closing || components.has(tag.name) || tag.attributes.some((a) => a.name === UI_ATTRIBUTE) ? [] : readerAttributes(source, tag),
    ),
  ].sort((a, b) => a.start - b.start);
  for (const span of spans) {
    if (regions.some(([start, end]) => span.start >= start && span.end <= end)) continue;
    const text = source.slice(span.start, span.end);
    for (const token of findNumericTokens(text)) {
      const offset = span.start + token.index;
      if (inBound(offset)) continue;
      const { line, column } = scan.position(offset);
      const lineText = lines[line - 1]!;
      // About 30 characters each side, widened so no word is cut in half.
      let from = Math.max(0, column - 1 - 30);
      let to = Math.min(lineText.length, column - 1 + token.text.length + 30);
      while (from > 0 && WORD_CHAR.test(lineText[from - 1]!) && WORD_CHAR.test(lineText[from]!)) from--;
      while (to < lineText.length && WORD_CHAR.test(lineText[to - 1]!) && WORD_CHAR.test(lineText[to]!)) to++;
      const context = `${from > 0 ? '…' : ''}${lineText.slice(from, to).trim()}${to < lineText.length ? '…' : ''}`;
      found.push({
        file,
        line,
        column,
        text: token.text,
        kind: token.kind,
        context,
        message: `${file}:${line}:${column}: unbound ${KIND_LABELS[token.kind]} "${token.text}"${span.where} in "${context}" (bind it with <Fact id="..."/>, or mark interface chrome with ${UI_ATTRIBUTE})`,
      });
    }
  }
  return found;
}

/**
 * Components written inside code: `<Fact id="x" />` between backticks, or in a fenced block, is shown as
 * that source text, not as the value, and no check would see it (it holds no digit). One problem each.
 */
export function componentsInCode(file: string, source: string, components: ReadonlySet<string>): BindingProblem[] {
  const problems: BindingProblem[] = [];
  const found = (text: string, line: number, offset: number, where: string) => {
    for (const m of text.matchAll(/<([A-Z][A-Za-z]*)(?=[\s/>])/g)) {
      if (!components.has(m[1]!)) continue;
      const column = offset + m.index! + 1;
      problems.push({
        file,
        line,
        column,
        message: `${file}:${line}:${column}: <${m[1]}> inside ${where} is shown as its source text, not rendered; take it out of the ${where === 'a code block' ? 'code block' : 'backticks'}`,
      });
    }
  };
  const lines = source.split('\n');
  let i = 0;
  if (lines[0]?.trim() === '---') {
    const close = lines.findIndex((l, n) => n > 0 && l.trim() === '---');
    i = close < 0 ? lines.length : close + 1;
  }
  let fence: string | undefined;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      else found(line, i + 1, 0, 'a code block');
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    for (const span of line.matchAll(/(`+)(.+?)\1/g)) found(span[2]!, i + 1, span.index! + span[1]!.length, 'inline code');
  }
  return problems;
}
