// The binding contract's markup of one measured value, as a string: the one
// place it is written. <Fact> uses it, and so do the evidence blocks that bind
// many values at once (a measured line, the run record), where a component per
// value was most of a page's build time. Pure; every value is escaped.
import type { Fact } from '../evidence/facts.ts';
import type { RenderedSegment } from '../evidence/template.ts';

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** `<span data-fact data-step [data-raw]>value</span>`; a value with spaces may wrap, others never break. */
export function factHtml(fact: Fact): string {
  const wraps = /\s/.test(fact.value) ? ' class="wraps"' : '';
  const raw = fact.raw === undefined ? '' : ` data-raw="${escapeHtml(fact.raw)}"`;
  return `<span${wraps} data-fact="${escapeHtml(fact.id)}" data-step="${escapeHtml(fact.step)}"${raw}>${escapeHtml(fact.value)}</span>`;
}

/** A rendered template (a measured line, a walkthrough text): text escaped, facts bound. */
export function segmentsHtml(segments: readonly RenderedSegment[]): string {
  return segments.map((s) => (s.kind === 'text' ? escapeHtml(s.text) : factHtml(s.fact))).join('');
}
