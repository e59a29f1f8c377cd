// What a link to a step's raw output is called, in the reader's language: never
// the step's id (a name of the experiment's, not the reader's). Under a Measured
// block the links name its lines (第 1 行, line 1); elsewhere they name what ran
// where (control-plane 上的 curl), numbered when two in one list would read the
// same. Pure.
import type { Lang } from '../../site.config.ts';

export interface StepRef {
  node: string;
  command: readonly string[];
}

/** `第 N 行` / `line N`: the Measured block's lines, in order, one per step. */
export function lineLinkNames(count: number, lang: Lang): string[] {
  return Array.from({ length: count }, (_, i) => (lang === 'zh' ? `第 ${i + 1} 行` : `line ${i + 1}`));
}

/** `control-plane 上的 curl` / `curl on control-plane` (`host`: the capturing host), with (1), (2) … where names repeat. */
export function stepLinkNames(steps: readonly StepRef[], lang: Lang): string[] {
  const names = steps.map(({ node, command }) => {
    const program = command[0]!.split('/').at(-1)!;
    if (node === 'host') return lang === 'zh' ? `采集主机上的 ${program}` : `${program} on the capturing host`;
    return lang === 'zh' ? `${node} 上的 ${program}` : `${program} on ${node}`;
  });
  const seen = new Map<string, number>();
  return names.map((name) => {
    if (names.filter((n) => n === name).length === 1) return name;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return lang === 'zh' ? `${name}（${n}）` : `${name} (${n})`;
  });
}
