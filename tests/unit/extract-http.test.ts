import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headerValue, jsonField, parseHttpResponse } from '../../src/evidence/extract/http.ts';
import { readSample } from '../fixtures/samples/read-sample.ts';

test('parseHttpResponse reads a 200 health check as curl --include printed it', () => {
  const r = parseHttpResponse(readSample('http/health-worker.yaml').stdout);
  assert.equal(r.version, 'HTTP/1.1');
  assert.equal(r.status, 200);
  assert.equal(r.reason, 'OK');
  assert.equal(r.statusLine, 'HTTP/1.1 200 OK');
  assert.equal(headerValue(r, 'content-type'), 'application/json');
  assert.equal(headerValue(r, 'X-Load-Balancing-Endpoint-Weight'), '1');
  assert.equal(headerValue(r, 'X-Absent'), undefined);
  assert.equal(r.headers[0]!.name, 'Content-Type');
  assert.equal(jsonField(r, 'localEndpoints'), 1);
  assert.equal(jsonField(r, 'service.name'), 's-lb');
  assert.equal(jsonField(r, 'serviceProxyHealthy'), true);
  // The body is exactly what followed the blank line: Content-Length bytes.
  assert.equal(Buffer.byteLength(r.body), Number(headerValue(r, 'Content-Length')));
});

test('parseHttpResponse reads the 503 of nodes without a local endpoint, and of worker after the delete', () => {
  for (const name of ['health-worker2', 'health-control-plane', 'health-worker-after-delete']) {
    const r = parseHttpResponse(readSample(`http/${name}.yaml`).stdout);
    assert.equal(r.status, 503, name);
    assert.equal(r.reason, 'Service Unavailable', name);
    assert.equal(jsonField(r, 'localEndpoints'), 0, name);
  }
  // kube-proxy's server answers any path.
  assert.equal(parseHttpResponse(readSample('http/health-worker-path.yaml').stdout).status, 200);
});

test('a POST with "Expect: 100-continue": kube-proxy answers at once and closes; an interim 100 would be skipped', () => {
  // Real: kube-proxy's health server (Go's net/http) reads no body, so it sends no interim response.
  const sample = readSample('http/health-worker-continue.yaml');
  assert.match(sample.stdout, /^HTTP\/1\.1 200 OK\r\n/);
  const r = parseHttpResponse(sample.stdout);
  assert.equal(r.status, 200);
  assert.equal(headerValue(r, 'Connection'), 'close');
  assert.equal(jsonField(r, 'localEndpoints'), 1);
  // A server that does read the body sends "HTTP/1.1 100 Continue" and a blank line first (RFC 9110 15.2.1);
  // this one is written by hand in that shape, around the real answer above.
  const interim = parseHttpResponse(`HTTP/1.1 100 Continue\r\n\r\n${sample.stdout}`);
  assert.equal(interim.status, 200);
  assert.equal(jsonField(interim, 'localEndpoints'), 1);
});

test('parseHttpResponse accepts LF-only output and HTTP/2 status lines without a reason', () => {
  const r = parseHttpResponse('HTTP/2 204\ndate: x\n\n');
  assert.equal(r.status, 204);
  assert.equal(r.reason, '');
  assert.equal(r.body, '');
});

test('parseHttpResponse and jsonField fail naming what they expected', () => {
  // A timed-out curl printed nothing.
  assert.throws(() => parseHttpResponse(readSample('curl/local-via-worker2.yaml').stdout), {
    name: 'ExtractError',
    message: 'expected an HTTP status line ("HTTP/1.1 200 OK") at the start of stdout, got ""',
  });
  // curl without --include: only the body.
  assert.throws(() => parseHttpResponse(readSample('curl/cluster-via-worker.yaml').stdout), /expected an HTTP status line .* got "client=10\.245\.2\.1"$/);
  assert.throws(() => parseHttpResponse('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n'), /expected a blank line after the headers of "HTTP\/1\.1 200 OK"/);
  assert.throws(() => parseHttpResponse('HTTP/1.1 200 OK\r\nnot a header\r\n\r\n'), /expected a header "Name: value", got "not a header"/);
  const r = parseHttpResponse(readSample('http/health-worker.yaml').stdout);
  assert.throws(() => jsonField(r, 'service.uid'), { name: 'ExtractError', message: 'looked for "service.uid" in the JSON body, but it has no "uid"' });
  assert.throws(() => jsonField(parseHttpResponse('HTTP/1.1 200 OK\r\n\r\nclient=1.2.3.4\n'), 'x'), /expected a JSON body, got "client=1\.2\.3\.4\\n"/);
});
