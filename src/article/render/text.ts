// Prose held outside MDX (walkthrough texts) with {fact.id} placeholders, turned
// into text and bound facts; an unknown id fails with where it was written.
import type { Fact } from '../../evidence/facts.ts';
import { parseTemplate, type RenderedSegment } from '../../evidence/template.ts';

export function renderText(text: string, facts: ReadonlyMap<string, Fact>, where: string): RenderedSegment[] {
  let segments;
  try {
    segments = parseTemplate(text);
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
  return segments.map((s) => {
    if (s.kind === 'text') return s;
    const fact = facts.get(s.id);
    if (!fact) throw new Error(`${where}: unknown fact id "${s.id}"`);
    return { kind: 'fact' as const, fact };
  });
}
