// How a step's raw output is cut into highlighted blocks: an HTTP response read
// with `curl --include` becomes its head and a JSON body; anything else stays text.
// On an article page a long line of JSON (`ip -j`) is laid out over indented lines
// to be read; the copy button and the run record give it as it came.
// Pure; the components only render what this returns.
import type { StepSnapshot } from '../../evidence/schema.ts';
import { streamNote, streamText, type StreamName } from '../../evidence/raw-stream.ts';

type Streams = Pick<StepSnapshot, 'stdout' | 'stderr' | 'stdoutEncoding' | 'stderrEncoding' | 'stdoutCut' | 'stderrCut'>;

export interface OutputBlock {
  /** Which stream it came from. */
  stream: 'stdout' | 'stderr';
  /** A shiki language id. */
  lang: 'http' | 'json' | 'text';
  code: string;
  /** The output as it came, where `code` lays it out (readableBlocks). */
  asItCame?: string;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The blocks of each snapshot, cut once: every page of the article shows the same step's output (a step snapshot never changes once loaded). */
const blocksOf = new WeakMap<Streams, readonly OutputBlock[]>();

export function outputBlocks(snapshot: Streams): readonly OutputBlock[] {
  let blocks = blocksOf.get(snapshot);
  if (!blocks) {
    blocks = cutOutput(snapshot);
    blocksOf.set(snapshot, blocks);
  }
  return blocks;
}

function cutOutput(snapshot: Streams): OutputBlock[] {
  // Bytes that are not UTF-8 show as \xNN escapes (the snapshot keeps them in base64).
  const step = { stdout: streamText(snapshot, 'stdout'), stderr: streamText(snapshot, 'stderr') };
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

/**
 * The visible note under a stream that is not shown as it came: bytes that
 * are not UTF-8 (shown escaped), or output the capture cut (its full size and
 * SHA-256). Null when the stream is shown whole and as it was.
 */
export function streamNoteText(snapshot: Streams, stream: StreamName, lang: 'zh' | 'en'): string | null {
  const note = streamNote(snapshot, stream);
  if (note === null) return null;
  const parts: string[] = [];
  if (note.notUtf8) {
    parts.push(
      lang === 'zh'
        ? '输出含非 UTF-8 字节：此处以 \\xNN 转义显示，快照以 base64 保存原始字节。'
        : 'The output holds bytes that are not UTF-8: shown here as \\xNN escapes; the snapshot keeps the raw bytes in base64.',
    );
  }
  if (note.cut) {
    parts.push(
      lang === 'zh'
        ? `输出过长，已截断：仅保存并显示前 ${note.cut.kept} 字节，共 ${note.cut.bytes} 字节（SHA-256 ${note.cut.sha256}）。`
        : `The output was cut: the first ${note.cut.kept} of ${note.cut.bytes} bytes are kept and shown (SHA-256 ${note.cut.sha256}).`,
    );
  }
  return parts.join(' ');
}

/** A line of JSON longer than this is laid out on an article page: past a phone's width many times over. */
const LONG_JSON_LINE = 120;

/**
 * The blocks as an article shows them: a JSON block that came as one long compact line, laid out with
 * two-space indents, keeping the line it came as; every other block as it came. Only a line that is
 * exactly JSON.stringify of what it parses to is laid out, so the layout cannot change a value (a number
 * past 2^53, an escape written otherwise).
 */
export function readableBlocks(snapshot: Streams): readonly OutputBlock[] {
  return outputBlocks(snapshot).map((block) => {
    if (block.lang !== 'json' || block.code.length <= LONG_JSON_LINE) return block;
    const parsed: unknown = JSON.parse(block.code);
    return JSON.stringify(parsed) === block.code ? { ...block, code: JSON.stringify(parsed, null, 2), asItCame: block.code } : block;
  });
}
