// Part of a step's output, shown as an excerpt that says so: the lines are the
// snapshot's own, in its order, and every place where lines were left out is
// an ellipsis line, so a reader never takes a part for the whole. Which lines:
// whole blocks (`chain filter-input { … }` of nft, by their opening line), the
// lines holding a text (a rule's comment), and whole iptables chains found by
// a text in one of their rules (chains named by a hash, KUBE-EXT-HNMG67…). Facts the excerpt binds must
// each be a whole line of it. Pure: the component passes the output.

export interface ExcerptSelection {
  /** Blocks by their opening line without the brace (`chain filter-input`): the block, from that line to its closing brace. */
  blocks?: readonly string[];
  /** Every line containing one of these texts. */
  matching?: readonly string[];
  /** iptables-save: every rule (`-A <chain> …`) of each chain that has a rule containing one of these texts. */
  chainsMatching?: readonly string[];
}

export type ExcerptLine =
  | { kind: 'line'; /** Index in the output (0-based). */ index: number; /** Leading whitespace, common indentation removed. */ indent: string; text: string }
  | { kind: 'gap'; /** How many lines were left out here. */ omitted: number };

export class ExcerptError extends Error {
  override name = 'ExcerptError';
}

const leading = (line: string) => /^[ \t]*/.exec(line)![0];

/** The lines of a block opening at `start`: to the first later line at the same indentation that closes it. */
function blockRange(lines: readonly string[], start: number): [number, number] | null {
  const indent = leading(lines[start]!);
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (leading(line) === indent && line.trim().startsWith('}')) return [start, i];
  }
  return null;
}

/**
 * The excerpt of `output` that `selection` picks: its lines in output order, a
 * gap wherever lines between two of them (or before the first, after the
 * last) were left out; blank lines between two picked lines are kept as they
 * are. `where` names the component in errors (file and step).
 */
export function excerptOf(output: string, selection: ExcerptSelection, where: string): ExcerptLine[] {
  const lines = output.replace(/\n$/, '').split('\n');
  const picked = new Set<number>();
  for (const name of selection.blocks ?? []) {
    const opening = `${name} {`;
    const starts = lines.flatMap((line, i) => (line.trim() === opening ? [i] : []));
    if (starts.length !== 1)
      throw new ExcerptError(`${where}: blocks: expected one line "${opening}" in the output, found ${starts.length === 0 ? 'none' : starts.length}`);
    const range = blockRange(lines, starts[0]!);
    if (!range) throw new ExcerptError(`${where}: blocks: the block "${opening}" is not closed in the output`);
    for (let i = range[0]; i <= range[1]; i++) picked.add(i);
  }
  for (const text of selection.matching ?? []) {
    const hits = lines.flatMap((line, i) => (line.includes(text) ? [i] : []));
    if (hits.length === 0) throw new ExcerptError(`${where}: matching: no line of the output contains "${text}"`);
    for (const i of hits) picked.add(i);
  }
  for (const text of selection.chainsMatching ?? []) {
    const chains = new Set(lines.flatMap((line) => (line.includes(text) ? [/^-A (\S+) /.exec(line)?.[1] ?? ''] : [])));
    if (chains.size === 0) throw new ExcerptError(`${where}: chainsMatching: no line of the output contains "${text}"`);
    if (chains.has('')) throw new ExcerptError(`${where}: chainsMatching: a line containing "${text}" is not a rule (-A <chain> …)`);
    lines.forEach((line, i) => {
      if ([...chains].some((chain) => line.startsWith(`-A ${chain} `))) picked.add(i);
    });
  }
  if (picked.size === 0) throw new ExcerptError(`${where}: expected blocks, matching or chainsMatching to pick at least one line`);
  const order = [...picked].sort((a, b) => a - b);
  const widths = order.filter((i) => lines[i]!.trim() !== '').map((i) => leading(lines[i]!).length);
  const common = Math.min(...widths);
  const shown = (i: number): ExcerptLine => ({ kind: 'line', index: i, indent: leading(lines[i]!).slice(common), text: lines[i]!.trim() });
  const lastContent = lines.findLastIndex((line) => line.trim() !== '');
  const out: ExcerptLine[] = [];
  if (order[0]! > 0) out.push({ kind: 'gap', omitted: order[0]! });
  order.forEach((i, n) => {
    const previous = order[n - 1];
    if (previous !== undefined && i > previous + 1) {
      const between = lines.slice(previous + 1, i);
      if (between.every((line) => line.trim() === '')) between.forEach((_, k) => out.push(shown(previous + 1 + k)));
      else out.push({ kind: 'gap', omitted: between.length });
    }
    out.push(shown(i));
  });
  if (order.at(-1)! < lastContent) out.push({ kind: 'gap', omitted: lastContent - order.at(-1)! });
  return out;
}

/**
 * Which line of the excerpt each fact is: its value must be one whole shown
 * line (trimmed), or the excerpt does not show what the fact says.
 */
export function factLines(excerpt: readonly ExcerptLine[], facts: ReadonlyArray<{ id: string; value: string }>, where: string): Map<number, string> {
  const bound = new Map<number, string>();
  for (const fact of facts) {
    const line = excerpt.find((l) => l.kind === 'line' && l.text === fact.value.trim() && !bound.has(l.index));
    if (!line || line.kind !== 'line')
      throw new ExcerptError(`${where}: facts: "${fact.id}" (${JSON.stringify(fact.value)}) is not a whole line of the excerpt`);
    bound.set(line.index, fact.id);
  }
  return bound;
}
