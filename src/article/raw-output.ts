// How a step's raw output is cut into highlighted blocks: an HTTP response read
// with `curl --include` becomes its head and a JSON body; anything else stays text.
// Pure; the components only render what this returns.
import type { StepSnapshot } from '../evidence/schema.ts';

export interface OutputBlock {
  /** Which stream it came from. */
  stream: 'stdout' | 'stderr';
  /** A shiki language id. */
  lang: 'http' | 'json' | 'text';
  code: string;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function outputBlocks(step: Pick<StepSnapshot, 'stdout' | 'stderr'>): OutputBlock[] {
  const blocks: OutputBlock[] = [];
  const head = /^HTTP\/[\d.]+ \d{3}/.test(step.stdout) ? step.stdout.search(/\r?\n\r?\n/) : -1;
  if (head >= 0) {
    const body = step.stdout.slice(head).replace(/^\r?\n\r?\n/, '');
    blocks.push({ stream: 'stdout', lang: 'http', code: step.stdout.slice(0, head).replaceAll('\r', '') });
    if (body) blocks.push({ stream: 'stdout', lang: isJson(body) ? 'json' : 'text', code: body });
  } else if (step.stdout) {
    blocks.push({ stream: 'stdout', lang: isJson(step.stdout) ? 'json' : 'text', code: step.stdout.replace(/\n$/, '') });
  }
  if (step.stderr) blocks.push({ stream: 'stderr', lang: 'text', code: step.stderr.replace(/\n$/, '') });
  return blocks;
}
