// kube-proxy's per-Service health check (pkg/proxy/healthcheck/service_health.go,
// hcHandler.ServeHTTP) and the bytes Go's net/http puts on the wire for it.

export interface HealthCheckState {
  localEndpoints: number;
  /** kube-proxy's own health: its last sync succeeded. */
  serviceProxyHealthy: boolean;
}

export interface HealthCheckAnswer {
  status: 200 | 503;
  /** The handler's headers, in the order Go writes them (sorted by name). */
  headers: [string, string][];
  body: string;
}

/** Status, headers and body for any path and method. */
export function healthCheckAnswer(service: { namespace: string; name: string }, state: HealthCheckState): HealthCheckAnswer {
  const count = state.localEndpoints;
  // The handler's template, after dedent and trimming newlines: tab-indented, no trailing newline.
  const body = [
    '{',
    '\t"service": {',
    `\t\t"namespace": ${JSON.stringify(service.namespace)},`,
    `\t\t"name": ${JSON.stringify(service.name)}`,
    '\t},',
    `\t"localEndpoints": ${count},`,
    `\t"serviceProxyHealthy": ${state.serviceProxyHealthy}`,
    '}',
  ].join('\n');
  return {
    status: count !== 0 && state.serviceProxyHealthy ? 200 : 503,
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Content-Type-Options', 'nosniff'],
      ['X-Load-Balancing-Endpoint-Weight', String(count)],
    ],
    body,
  };
}

const REASONS: Record<number, string> = { 200: 'OK', 400: 'Bad Request', 503: 'Service Unavailable' };

/** Go's http.TimeFormat: `Mon, 02 Jan 2006 15:04:05 GMT`. */
export function httpDate(date: Date): string {
  return date.toUTCString();
}

/**
 * The response as Go's server writes it: status line, handler headers, then
 * Date and Content-Length; a HEAD answer has the same headers and no body.
 */
export function serializeResponse(
  answer: HealthCheckAnswer,
  options: { date: Date; head: boolean; connection: 'close' | 'keep-alive' | null },
): string {
  const rows = [`HTTP/1.1 ${answer.status} ${REASONS[answer.status]}`];
  for (const [name, value] of answer.headers) rows.push(`${name}: ${value}`);
  rows.push(`Date: ${httpDate(options.date)}`);
  rows.push(`Content-Length: ${Buffer.byteLength(answer.body)}`);
  if (options.connection !== null) rows.push(`Connection: ${options.connection}`);
  return `${rows.join('\r\n')}\r\n\r\n${options.head ? '' : answer.body}`;
}

/** Go's answer to a request it cannot parse; it closes the connection after it. */
export const BAD_REQUEST_RESPONSE = 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request';

export interface RequestHead {
  method: string;
  target: string;
  version: '1.0' | '1.1';
  headers: Map<string, string>;
}

/** Parses a request's head (the text before the blank line); null when it is not HTTP/1.x. */
export function parseRequestHead(head: string): RequestHead | null {
  const [requestLine, ...headerLines] = head.split('\r\n');
  const match = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/1\.([01])$/.exec(requestLine ?? '');
  if (match === null) return null;
  const headers = new Map<string, string>();
  for (const headerLine of headerLines) {
    const colon = headerLine.indexOf(':');
    if (colon <= 0) return null;
    headers.set(headerLine.slice(0, colon).trim().toLowerCase(), headerLine.slice(colon + 1).trim());
  }
  return { method: match[1] as string, target: match[2] as string, version: match[3] === '0' ? '1.0' : '1.1', headers };
}

/**
 * Whether Go keeps the connection open after answering, and the Connection
 * header it adds: `close` only for HTTP/1.1, `keep-alive` only for HTTP/1.0.
 */
export function connectionHandling(request: RequestHead): { keepAlive: boolean; header: 'close' | 'keep-alive' | null } {
  const tokens = (request.headers.get('connection') ?? '').toLowerCase().split(',').map((t) => t.trim());
  if (request.version === '1.0') {
    const keepAlive = tokens.includes('keep-alive');
    return { keepAlive, header: keepAlive ? 'keep-alive' : null };
  }
  const close = tokens.includes('close');
  return { keepAlive: !close, header: close ? 'close' : null };
}
