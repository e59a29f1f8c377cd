// The binding contract's markup of one measured value, as a string: the one
// place it is written. <Fact> uses it, and so do the evidence blocks that bind
// many values at once (a measured line, the run record), where a component per
// value was most of a page's build time. Pure; every value is escaped.
import type { Fact } from '../evidence/facts.ts';
import type { RenderedSegment } from '../evidence/template.ts';

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** The run a value of one variant comes from: it carries `data-variant` and that run's `data-run`. */
export interface VariantBinding {
  variant: string;
  run: string;
}

/** The attributes that name a variant's run (none for the article's own run). */
export function variantAttributes(binding: VariantBinding | undefined): string {
  return binding ? ` data-variant="${escapeHtml(binding.variant)}" data-run="${escapeHtml(binding.run)}"` : '';
}

/**
 * `<span data-fact data-step [data-raw] [data-variant data-run]>value</span>`; a value
 * with spaces may wrap, others never break.
 */
export function factHtml(fact: Fact, binding?: VariantBinding): string {
  const wraps = /\s/.test(fact.value) ? ' class="wraps"' : '';
  const raw = fact.raw === undefined ? '' : ` data-raw="${escapeHtml(fact.raw)}"`;
  return `<span${wraps} data-fact="${escapeHtml(fact.id)}" data-step="${escapeHtml(fact.step)}"${raw}${variantAttributes(binding)}>${escapeHtml(fact.value)}</span>`;
}

/** A rendered template (a measured line, a walkthrough text): text escaped, facts bound. */
export function segmentsHtml(segments: readonly RenderedSegment[], binding?: VariantBinding): string {
  return segments.map((s) => (s.kind === 'text' ? escapeHtml(s.text) : factHtml(s.fact, binding))).join('');
}
