// The binding contract's markup of one measured value: the one place it is
// written. As a string (factHtml) for <Fact> and for the evidence blocks that
// bind many values at once (a measured line, the run record), where a component
// per value was most of a page's build time; as hast nodes (factElement) for the
// MDX's <Fact>, which the MDX pipeline writes and escapes like the prose around
// it (mdx-facts.ts). Both take their attributes and their text from here. Pure;
// every value is escaped.
import type { Fact } from '../../evidence/facts.ts';
import type { RenderedSegment } from '../../evidence/template.ts';

const NEEDS_ESCAPE = /[&<>"]/;

export function escapeHtml(text: string): string {
  // Most values (addresses, ports, names) have nothing to escape: one test instead of four passes.
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/**
 * The run a value comes from when it is not the article's own: another
 * environment's (`data-environment`), another variant's (`data-variant`), or
 * both, and always that run's `data-run`.
 */
export interface RunBinding {
  version?: string;
  environment?: string;
  variant?: string;
  run: string;
}

/** An attribute of a value's element: its name and its text (unescaped), or `true` for one written bare. */
export type FactAttribute = readonly [name: string, value: string | true];

/** The attributes that name a run other than the article's own, in the order they are written (none for the article's own run). */
function runAttributeList(binding: RunBinding | undefined): FactAttribute[] {
  if (!binding) return [];
  const list: FactAttribute[] = [];
  if (binding.version !== undefined) list.push(['data-version', binding.version]);
  if (binding.environment !== undefined) list.push(['data-environment', binding.environment]);
  if (binding.variant !== undefined) list.push(['data-variant', binding.variant]);
  list.push(['data-run', binding.run]);
  return list;
}

/** Attributes as HTML, each value escaped: ` name="value"`, or ` name` for one written bare. */
function attributesHtml(attributes: readonly FactAttribute[]): string {
  let html = '';
  for (const [name, value] of attributes) html += value === true ? ` ${name}` : ` ${name}="${escapeHtml(value)}"`;
  return html;
}

/** The attributes that name a run other than the article's own (none for the article's own run). */
export function runAttributes(binding: RunBinding | undefined): string {
  return attributesHtml(runAttributeList(binding));
}

/** How a declared value is marked in the page's language: a short mark and a tooltip that names the file. */
export interface DeclaredLabels {
  mark: string;
  title: string;
}

/**
 * How a value is set on the page:
 * - `token`: one name, address, port or number, never broken;
 * - `words`: prose (Chinese, or the run's own sentences about itself), breaking where its language does;
 * - `code`: a rule, command or output (several tokens, the run's text), set in monospace and broken
 *   only between its tokens: a proportional font breaking "-j KUBE-MARK-MASQ" after its hyphen misquotes it.
 */
export type ValueForm = 'token' | 'words' | 'code';

/** The run's own sentences (run.yaml's environment, a stand-in's words and sources, the host and its system), not output of a step. */
const RUN_WORDS = /^(?:run\.(?:environment\.|standIn\.\d+\.(?:zh|en|from|nodes)$|host$)|version\.os$)/;

export function valueForm(fact: Pick<Fact, 'id' | 'value'>): ValueForm {
  if (/\p{Script=Han}/u.test(fact.value)) return 'words';
  if (!/\s/.test(fact.value)) return 'token';
  return RUN_WORDS.test(fact.id) ? 'words' : 'code';
}

/** A stretch of a value's text: plain, or a token kept whole (`<span class="tok">`). */
export interface ValuePiece {
  text: string;
  whole: boolean;
}

/**
 * A code value's tokens kept whole, and the whitespace between them as it was, where a line may break;
 * a flag keeps its argument beside it ("-j DROP", "--max-time 3"), so no line ends on a bare flag. A token of
 * letters, digits and plain punctuation has nowhere else to break and stays plain text. Text unchanged. The
 * pieces are the same for a text and for its escaped form (escaping adds no space and no plain character
 * where there was none), so the string and the hast markup split a value alike.
 */
export function codeTokens(text: string): ValuePiece[] {
  const parts = text.split(/(\s+)/);
  const pieces: ValuePiece[] = [];
  const plain = (t: string) => {
    if (t === '') return;
    const last = pieces.at(-1);
    if (last && !last.whole) last.text += t;
    else pieces.push({ text: t, whole: false });
  };
  for (let i = 0; i < parts.length; i += 2) {
    const token = parts[i]!;
    const space = parts[i + 1] ?? '';
    const next = parts[i + 2];
    if (token === '') {
      plain(space);
      continue;
    }
    if (/^-./.test(token) && next !== undefined && next !== '' && !next.startsWith('-')) {
      pieces.push({ text: `${token}${space}${next}`, whole: true });
      plain(parts[i + 3] ?? '');
      i += 2;
      continue;
    }
    if (BREAKS_INSIDE.test(token)) {
      pieces.push({ text: token, whole: true });
      plain(space);
    } else plain(`${token}${space}`);
  }
  return pieces;
}

/** An escaped code value with its tokens kept whole (codeTokens), as HTML. */
export function codeTokensHtml(escaped: string): string {
  let html = '';
  for (const piece of codeTokens(escaped)) html += piece.whole ? `<span class="tok">${piece.text}</span>` : piece.text;
  return html;
}

/** A character a browser may break a line after or before inside a token (a hyphen, a slash, a bracket, an escaped quote's &). */
const BREAKS_INSIDE = /[^\p{L}\p{N}._:=,;]/u;

/**
 * The attributes of a value's element, in the order they are written: words (class `wraps`) may wrap, code
 * (`wraps code`) wraps between its tokens, a token never breaks (valueForm); then `data-fact`, `data-step`,
 * `data-raw`; a declared value's `data-declared="<file>"` and, with labels, its mark and tooltip;
 * `data-unmeasured`; and the run's (runAttributes).
 */
function attributesOf(fact: Fact, form: ValueForm, binding: RunBinding | undefined, declared: DeclaredLabels | undefined): FactAttribute[] {
  const classes = [form === 'words' ? 'wraps' : form === 'code' ? 'wraps code' : '', fact.declared ? 'declared' : ''].filter(Boolean).join(' ');
  const list: FactAttribute[] = classes ? [['class', classes]] : [];
  list.push(['data-fact', fact.id], ['data-step', fact.step]);
  if (fact.raw !== undefined) list.push(['data-raw', fact.raw]);
  if (fact.declared !== undefined) {
    list.push(['data-declared', fact.declared.file]);
    if (declared) list.push(['data-mark', declared.mark], ['title', declared.title + fact.declared.file]);
  }
  if (fact.unmeasured) list.push(['data-unmeasured', true]);
  list.push(...runAttributeList(binding));
  return list;
}

/**
 * `<span data-fact data-step [data-raw] [data-environment] [data-variant] [data-run]>value</span>` with the
 * attributes of attributesOf. `inner` may mark up the escaped value (its text stays the value); a code value's
 * tokens are marked up unless `inner` says otherwise.
 */
export function factHtml(fact: Fact, binding?: RunBinding, declared?: DeclaredLabels, inner?: (escaped: string) => string): string {
  const form = valueForm(fact);
  const markup = inner ?? (form === 'code' ? codeTokensHtml : (e: string) => e);
  return `<span${attributesHtml(attributesOf(fact, form, binding, declared))}>${markup(escapeHtml(fact.value))}</span>`;
}

/** A hast text node (https://github.com/syntax-tree/hast). */
export interface HastText {
  type: 'text';
  value: string;
}

/** A hast element as factElement builds one: properties by their hast names, values text. */
export interface HastElement {
  type: 'element';
  tagName: string;
  properties: Record<string, string | string[]>;
  children: Array<HastElement | HastText>;
}

/** An attribute's name as hast names the property: `class` is `className`, `data-fact` is `dataFact`. */
function hastProperty(attribute: string): string {
  return attribute === 'class' ? 'className' : attribute.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * factHtml's element (without `inner`) as hast nodes, for a pipeline that writes and escapes the markup
 * itself: the same attributes in the same order (a bare one has the value ''), the same text, the same tokens.
 */
export function factElement(fact: Fact, binding?: RunBinding, declared?: DeclaredLabels): HastElement {
  const form = valueForm(fact);
  const properties: HastElement['properties'] = {};
  for (const [name, value] of attributesOf(fact, form, binding, declared)) {
    properties[hastProperty(name)] = value === true ? '' : name === 'class' ? value.split(' ') : value;
  }
  const text = (value: string): HastText => ({ type: 'text', value });
  const pieces = form === 'code' ? codeTokens(fact.value) : [{ text: fact.value, whole: false }];
  const children = pieces.map((p): HastElement | HastText =>
    p.whole ? { type: 'element', tagName: 'span', properties: { className: ['tok'] }, children: [text(p.text)] } : text(p.text),
  );
  return { type: 'element', tagName: 'span', properties, children };
}

/** A rendered template (a measured line, a walkthrough text): text escaped, facts bound. */
export function segmentsHtml(segments: readonly RenderedSegment[], binding?: RunBinding): string {
  return segments.map((s) => (s.kind === 'text' ? escapeHtml(s.text) : factHtml(s.fact, binding))).join('');
}
