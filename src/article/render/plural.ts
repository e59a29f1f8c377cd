// Plural words in measured lines: a template writes "{x.count} [connection|connections]"
// and the form follows the bound value through Intl.PluralRules in the line's
// language (Chinese has one form, so its templates need no brackets). Pure.
import type { RenderedSegment } from '../../evidence/template.ts';
import type { Lang } from '../../site.config.ts';

const FORMS = /^(\s*)\[([^|\]]+)\|([^\]]+)\]/;

// One PluralRules per language for the whole build (building one is costly).
const rulesByLang = new Map<Lang, Intl.PluralRules>();

export function choosePlurals(segments: readonly RenderedSegment[], lang: Lang): RenderedSegment[] {
  if (!segments.some((s) => s.kind === 'text' && s.text.includes('['))) return [...segments];
  let rules = rulesByLang.get(lang);
  if (!rules) {
    rules = new Intl.PluralRules(lang);
    rulesByLang.set(lang, rules);
  }
  return segments.map((segment, i) => {
    if (!rules) return segment;
    const before = segments[i - 1];
    if (segment.kind !== 'text' || before?.kind !== 'fact') return segment;
    const match = FORMS.exec(segment.text);
    if (!match) return segment;
    // A draft's placeholder has no number yet: the word takes its plural form.
    const count = before.fact.unmeasured ? Number.NaN : Number(before.fact.value);
    if (!Number.isFinite(count) && !before.fact.unmeasured)
      throw new Error(`plural "[${match[2]}|${match[3]}]" follows fact "${before.fact.id}", whose value "${before.fact.value}" is not a number`);
    const word = Number.isFinite(count) && rules.select(count) === 'one' ? match[2] : match[3];
    return { kind: 'text', text: `${match[1]}${word}${segment.text.slice(match[0].length)}` };
  });
}
