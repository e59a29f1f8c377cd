// The binding contract's markup of one measured value, as a string: the one
// place it is written. <Fact> uses it, and so do the evidence blocks that bind
// many values at once (a measured line, the run record), where a component per
// value was most of a page's build time. Pure; every value is escaped.
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
  environment?: string;
  variant?: string;
  run: string;
}

/** The attributes that name a run other than the article's own (none for the article's own run). */
export function runAttributes(binding: RunBinding | undefined): string {
  if (!binding) return '';
  const environment = binding.environment === undefined ? '' : ` data-environment="${escapeHtml(binding.environment)}"`;
  const variant = binding.variant === undefined ? '' : ` data-variant="${escapeHtml(binding.variant)}"`;
  return `${environment}${variant} data-run="${escapeHtml(binding.run)}"`;
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

/**
 * A code value's tokens kept whole (.tok), and the whitespace between them as it was, where a line may break;
 * a flag keeps its argument beside it ("-j DROP", "--max-time 3"), so no line ends on a bare flag. A token of
 * letters, digits and plain punctuation has nowhere else to break and stays plain text. Text unchanged.
 */
export function codeTokensHtml(escaped: string): string {
  const parts = escaped.split(/(\s+)/);
  let html = '';
  for (let i = 0; i < parts.length; i += 2) {
    const token = parts[i]!;
    const space = parts[i + 1] ?? '';
    const next = parts[i + 2];
    if (token === '') {
      html += space;
      continue;
    }
    if (/^-./.test(token) && next !== undefined && next !== '' && !next.startsWith('-')) {
      html += `<span class="tok">${token}${space}${next}</span>${parts[i + 3] ?? ''}`;
      i += 2;
      continue;
    }
    html += `${BREAKS_INSIDE.test(token) ? `<span class="tok">${token}</span>` : token}${space}`;
  }
  return html;
}

/** A character a browser may break a line after or before inside a token (a hyphen, a slash, a bracket, an escaped quote's &). */
const BREAKS_INSIDE = /[^\p{L}\p{N}._:=,;]/u;

/**
 * `<span data-fact data-step [data-raw] [data-environment] [data-variant] [data-run]>value</span>`; words (class
 * `wraps`) may wrap, code (`wraps code`) wraps between its tokens, a token never breaks (valueForm). A declared value
 * also carries `data-declared="<file>"` and, with labels, its mark and tooltip. `inner` may mark up the escaped value
 * (its text stays the value); a code value's tokens are marked up unless `inner` says otherwise.
 */
export function factHtml(fact: Fact, binding?: RunBinding, declared?: DeclaredLabels, inner?: (escaped: string) => string): string {
  const form = valueForm(fact);
  const classes = [form === 'words' ? 'wraps' : form === 'code' ? 'wraps code' : '', fact.declared ? 'declared' : ''].filter(Boolean).join(' ');
  const cls = classes ? ` class="${classes}"` : '';
  const raw = fact.raw === undefined ? '' : ` data-raw="${escapeHtml(fact.raw)}"`;
  const decl =
    fact.declared === undefined
      ? ''
      : ` data-declared="${escapeHtml(fact.declared.file)}"${declared ? ` data-mark="${escapeHtml(declared.mark)}" title="${escapeHtml(declared.title + fact.declared.file)}"` : ''}`;
  const unmeasured = fact.unmeasured ? ' data-unmeasured' : '';
  const markup = inner ?? (form === 'code' ? codeTokensHtml : (e: string) => e);
  return `<span${cls} data-fact="${escapeHtml(fact.id)}" data-step="${escapeHtml(fact.step)}"${raw}${decl}${unmeasured}${runAttributes(binding)}>${markup(escapeHtml(fact.value))}</span>`;
}

/** A rendered template (a measured line, a walkthrough text): text escaped, facts bound. */
export function segmentsHtml(segments: readonly RenderedSegment[], binding?: RunBinding): string {
  return segments.map((s) => (s.kind === 'text' ? escapeHtml(s.text) : factHtml(s.fact, binding))).join('');
}
