// An article's headline values, as its MDX writes them near the top:
// `<p class="headline-value">` (bound <Fact>s, maybe a word around them) each
// followed by its `<p class="headline-label">`. The values are the facts the
// build derived, read through `value`; nothing here is typed in. Pure.
import { parseTag, scanMdx, type MdxScan, type MdxTag } from '../../evidence/mdx-scan.ts';
import type { RunRef } from '../../evidence/runs/variants.ts';

export interface Headline {
  /** What the value line shows: each <Fact> replaced by its value. */
  value: string;
  label: string;
}

type Part = 'headline-value' | 'headline-label';

const attribute = (tag: MdxTag, name: string) => tag.attributes.find((a) => a.name === name && a.kind === 'string')?.value;

function partOf(tag: MdxTag): Part | undefined {
  if (tag.name !== 'p' || tag.closing) return undefined;
  const classes = (attribute(tag, 'class') ?? attribute(tag, 'className') ?? '').split(/\s+/);
  return classes.find((c): c is Part => c === 'headline-value' || c === 'headline-label');
}

/** The text of an MDX passage: each <Fact> its value, other tags and markdown marks dropped, spaces collapsed. */
function passageText(source: string, start: number, end: number, value: (id: string, run: RunRef) => string): string {
  let text = '';
  let at = start;
  for (let open = source.indexOf('<', at); open >= 0 && open < end; open = source.indexOf('<', at)) {
    const tag = parseTag(source, open, end);
    if (!tag) {
      text += source.slice(at, open + 1);
      at = open + 1;
      continue;
    }
    text += source.slice(at, open);
    if (tag.name === 'Fact' && !tag.closing) {
      const run: RunRef = {};
      const environment = attribute(tag, 'environment');
      const variant = attribute(tag, 'variant');
      if (environment !== undefined) run.environment = environment;
      if (variant !== undefined) run.variant = variant;
      text += `\u0000${value(attribute(tag, 'id') ?? '', run)}\u0001`;
    }
    at = tag.end;
  }
  text += source.slice(at, end);
  // Markdown's marks (emphasis, code) outside the values; the values stay exactly as derived.
  return text
    .split(/(\u0000[^\u0001]*\u0001)/)
    .map((piece) => (piece.startsWith('\u0000') ? piece.slice(1, -1) : piece.replace(/[*`_]/g, '')))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The headlines in the order the MDX has them; a value without a label gets an empty one. */
export function headlinesOf(source: string, value: (id: string, run: RunRef) => string, scan: MdxScan = scanMdx(source)): Headline[] {
  const headlines: Headline[] = [];
  scan.tags.forEach((tag, i) => {
    const part = partOf(tag);
    if (!part) return;
    const close = scan.tags.slice(i + 1).find((t) => t.name === 'p' && t.closing);
    if (!close) return;
    const text = passageText(source, tag.end, close.start, value);
    if (part === 'headline-value') headlines.push({ value: text, label: '' });
    else if (headlines.length > 0 && headlines.at(-1)!.label === '') headlines.at(-1)!.label = text;
  });
  return headlines;
}
