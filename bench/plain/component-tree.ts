// The components of an MDX file (tags whose name starts with a capital) as a
// tree, each known as flow (on lines of its own) or inline (inside prose), and
// one way to rewrite a file component by component. Pure.
import { scanMdx, type MdxTag } from '../../src/evidence/mdx-scan.ts';

export interface ComponentNode {
  /** Pre-order number within the file, from 0. */
  index: number;
  name: string;
  open: MdxTag;
  /** null when the tag closes itself. */
  close: MdxTag | null;
  /** Alone on its lines (a block), as opposed to inside a line of prose. */
  flow: boolean;
  /**
   * Nothing else on its line but container markers (`> `, `- `, `1. `): MDX
   * then reads it as a block inside that container, not as part of a paragraph.
   */
  aloneOnLine: boolean;
  children: ComponentNode[];
  /** "line:column" of the opening tag, for messages. */
  at: string;
}

const isComponent = (tag: MdxTag) => /^[A-Z]/.test(tag.name);

export function componentTree(file: string, source: string): ComponentNode[] {
  const scan = scanMdx(source);
  const at = (offset: number) => {
    const p = scan.position(offset);
    return `${p.line}:${p.column}`;
  };
  const before = (offset: number) => source.slice(source.lastIndexOf('\n', offset - 1) + 1, offset);
  const lineStart = (offset: number) => /^[ \t]*$/.test(before(offset));
  const lineEnd = (offset: number) => /^[ \t]*(?:\r?\n|$)/.test(source.slice(offset));

  const roots: ComponentNode[] = [];
  const open: ComponentNode[] = [];
  let index = 0;
  for (const tag of scan.tags.filter(isComponent)) {
    if (tag.closing) {
      const node = open.pop();
      if (!node || node.name !== tag.name) {
        throw new Error(`${file}:${at(tag.start)}: </${tag.name}> does not close ${node ? `<${node.name}> (opened at ${node.at})` : 'any open component'}`);
      }
      node.close = tag;
      node.flow = lineStart(node.open.start) && lineEnd(tag.end);
      node.aloneOnLine = startsLine(source, node.open.start) && lineEnd(tag.end);
      continue;
    }
    const node: ComponentNode = {
      index: index++,
      name: tag.name,
      open: tag,
      close: null,
      flow: false,
      aloneOnLine: false,
      children: [],
      at: at(tag.start),
    };
    (open.at(-1)?.children ?? roots).push(node);
    if (tag.selfClosing) {
      node.flow = lineStart(tag.start) && lineEnd(tag.end);
      node.aloneOnLine = startsLine(source, tag.start) && lineEnd(tag.end);
    } else {
      open.push(node);
    }
  }
  const unclosed = open.pop();
  if (unclosed) throw new Error(`${file}:${unclosed.at}: <${unclosed.name}> is never closed`);
  return roots;
}

/** Only whitespace and container markers (`> `, `- `, `1. `) before `offset` on its line. */
export function startsLine(source: string, offset: number): boolean {
  const before = source.slice(source.lastIndexOf('\n', offset - 1) + 1, offset);
  return /^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)])[ \t]+)?$/.test(before);
}

/** The end of a component in the source: after its closing tag, or after itself. */
export const componentEnd = (node: ComponentNode) => (node.close ?? node.open).end;

/** The source between a component's tags (its children), or null when it closes itself. */
export function childrenRange(node: ComponentNode): { start: number; end: number } | null {
  return node.close ? { start: node.open.end, end: node.close.start } : null;
}

/**
 * source[from, to) with every component in `nodes` that starts in the range
 * replaced by what `replace` returns for it.
 */
export function rewriteComponents(source: string, from: number, to: number, nodes: readonly ComponentNode[], replace: (node: ComponentNode) => string): string {
  let out = '';
  let pos = from;
  for (const node of nodes) {
    if (node.open.start < from || node.open.start >= to) continue;
    out += source.slice(pos, node.open.start) + replace(node);
    pos = componentEnd(node);
  }
  return out + source.slice(pos, to);
}
