// An HTTP response as `curl --include` prints it: status line, headers, a blank
// line, the body. Interim 1xx responses (and the headers of redirects curl
// followed) come first; the last response is the one that counts.
import { fieldAt } from './field.ts';
import { ExtractError, describeValue } from '../errors.ts';

export interface HttpHeader {
  name: string;
  value: string;
}

export interface HttpResponse {
  /** "HTTP/1.1", "HTTP/2". */
  version: string;
  status: number;
  /** The reason phrase ("Service Unavailable"); empty under HTTP/2, which has none. */
  reason: string;
  statusLine: string;
  headers: HttpHeader[];
  body: string;
}

const STATUS_LINE = /^(HTTP\/[\d.]+) (\d{3})(?: (.*))?$/;

export function parseHttpResponse(stdout: string): HttpResponse {
  let rest = stdout;
  for (;;) {
    const headerEnd = /\r?\n\r?\n/.exec(rest);
    const head = headerEnd ? rest.slice(0, headerEnd.index) : rest;
    const lines = head.split(/\r?\n/);
    const m = STATUS_LINE.exec(lines[0] ?? '');
    if (!m) throw new ExtractError(`expected an HTTP status line ("HTTP/1.1 200 OK") at the start of stdout, got ${describeValue(lines[0] ?? '')}`);
    if (!headerEnd) throw new ExtractError(`expected a blank line after the headers of "${lines[0]}", got none`);
    const headers: HttpHeader[] = [];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new ExtractError(`expected a header "Name: value", got ${describeValue(line)}`);
      headers.push({ name: line.slice(0, colon), value: line.slice(colon + 1).trim() });
    }
    const body = rest.slice(headerEnd.index + headerEnd[0].length);
    // Another response follows an interim one or a followed redirect.
    if (STATUS_LINE.test(body.split(/\r?\n/)[0] ?? '') && /\r?\n\r?\n/.test(body)) {
      rest = body;
      continue;
    }
    return { version: m[1]!, status: Number(m[2]), reason: m[3] ?? '', statusLine: lines[0]!, headers, body };
  }
}

/** A header's value, case-insensitively; undefined when absent. */
export function headerValue(response: HttpResponse, name: string): string | undefined {
  return response.headers.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
}

/** A field of the JSON body by dotted path ("localEndpoints", "service.name"). */
export function jsonField(response: HttpResponse, path: string): unknown {
  let data: unknown;
  try {
    data = JSON.parse(response.body);
  } catch {
    throw new ExtractError(`expected a JSON body, got ${describeValue(response.body)}`);
  }
  return fieldAt(data, path, 'the JSON body');
}
