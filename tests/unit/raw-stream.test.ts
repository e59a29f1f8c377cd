// storeStreamHead stores what the process runner kept of a stream (its first
// limit + 1 bytes, and the whole size and hash when it was longer) exactly as
// storeStream stores the whole stream: the capture never holds a step's whole
// output, and its snapshot must not differ for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { runProcess } from '../../src/capture/machine/process.ts';
import { stepOutcome } from '../../src/capture/kubernetes/steps.ts';
import { STREAM_LIMIT_BYTES, storeStream, storeStreamHead, streamFields } from '../../src/evidence/raw-stream.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * storeStream as it was before the runner kept only heads (e96bb4e^), on the whole bytes:
 * the reference. storeStream now hands its head to storeStreamHead, so comparing the two
 * alone would prove nothing.
 */
function storeWhole(bytes: Uint8Array, limit: number): ReturnType<typeof storeStream> {
  const valid = (b: Uint8Array) => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(b);
      return true;
    } catch {
      return false;
    }
  };
  let kept = bytes;
  let cut: { bytes: number; sha256: string } | undefined;
  if (bytes.length > limit) {
    cut = { bytes: bytes.length, sha256: sha256(bytes) };
    let end = limit;
    while (end > 0 && end > limit - 4 && (bytes[end]! & 0xc0) === 0x80) end--;
    kept = bytes.subarray(0, valid(bytes.subarray(0, end)) ? end : limit);
  }
  const stored: ReturnType<typeof storeStream> = valid(kept)
    ? { text: Buffer.from(kept).toString('utf8') }
    : { text: Buffer.from(kept).toString('base64'), encoding: 'base64' };
  if (cut) stored.cut = cut;
  return stored;
}

/** What the process runner hands on for a stream: the kept head, and the whole size and hash once it is longer than the limit (as stepOutcome does). */
function asTheRunnerKeepsIt(bytes: Uint8Array, limit: number): [Uint8Array, { bytes: number; sha256: string } | null] {
  return [bytes.subarray(0, limit + 1), bytes.length > limit ? { bytes: bytes.length, sha256: sha256(bytes) } : null];
}

const streams: Record<string, Buffer> = {
  empty: Buffer.alloc(0),
  'short ASCII': Buffer.from('client=10.244.1.1\n'),
  'long ASCII': Buffer.from('-A KUBE-SERVICES -j ACCEPT\n'.repeat(40)),
  // 3 bytes a character: most limits cut one in the middle.
  'long UTF-8, 3-byte characters': Buffer.from('实测'.repeat(60)),
  // 1, 2, 3 and 4 bytes in turn: every kind of cut.
  'long UTF-8, mixed widths': Buffer.from('aé实😀'.repeat(30)),
  'invalid UTF-8': Buffer.from([...Buffer.from('client='), 0xff, 0xfe, ...Buffer.from(' ok\n'.repeat(30))]),
  'valid head, invalid tail': Buffer.concat([Buffer.from('x'.repeat(200)), Buffer.from([0xc0, 0x80])]),
  'a lone continuation byte first': Buffer.concat([Buffer.from([0x80]), Buffer.from('实'.repeat(50))]),
  'a stray continuation byte mid-stream': Buffer.concat([Buffer.from('x'.repeat(20)), Buffer.from([0x80]), Buffer.from('y'.repeat(20))]),
};

test('storeStreamHead gives exactly what storeStream gives on the whole bytes, at every limit', () => {
  for (const [name, bytes] of Object.entries(streams)) {
    for (let limit = 1; limit <= 40; limit++) {
      const [head, whole] = asTheRunnerKeepsIt(bytes, limit);
      const expected = storeWhole(bytes, limit);
      assert.deepEqual(storeStreamHead(head, whole, limit), expected, `${name}, limit ${limit}`);
      assert.deepEqual(storeStream(bytes, limit), expected, `${name}, limit ${limit}: storeStream`);
    }
    // At the snapshot's own limit (these are all shorter: nothing is cut).
    const [head, whole] = asTheRunnerKeepsIt(bytes, STREAM_LIMIT_BYTES);
    assert.deepEqual(storeStreamHead(head, whole), storeWhole(bytes, STREAM_LIMIT_BYTES), name);
  }
});

test('what is stored: text up to the limit without splitting a character, base64 when not UTF-8, the whole size and hash when cut', () => {
  const short = streams['short ASCII']!;
  assert.deepEqual(storeStreamHead(...asTheRunnerKeepsIt(short, 18), 18), { text: 'client=10.244.1.1\n' }, 'exactly the limit: not cut');

  const han = streams['long UTF-8, 3-byte characters']!;
  // 16 bytes in is the second byte of the sixth character: five are kept.
  assert.deepEqual(storeStreamHead(...asTheRunnerKeepsIt(han, 16), 16), { text: '实测实测实', cut: { bytes: 360, sha256: sha256(han) } });

  const invalid = streams['invalid UTF-8']!;
  const stored = storeStreamHead(...asTheRunnerKeepsIt(invalid, 10), 10);
  assert.equal(stored.encoding, 'base64');
  assert.deepEqual(Buffer.from(stored.text, 'base64'), invalid.subarray(0, 10), 'the bytes exactly, never a lossy decoding');
  assert.deepEqual(stored.cut, { bytes: invalid.length, sha256: sha256(invalid) });

  const tail = streams['valid head, invalid tail']!;
  assert.deepEqual(
    storeStreamHead(...asTheRunnerKeepsIt(tail, 200), 200),
    { text: 'x'.repeat(200), cut: { bytes: 202, sha256: sha256(tail) } },
    'what is kept is UTF-8: stored as text',
  );
});

test('a step printing 3 MiB of multi-byte text: the runner keeps its head, and the snapshot is what the whole output would give', async () => {
  const size = 3 * 1024 * 1024;
  const run = await runProcess(['sh', '-c', `yes 实测 | head -c ${size}`], { timeoutMs: 20_000, keepBytes: STREAM_LIMIT_BYTES + 1 });
  assert.equal(run.exitCode, 0);
  assert.equal(run.stdout.head.length, STREAM_LIMIT_BYTES + 1, 'only the head is held');
  assert.equal(run.stdout.bytes, size);
  const whole = Buffer.alloc(size, '实测\n');
  assert.equal(run.stdout.sha256, sha256(whole));
  const outcome = stepOutcome(run);
  assert.deepEqual(
    { stdout: outcome.stdout, stderr: outcome.stderr, stdoutEncoding: outcome.stdoutEncoding, stdoutCut: outcome.stdoutCut },
    { ...streamFields(whole, Buffer.alloc(0)), stdoutEncoding: undefined },
  );
  assert.ok(
    Buffer.byteLength(outcome.stdout) <= STREAM_LIMIT_BYTES && Buffer.byteLength(outcome.stdout) > STREAM_LIMIT_BYTES - 4,
    'cut at the limit, between characters',
  );
});
