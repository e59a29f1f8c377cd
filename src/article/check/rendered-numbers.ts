// One rule for numbers, on what the reader gets: every digit or numeral in an
// article's rendered body is bound, declared, marked <NotMeasured>, or in a
// place that makes no claim about the run. It runs on the HTML the build writes,
// so no way of writing the MDX (an export, an expression, a character
// reference, another script's numerals) gets a typed-in number past it; the
// source check (check-article.ts) finds the ordinary cases earlier, with
// their line and column. Pure.
import { EvidenceError } from '../../evidence/errors.ts';
import { READER_ATTRIBUTES, UI_ATTRIBUTE } from '../../evidence/mdx-check.ts';
import { KIND_LABELS, findNumericTokens } from '../../evidence/numbers.ts';
import { htmlTextRuns, type HtmlElement } from './html-text.ts';

/** Where a number is accounted for, and why: text inside any such element is not checked. */
const ACCOUNTED: ReadonlyArray<{ why: string; holds: (e: HtmlElement) => boolean }> = [
  // A bound value (<Fact>, a measured line's values, a chart's); a declared value is one too (data-declared beside it).
  { why: 'bound', holds: (e) => e.attributes.has('data-fact') },
  { why: '<NotMeasured>', holds: (e) => e.attributes.has('data-not-measured') },
  { why: 'interface chrome', holds: (e) => e.attributes.has(UI_ATTRIBUTE) },
  // A code block: a fenced block of the MDX (the source check skips those too), a step's raw output.
  { why: 'code block', holds: (e) => e.name === 'pre' },
  // A claim's statement, shown beside the status the build evaluated against the run.
  { why: 'claim statement', holds: (e) => e.attributes.has('data-claim') },
];

const accountedBy = (e: HtmlElement) => ACCOUNTED.some((a) => a.holds(e));

/** Under a run's elements: the innermost that binds a fact, and whether one of them accounts for its numbers. */
interface Judged {
  fact: HtmlElement | undefined;
  accounted: boolean;
}
const OUTSIDE: Judged = { fact: undefined, accounted: false };

/** The text around a token, about 30 characters each side, on one line. */
function around(text: string, index: number, length: number): string {
  const from = Math.max(0, index - 30);
  const to = Math.min(text.length, index + length + 30);
  return `${from > 0 ? '…' : ''}${text.slice(from, to).replace(/\s+/g, ' ').trim()}${to < text.length ? '…' : ''}`;
}

/** The value the run has for a fact, as `data-fact`, `data-environment` and `data-variant` name it; undefined for no such fact. */
export type BoundValue = (id: string, run: { environment?: string; variant?: string }) => string | undefined;

/**
 * Every number the rendered `html` shows outside the places above, and every
 * `data-fact` element whose text is not that fact's value (a `<span data-fact>`
 * typed into the MDX is no binding), one line each naming `file`.
 */
export function unboundRenderedNumbers(file: string, html: string, boundValue: BoundValue): string[] {
  const problems: string[] = [];
  const factText = new Map<HtmlElement, string>();
  // What holds from the outermost element down to each element, judged once per element: an element
  // always sits under the same ones, and a page has thousands of runs under a few hundred elements.
  const upTo = new WeakMap<HtmlElement, Judged>();
  const judge = (ancestors: readonly HtmlElement[]): Judged => {
    let known = ancestors.length - 1;
    while (known >= 0 && !upTo.has(ancestors[known]!)) known--;
    let state: Judged = known >= 0 ? upTo.get(ancestors[known]!)! : OUTSIDE;
    for (const e of ancestors.slice(known + 1)) {
      state = { fact: e.attributes.has('data-fact') ? e : state.fact, accounted: state.accounted || accountedBy(e) };
      upTo.set(e, state);
    }
    return state;
  };
  for (const run of htmlTextRuns(html, READER_ATTRIBUTES)) {
    const seen = judge(run.ancestors);
    const fact = run.attribute === undefined ? seen.fact : undefined;
    if (fact) factText.set(fact, (factText.get(fact) ?? '') + run.text);
    if (seen.accounted) continue;
    for (const token of findNumericTokens(run.text)) {
      const where = run.attribute === undefined ? '' : ` in attribute ${run.attribute} of <${run.ancestors.at(-1)!.name}>`;
      problems.push(
        `${file}: the rendered page shows an unbound ${KIND_LABELS[token.kind]} "${token.text}"${where} in "${around(run.text, token.index, token.text.length)}" (bind it with <Fact id="..."/>, mark a number that is no measurement with <NotMeasured>, or interface chrome with ${UI_ATTRIBUTE})`,
      );
    }
  }
  for (const [element, text] of factText) {
    const id = element.attributes.get('data-fact')!;
    const version = element.attributes.get('data-version');
    const environment = element.attributes.get('data-environment');
    const variant = element.attributes.get('data-variant');
    const value = boundValue(id, {
      ...(version === undefined ? {} : { version }),
      ...(environment === undefined ? {} : { environment }),
      ...(variant === undefined ? {} : { variant }),
    });
    if (value === text) continue;
    const fact = `data-fact="${id}"${version === undefined ? '' : ` data-version="${version}"`}${environment === undefined ? '' : ` data-environment="${environment}"`}${variant === undefined ? '' : ` data-variant="${variant}"`}`;
    problems.push(
      value === undefined
        ? `${file}: the rendered page shows "${text}" in an element with ${fact}, but the run has no such fact (bind values with <Fact id="..."/>, never by writing data-fact)`
        : `${file}: the rendered page shows "${text}" in an element with ${fact}, but that fact's value is "${value}" (bind values with <Fact id="..."/>, never by writing data-fact)`,
    );
  }
  return problems;
}

/** Stops the page's build when its body shows an unbound number: every one in one error. */
export function assertRenderedNumbersBound(file: string, html: string, boundValue: BoundValue): void {
  const problems = unboundRenderedNumbers(file, html, boundValue);
  if (problems.length) throw new EvidenceError(problems);
}
