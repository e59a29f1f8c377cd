// The floor of the growth bench: an article's MDX as Astro alone would build
// it, the same prose and markdown without anything the evidence pipeline adds.
// Components are taken out: a block component is unwrapped (its children are
// the author's prose and stay), a self-closing one on a line of its own is
// dropped (it renders evidence, not prose), and one inside a line of prose
// (a <Fact/>) becomes a short value. HTML, headings, lists and fenced code stay
// as written. Pure.
import { scanMdx, type MdxTag } from '../../src/evidence/mdx-scan.ts';

/** What a value bound inside a sentence becomes: about as long as the addresses and codes the articles bind. */
export const FLOOR_VALUE = '0.0.0.0';

const isComponent = (tag: MdxTag) => /^[A-Z]/.test(tag.name);

export function proseFloorMdx(source: string): string {
  const tags = scanMdx(source).tags.filter(isComponent);
  let out = '';
  let from = 0;
  for (const tag of tags) {
    const lineStart = source.lastIndexOf('\n', tag.start - 1) + 1;
    const lineEnd = source.indexOf('\n', tag.end);
    const end = lineEnd < 0 ? source.length : lineEnd;
    const alone = /^[ \t]*$/.test(source.slice(lineStart, tag.start)) && /^[ \t]*$/.test(source.slice(tag.end, end));
    if (alone) {
      // The whole line goes, with its line break: no blank line is left where a block stood.
      out += source.slice(from, lineStart);
      from = lineEnd < 0 ? source.length : lineEnd + 1;
    } else {
      out += source.slice(from, tag.start) + (tag.selfClosing ? FLOOR_VALUE : '');
      from = tag.end;
    }
  }
  return out + source.slice(from);
}
