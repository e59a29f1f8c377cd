import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clientAddress, curlFailure, maxTime } from '../../src/evidence/extract/curl.ts';
import { durationSeconds } from '../../src/evidence/extract/duration.ts';
import { ExtractError } from '../../src/evidence/errors.ts';
import { readSample } from '../fixtures/samples/read-sample.ts';

test('clientAddress reads the address nginx reported, from real curl output', () => {
  assert.equal(clientAddress(readSample('curl/cluster-via-worker.yaml').stdout), '10.245.2.1');
  assert.equal(clientAddress(readSample('curl/cluster-via-worker2.yaml').stdout), '172.20.0.4');
  assert.equal(clientAddress(readSample('curl/local-via-worker.yaml').stdout), '172.20.0.3');
  // --write-out appends its own line after the body.
  assert.equal(clientAddress(readSample('curl/write-out-timing.yaml').stdout), '172.20.0.4');
  // Output captured with the final newline stripped (execa's default) reads the same.
  assert.equal(clientAddress('client=10.245.1.1'), '10.245.1.1');
});

test('clientAddress fails with what it looked for when curl got no answer', () => {
  const timedOut = readSample('curl/local-via-worker2.yaml');
  assert.equal(timedOut.stdout, '');
  assert.throws(() => clientAddress(timedOut.stdout), {
    name: 'ExtractError',
    message: 'looked for a line "client=<address>" in stdout, got ""',
  });
  assert.throws(() => clientAddress('client=not-an-ip\n'), /expected an IPv4 address after "client=", got "not-an-ip"/);
  assert.throws(() => clientAddress('client=10.0.0.1\nclient=10.0.0.2\n'), /expected one line "client=<address>" in stdout, got 2/);
});

test('curlFailure reads curl --show-error lines: the timeout (28) and a refused connection (7)', () => {
  const timeout = curlFailure(readSample('curl/local-via-worker2.yaml').stderr);
  assert.equal(timeout.code, 28);
  assert.match(timeout.message, /^Connection timed out after \d+ milliseconds$/);
  assert.equal(timeout.line, `curl: (28) ${timeout.message}`);

  const refused = curlFailure(readSample('curl/refused.yaml').stderr);
  assert.equal(refused.code, 7);
  assert.match(refused.message, /^Failed to connect to 172\.20\.0\.2 port 1 after \d+ ms: Couldn't connect to server$/);
  assert.equal(refused.code, readSample('curl/refused.yaml').exitCode);

  assert.throws(() => curlFailure(readSample('curl/cluster-via-worker.yaml').stderr), {
    name: 'ExtractError',
    message: 'looked for a line "curl: (<code>) <message>" in stderr, got ""',
  });
});

test('maxTime finds the --max-time the step ran with, in every spelling curl accepts', () => {
  assert.equal(maxTime(readSample('curl/local-via-worker2.yaml').argv), '3');
  assert.equal(maxTime(['curl', '--max-time=2.5', 'http://x/']), '2.5');
  assert.equal(maxTime(['curl', '-m', '7', 'http://x/']), '7');
  assert.equal(maxTime(['curl', '-m4', 'http://x/']), '4');
  assert.throws(() => maxTime(['curl', '--silent', 'http://x/']), {
    name: 'ExtractError',
    message: 'looked for --max-time in the argv, got "curl --silent http://x/"',
  });
  // A dangling --max-time has no value to report.
  assert.throws(() => maxTime(['curl', '--max-time']), ExtractError);
});

test('durationSeconds rounds to one decimal (two under a second) and keeps the exact milliseconds as raw', () => {
  const step = readSample('curl/local-via-worker2.yaml');
  const d = durationSeconds(step.durationMs);
  assert.equal(d.raw, String(step.durationMs));
  assert.equal(d.value, (Math.round(step.durationMs / 100) / 10).toFixed(1));
  assert.deepEqual(durationSeconds(3036.706), { value: '3.0', raw: '3036.706' });
  assert.deepEqual(durationSeconds(3050), { value: '3.1', raw: '3050' });
  assert.deepEqual(durationSeconds(49.9), { value: '0.05', raw: '49.9' });
  assert.deepEqual(durationSeconds(31.2), { value: '0.03', raw: '31.2' });
  assert.deepEqual(durationSeconds(994), { value: '0.99', raw: '994' });
  assert.deepEqual(durationSeconds(996), { value: '1.0', raw: '996' });
  assert.deepEqual(durationSeconds(12000), { value: '12.0', raw: '12000' });
  assert.throws(() => durationSeconds(-1), /expected a duration in milliseconds >= 0, got -1/);
  assert.throws(() => durationSeconds(Number.NaN), ExtractError);
});
