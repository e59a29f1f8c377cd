// A step's name (src/article/render/step-name.ts) in each language's words: what
// ran, where, and for a request what it reached. The node and a short command are
// the run's values, bound where the name is written; names of nodes, Services and
// pods are the experiment's.
import type { Lang } from '../site.config.ts';
import type { StepName, StepTarget } from '../article/render/step-name.ts';

/** Text, a program or command word set as code, or one of the step's facts (its node, its command). */
export type NamePiece = { text: string } | { code: string } | { fact: 'node' | 'command' };

const text = (t: string): NamePiece => ({ text: t });

function nodesOf(nodes: readonly string[], lang: Lang): string {
  const and = lang === 'zh' ? ' 和 ' : ' and ';
  return nodes.length <= 1 ? (nodes[0] ?? '') : `${nodes.slice(0, -1).join(lang === 'zh' ? '、' : ', ')}${and}${nodes.at(-1)}`;
}

function targetWords(target: StepTarget, lang: Lang): string {
  const nodes = target.kind === 'pod' || target.kind === 'clusterIP' ? '' : nodesOf(target.nodes, lang);
  switch (target.kind) {
    case 'nodePort':
      return lang === 'zh' ? `${nodes} 上 ${target.service} 的 NodePort` : `${target.service}’s NodePort on ${nodes}`;
    case 'healthCheck':
      return lang === 'zh' ? `${nodes} 上 ${target.service} 的健康检查端口` : `${target.service}’s health-check port on ${nodes}`;
    case 'pod':
      return lang === 'zh' ? `Pod ${target.pod}` : `pod ${target.pod}`;
    case 'clusterIP':
      return lang === 'zh' ? `${target.service} 的 ClusterIP` : `${target.service}’s ClusterIP`;
    case 'nodes':
      return nodes;
  }
}

/** What ran: a program, a command (bound) or a command's first words. */
function whatRan(name: StepName): NamePiece[] {
  if (name.kind === 'request') return [{ code: name.program }];
  if (name.kind === 'command') return [{ fact: 'command' }];
  return [{ code: name.head }, text(' …')];
}

export function stepNamePieces(name: StepName, lang: Lang): NamePiece[] {
  const onHost = name.node === 'host';
  const target = name.kind === 'request' ? [text(' → '), text(targetWords(name.target, lang))] : [];
  const pod = name.kind === 'request' ? name.pod : undefined;
  if (lang === 'zh') {
    const where = onHost ? [text('采集程序在本机执行的 ')] : [{ fact: 'node' } as const, text(pod === undefined ? ' 上的 ' : ` 上 Pod ${pod} 里的 `)];
    return [...where, ...whatRan(name), ...target];
  }
  const inPod = pod === undefined ? [] : [text(` in pod ${pod}`)];
  const where = onHost ? [text(' run by the capture on its host')] : [...inPod, text(' on '), { fact: 'node' } as const];
  return [...whatRan(name), ...where, ...target];
}
