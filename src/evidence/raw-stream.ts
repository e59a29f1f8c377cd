// A step's stdout or stderr as a snapshot keeps it: the bytes, never a lossy
// decoding. Valid UTF-8 is stored as text; anything else as base64 with an
// encoding field; a stream above the limit keeps its start, its full byte count
// and its SHA-256. Pure functions: the capture stores with storeStream, facts
// and pages read with streamText / streamBytes.
import { createHash } from 'node:crypto';
import type { StepSnapshot } from './schema.ts';
import { ExtractError } from './errors.ts';

import { STREAM_LIMIT_BYTES } from './schema.ts';

/** Per stream: what a snapshot keeps at most (1 MiB), the schema's limit; the rest is counted and hashed, not stored. */
export { STREAM_LIMIT_BYTES };

export type StreamName = 'stdout' | 'stderr';

export interface StoredStream {
  /** The kept bytes: UTF-8 text, or base64 when `encoding` is set. */
  text: string;
  encoding?: 'base64';
  /** Set when the stream was cut: the whole stream's size and hash. */
  cut?: { bytes: number; sha256: string };
}

const strict = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Length of the UTF-8 sequence starting at `i`, or 0 when the bytes there are not one. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  const need = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (need <= 1 || i + need > bytes.length) return need === 1 ? 1 : 0;
  for (let k = 1; k < need; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return 0;
  // Overlong three-byte forms, surrogates, and code points above U+10FFFF are not UTF-8.
  const b1 = bytes[i + 1]!;
  if (b === 0xe0 && b1 < 0xa0) return 0;
  if (b === 0xed && b1 >= 0xa0) return 0;
  if (b === 0xf0 && b1 < 0x90) return 0;
  if (b === 0xf4 && b1 >= 0x90) return 0;
  return need;
}

/**
 * Where to cut valid UTF-8 at most `limit` bytes in without splitting a
 * character: `limit`, or up to three bytes less.
 */
function utf8Boundary(bytes: Uint8Array, limit: number): number {
  let end = limit;
  while (end > 0 && end > limit - 4 && (bytes[end]! & 0xc0) === 0x80) end--;
  return end;
}

/** How the capture stores one stream's bytes. */
export function storeStream(bytes: Uint8Array, limit: number = STREAM_LIMIT_BYTES): StoredStream {
  const whole = bytes.length > limit ? { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } : null;
  return storeStreamHead(bytes.subarray(0, limit + 1), whole, limit);
}

/**
 * The same, from a stream's first `limit + 1` bytes and, when it was longer than
 * `limit`, its whole size and hash: what the process runner keeps of a step that
 * printed more than a snapshot holds, without holding all of it.
 */
export function storeStreamHead(head: Uint8Array, whole: { bytes: number; sha256: string } | null, limit: number = STREAM_LIMIT_BYTES): StoredStream {
  let kept = head;
  let cut: StoredStream['cut'];
  if (whole !== null && whole.bytes > limit) {
    cut = { bytes: whole.bytes, sha256: whole.sha256 };
    const boundary = utf8Boundary(head, limit);
    kept = head.subarray(0, isUtf8(head.subarray(0, boundary)) ? boundary : limit);
  }
  const stored: StoredStream = isUtf8(kept)
    ? { text: Buffer.from(kept.buffer, kept.byteOffset, kept.length).toString('utf8') }
    : { text: Buffer.from(kept.buffer, kept.byteOffset, kept.length).toString('base64'), encoding: 'base64' };
  if (cut) stored.cut = cut;
  return stored;
}

/** The snapshot fields of both streams (`stdout`, `stdoutEncoding`, `stdoutCut`, ...), only those that apply. */
export function streamFields(
  stdout: Uint8Array,
  stderr: Uint8Array,
  limit: number = STREAM_LIMIT_BYTES,
): Pick<StepSnapshot, 'stdout' | 'stderr' | 'stdoutEncoding' | 'stderrEncoding' | 'stdoutCut' | 'stderrCut'> {
  return storedFields(storeStream(stdout, limit), storeStream(stderr, limit));
}

/** The snapshot fields of two stored streams. */
export function storedFields(
  out: StoredStream,
  err: StoredStream,
): Pick<StepSnapshot, 'stdout' | 'stderr' | 'stdoutEncoding' | 'stderrEncoding' | 'stdoutCut' | 'stderrCut'> {
  return {
    stdout: out.text,
    stderr: err.text,
    ...(out.encoding ? { stdoutEncoding: out.encoding } : {}),
    ...(err.encoding ? { stderrEncoding: err.encoding } : {}),
    ...(out.cut ? { stdoutCut: out.cut } : {}),
    ...(err.cut ? { stderrCut: err.cut } : {}),
  };
}

type Streams = Pick<StepSnapshot, 'stdout' | 'stderr' | 'stdoutEncoding' | 'stderrEncoding' | 'stdoutCut' | 'stderrCut'>;

/** The kept bytes of a stream, exactly. */
export function streamBytes(step: Streams, name: StreamName): Uint8Array {
  const text = step[name];
  return step[`${name}Encoding`] === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
}

/** Bytes as text: valid UTF-8 as it is, every byte that is not part of a character as `\xNN`. */
export function escapeInvalidUtf8(bytes: Uint8Array): string {
  let text = '';
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    if (end > start) text += Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  };
  while (i < bytes.length) {
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    flush(i);
    text += `\\x${bytes[i]!.toString(16).padStart(2, '0')}`;
    i += 1;
    start = i;
  }
  flush(i);
  return text;
}

/** A stream as readable text: itself, or its bytes with `\xNN` escapes when it is not UTF-8. */
export function streamText(step: Streams, name: StreamName): string {
  return step[`${name}Encoding`] === 'base64' ? escapeInvalidUtf8(streamBytes(step, name)) : step[name];
}

/** What a page says about a stream that is not shown as it came (not UTF-8, or cut); null when it is. */
export function streamNote(step: Streams, name: StreamName): { notUtf8: boolean; cut: { kept: number; bytes: number; sha256: string } | null } | null {
  const notUtf8 = step[`${name}Encoding`] === 'base64';
  const cut = step[`${name}Cut`];
  if (!notUtf8 && !cut) return null;
  return { notUtf8, cut: cut ? { kept: streamBytes(step, name).length, bytes: cut.bytes, sha256: cut.sha256 } : null };
}

/**
 * The step as fact extractors read it: text streams (escaped where not
 * UTF-8); reading a stream the capture cut is an error, since the part a fact
 * needs may be the part that was not kept.
 */
export function readableStep(step: StepSnapshot): StepSnapshot {
  const view: StepSnapshot = { ...step };
  for (const name of ['stdout', 'stderr'] as const) {
    const cut = step[`${name}Cut`];
    if (cut) {
      Object.defineProperty(view, name, {
        enumerable: true,
        get() {
          throw new ExtractError(
            `step ${step.id}'s ${name} was cut by the capture: ${streamBytes(step, name).length} of ${cut.bytes} bytes kept (sha256 ${cut.sha256}); a fact cannot be derived from part of it (make the step print less)`,
          );
        },
      });
    } else {
      view[name] = streamText(step, name);
    }
  }
  return view;
}
