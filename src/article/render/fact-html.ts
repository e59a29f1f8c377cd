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

/** Words, not a token: a value with spaces, or Chinese text (which breaks between characters, not at spaces). */
export function mayWrap(value: string): boolean {
  return /\s|\p{Script=Han}/u.test(value);
}

/**
 * `<span data-fact data-step [data-raw] [data-environment] [data-variant] [data-run]>value</span>`; a value made of
 * words (mayWrap) may wrap, others never break. A declared value also carries `data-declared="<file>"`
 * and, with labels, its mark and tooltip. `inner` may mark up the escaped value (its text stays the value).
 */
export function factHtml(fact: Fact, binding?: RunBinding, declared?: DeclaredLabels, inner: (escaped: string) => string = (e) => e): string {
  const classes = [mayWrap(fact.value) ? 'wraps' : '', fact.declared ? 'declared' : ''].filter(Boolean).join(' ');
  const cls = classes ? ` class="${classes}"` : '';
  const raw = fact.raw === undefined ? '' : ` data-raw="${escapeHtml(fact.raw)}"`;
  const decl =
    fact.declared === undefined
      ? ''
      : ` data-declared="${escapeHtml(fact.declared.file)}"${declared ? ` data-mark="${escapeHtml(declared.mark)}" title="${escapeHtml(declared.title + fact.declared.file)}"` : ''}`;
  const unmeasured = fact.unmeasured ? ' data-unmeasured' : '';
  return `<span${cls} data-fact="${escapeHtml(fact.id)}" data-step="${escapeHtml(fact.step)}"${raw}${decl}${unmeasured}${runAttributes(binding)}>${inner(escapeHtml(fact.value))}</span>`;
}

/** A rendered template (a measured line, a walkthrough text): text escaped, facts bound. */
export function segmentsHtml(segments: readonly RenderedSegment[], binding?: RunBinding): string {
  return segments.map((s) => (s.kind === 'text' ? escapeHtml(s.text) : factHtml(s.fact, binding))).join('');
}
