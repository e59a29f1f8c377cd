// Measured lines: per step, one sentence per language with {fact.id}
// placeholders. The wording lives in the article (article.ts, lines); every measured
// value comes from a fact, so a template itself contains no measured digit.
import type { Fact } from './facts.ts';
import { EvidenceError } from './errors.ts';
import { FACT_ID } from './facts.ts';
import { KIND_LABELS, findNumericTokens } from './numbers.ts';

export const LANGS = ['zh', 'en'] as const;
export type Lang = (typeof LANGS)[number];

/** Step id -> its line in each language. */
export type LineTemplates = Record<string, Record<Lang, string>>;

export type TemplateSegment = { kind: 'text'; text: string } | { kind: 'fact'; id: string };

export type RenderedSegment = { kind: 'text'; text: string } | { kind: 'fact'; fact: Fact };

/** Splits a template into text and `{fact.id}` placeholders; `{{` and `}}` stand for literal braces. */
export function parseTemplate(text: string): TemplateSegment[] {
  const segments: TemplateSegment[] = [];
  let buffer = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ((c === '{' || c === '}') && text[i + 1] === c) {
      buffer += c;
      i++;
    } else if (c === '{') {
      const close = text.indexOf('}', i);
      const id = close < 0 ? '' : text.slice(i + 1, close);
      if (!FACT_ID.test(id)) {
        throw new Error(
          `at column ${i + 1}: expected {<fact id>} (or {{ for a literal brace), got ${JSON.stringify(text.slice(i, close < 0 ? i + 20 : close + 1))}`,
        );
      }
      if (buffer) segments.push({ kind: 'text', text: buffer });
      buffer = '';
      segments.push({ kind: 'fact', id });
      i = close;
    } else if (c === '}') {
      throw new Error(`at column ${i + 1}: a lone "}" (write }} for a literal brace)`);
    } else {
      buffer += c;
    }
  }
  if (buffer) segments.push({ kind: 'text', text: buffer });
  return segments;
}

export interface TemplateContext {
  /** Where the templates live, for messages (e.g. content/articles/<slug>/article.ts). */
  file: string;
  factIds: Iterable<string>;
  stepIds: Iterable<string>;
}

/**
 * Every problem of an article's line templates: a step without a line (or a line
 * for no step), a missing language, a syntax error, an unknown fact id, a digit
 * typed into the text.
 */
export function checkLineTemplates(lines: LineTemplates, context: TemplateContext): string[] {
  const facts = new Set(context.factIds);
  const steps = [...context.stepIds];
  const problems: string[] = [];
  for (const step of steps) if (!(step in lines)) problems.push(`${context.file}: step "${step}": no measured line (expected zh and en templates)`);
  for (const [step, byLang] of Object.entries(lines)) {
    if (!steps.includes(step)) problems.push(`${context.file}: step "${step}": not a step of the experiment (steps: ${steps.join(', ')})`);
    for (const lang of LANGS) {
      const where = `${context.file}: step "${step}" (${lang})`;
      const text = byLang[lang];
      if (typeof text !== 'string' || text.trim() === '') {
        problems.push(`${where}: missing template`);
        continue;
      }
      let segments: TemplateSegment[];
      try {
        segments = parseTemplate(text);
      } catch (error) {
        problems.push(`${where}: ${(error as Error).message}`);
        continue;
      }
      for (const segment of segments) {
        if (segment.kind === 'fact' && !facts.has(segment.id)) problems.push(`${where}: unknown fact id "${segment.id}"`);
        if (segment.kind === 'text') {
          for (const token of findNumericTokens(segment.text)) {
            problems.push(`${where}: the text has a ${KIND_LABELS[token.kind]} "${token.text}" typed in; use a {fact.id} placeholder`);
          }
        }
      }
    }
  }
  return problems;
}

/** Throws one EvidenceError listing every problem checkLineTemplates finds. */
export function assertLineTemplates(lines: LineTemplates, context: TemplateContext): void {
  const problems = checkLineTemplates(lines, context);
  if (problems.length) throw new EvidenceError(problems);
}

/** One step's line in one language, placeholders replaced by the facts (with their provenance). */
export function renderLine(lines: LineTemplates, step: string, lang: Lang, facts: ReadonlyMap<string, Fact>, file = 'article.ts'): RenderedSegment[] {
  const text = lines[step]?.[lang];
  if (text === undefined) throw new EvidenceError(`${file}: step "${step}" (${lang}): no measured line`);
  let segments: TemplateSegment[];
  try {
    segments = parseTemplate(text);
  } catch (error) {
    throw new EvidenceError(`${file}: step "${step}" (${lang}): ${(error as Error).message}`);
  }
  return segments.map((segment) => {
    if (segment.kind === 'text') return segment;
    const fact = facts.get(segment.id);
    if (!fact) throw new EvidenceError(`${file}: step "${step}" (${lang}): unknown fact id "${segment.id}"`);
    return { kind: 'fact', fact };
  });
}
