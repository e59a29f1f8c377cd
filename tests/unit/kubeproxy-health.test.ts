import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BAD_REQUEST_RESPONSE,
  connectionHandling,
  healthCheckAnswer,
  parseRequestHead,
  serializeResponse,
  type RequestHead,
} from '../../src/capture/kubeproxy/health.ts';
import { localEndpointCounts, type ProxyNodeInput } from '../../src/capture/kubeproxy/model.ts';
import { SCENARIOS, SERVICES } from '../fixtures/kubeproxy/scenarios.ts';

const SERVICE = { namespace: 'default', name: 's-lb' };

test('200 with local endpoints and a healthy proxy; the body is tab-indented without a trailing newline', () => {
  const answer = healthCheckAnswer(SERVICE, { localEndpoints: 1, serviceProxyHealthy: true });
  assert.equal(answer.status, 200);
  assert.equal(
    answer.body,
    '{\n\t"service": {\n\t\t"namespace": "default",\n\t\t"name": "s-lb"\n\t},\n\t"localEndpoints": 1,\n\t"serviceProxyHealthy": true\n}',
  );
  assert.deepEqual(JSON.parse(answer.body), { service: SERVICE, localEndpoints: 1, serviceProxyHealthy: true });
  assert.deepEqual(answer.headers, [
    ['Content-Type', 'application/json'],
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Load-Balancing-Endpoint-Weight', '1'],
  ]);
});

test('503 with no local endpoints, and 503 when the proxy is unhealthy even with endpoints', () => {
  const none = healthCheckAnswer(SERVICE, { localEndpoints: 0, serviceProxyHealthy: true });
  assert.equal(none.status, 503);
  assert.match(none.body, /"localEndpoints": 0,/);
  assert.deepEqual(none.headers.at(-1), ['X-Load-Balancing-Endpoint-Weight', '0']);

  const unhealthy = healthCheckAnswer(SERVICE, { localEndpoints: 2, serviceProxyHealthy: false });
  assert.equal(unhealthy.status, 503);
  assert.match(unhealthy.body, /"localEndpoints": 2,\n\t"serviceProxyHealthy": false\n}$/);
  assert.deepEqual(unhealthy.headers.at(-1), ['X-Load-Balancing-Endpoint-Weight', '2']);
});

test("the bytes Go's server writes: status line, handler headers, Date, Content-Length, body", () => {
  const answer = healthCheckAnswer(SERVICE, { localEndpoints: 0, serviceProxyHealthy: true });
  const date = new Date(Date.UTC(2026, 11, 2, 11, 4, 5));
  const wire = serializeResponse(answer, { date, head: false, connection: null });
  assert.equal(
    wire,
    [
      'HTTP/1.1 503 Service Unavailable',
      'Content-Type: application/json',
      'X-Content-Type-Options: nosniff',
      'X-Load-Balancing-Endpoint-Weight: 0',
      'Date: Wed, 02 Dec 2026 11:04:05 GMT',
      `Content-Length: ${Buffer.byteLength(answer.body)}`,
      '',
      answer.body,
    ].join('\r\n'),
  );
  const head = serializeResponse(answer, { date, head: true, connection: 'close' });
  assert.ok(head.endsWith(`Content-Length: ${Buffer.byteLength(answer.body)}\r\nConnection: close\r\n\r\n`), 'HEAD: headers only');
});

test('parseRequestHead accepts any method and path of HTTP/1.x and refuses the rest', () => {
  const request = parseRequestHead('POST /anything?x=1 HTTP/1.1\r\nHost: 172.18.0.2:31273\r\nUser-Agent: curl/7.88.1\r\nConnection: Close');
  assert.equal(request?.method, 'POST');
  assert.equal(request?.target, '/anything?x=1');
  assert.equal(request?.version, '1.1');
  assert.equal(request?.headers.get('connection'), 'Close');
  assert.equal(parseRequestHead('GET / HTTP/2.0'), null);
  assert.equal(parseRequestHead('GET /'), null);
  assert.equal(parseRequestHead('GET / HTTP/1.1\r\nno colon here'), null);
  assert.match(BAD_REQUEST_RESPONSE, /^HTTP\/1\.1 400 Bad Request\r\n.*Connection: close\r\n\r\n400 Bad Request$/s);
});

test('connection handling follows Go: keep-alive by default on 1.1, close on request; 1.0 closes unless asked', () => {
  const head = (version: '1.0' | '1.1', connection?: string): RequestHead => ({
    method: 'GET', target: '/', version, headers: new Map(connection === undefined ? [] : [['connection', connection]]),
  });
  assert.deepEqual(connectionHandling(head('1.1')), { keepAlive: true, header: null });
  assert.deepEqual(connectionHandling(head('1.1', 'close')), { keepAlive: false, header: 'close' });
  assert.deepEqual(connectionHandling(head('1.1', 'Upgrade, Close')), { keepAlive: false, header: 'close' });
  assert.deepEqual(connectionHandling(head('1.0')), { keepAlive: false, header: null });
  assert.deepEqual(connectionHandling(head('1.0', 'keep-alive')), { keepAlive: true, header: 'keep-alive' });
});

test('local endpoint counts: per health-checked Service, distinct local addresses, 0 on other nodes', () => {
  assert.deepEqual([...localEndpointCounts(SCENARIOS['worker'] as ProxyNodeInput)], [['default/s-lb', 1]]);
  assert.deepEqual([...localEndpointCounts(SCENARIOS['worker2'] as ProxyNodeInput)], [['default/s-lb', 0]]);
  assert.deepEqual([...localEndpointCounts(SCENARIOS['no-endpoints'] as ProxyNodeInput)], [['default/s-lb', 0]]);
  assert.deepEqual([...localEndpointCounts(SCENARIOS['three-endpoints-worker2'] as ProxyNodeInput)], [['default/s-lb', 1]]);

  // Two ports of one Service on the same pod are one endpoint.
  const twoPorts: ProxyNodeInput = {
    nodeName: 'n',
    clusterCIDR: '10.244.0.0/16',
    services: SERVICES,
    endpoints: [
      { namespace: 'default', service: 's-lb', portName: 'http', ip: '10.244.1.2', port: 80, nodeName: 'n' },
      { namespace: 'default', service: 's-lb', portName: 'https', ip: '10.244.1.2', port: 443, nodeName: 'n' },
      { namespace: 'default', service: 's-lb', portName: 'http', ip: '10.244.1.3', port: 80, nodeName: 'n' },
    ],
  };
  assert.deepEqual([...localEndpointCounts(twoPorts)], [['default/s-lb', 2]]);
});
