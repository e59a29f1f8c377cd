// The lab kubelet's client of the real API server: HTTPS with the node's
// client certificate, JSON in and out, and watches as the API streams them
// (one JSON event per line). Only what a kubelet needs; nothing is cached.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { dirname, resolve } from 'node:path';
import { load } from 'js-yaml';

export interface ApiAnswer {
  status: number;
  body: unknown;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.status = status;
  }
}

interface Credentials {
  server: URL;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** Reads a kubeconfig of the shape the lab writes (file paths relative to the kubeconfig). */
export function readKubeconfig(path: string): Credentials {
  const config = load(readFileSync(path, 'utf8')) as {
    clusters?: { cluster?: { server?: string; 'certificate-authority'?: string } }[];
    users?: { user?: { 'client-certificate'?: string; 'client-key'?: string } }[];
  };
  const cluster = config.clusters?.[0]?.cluster;
  const user = config.users?.[0]?.user;
  const server = cluster?.server;
  const ca = cluster?.['certificate-authority'];
  const cert = user?.['client-certificate'];
  const key = user?.['client-key'];
  if (!server || !ca || !cert || !key) {
    throw new Error(`${path}: expected clusters[0].cluster.server and certificate-authority, users[0].user.client-certificate and client-key`);
  }
  const at = (file: string) => readFileSync(resolve(dirname(path), file));
  return { server: new URL(server), ca: at(ca), cert: at(cert), key: at(key) };
}

/** What the lab kubelet's parts ask of the API: ApiClient, or a fake in a unit test. */
export interface KubeApi {
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiAnswer>;
  must(method: string, path: string, body?: unknown, contentType?: string): Promise<Record<string, unknown>>;
  watch(path: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<void>;
}

export class ApiClient implements KubeApi {
  private readonly credentials: Credentials;
  private readonly agent: Agent;

  constructor(credentials: Credentials) {
    this.credentials = credentials;
    this.agent = new Agent({ keepAlive: true, ca: credentials.ca, cert: credentials.cert, key: credentials.key });
  }

  /** One request; resolves with the status and the parsed body whatever the status. */
  call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolvePromise, reject) => {
      const req = request(
        {
          host: this.credentials.server.hostname,
          port: this.credentials.server.port,
          method,
          path,
          agent: this.agent,
          timeout: 10_000,
          headers: {
            accept: 'application/json',
            'user-agent': 'shice-lab-kubelet',
            ...(payload === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text === '' ? null : JSON.parse(text);
            } catch {}
            resolvePromise({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** A request that must answer 2xx; anything else is an ApiError with the API's message. */
  async must(method: string, path: string, body?: unknown, contentType?: string): Promise<Record<string, unknown>> {
    const answer = await this.call(method, path, body, contentType);
    if (answer.status < 200 || answer.status > 299) {
      const message = (answer.body as { message?: unknown } | null)?.message;
      throw new ApiError(`${method} ${path}: ${answer.status} ${typeof message === 'string' ? message : JSON.stringify(answer.body)}`, answer.status);
    }
    return (answer.body ?? {}) as Record<string, unknown>;
  }

  /**
   * Streams a watch until the server ends it or the signal aborts; each line is
   * one event. Resolves when the stream ends (the caller starts a new watch).
   */
  watch(path: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<void> {
    return new Promise((resolvePromise, reject) => {
      const req = request(
        {
          host: this.credentials.server.hostname,
          port: this.credentials.server.port,
          method: 'GET',
          path,
          agent: this.agent,
          signal,
          headers: { accept: 'application/json', 'user-agent': 'shice-lab-kubelet' },
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new ApiError(`GET ${path}: ${res.statusCode}`, res.statusCode ?? 0));
            return;
          }
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            let newline = buffered.indexOf('\n');
            while (newline >= 0) {
              const line = buffered.slice(0, newline).trim();
              buffered = buffered.slice(newline + 1);
              if (line !== '') onEvent(JSON.parse(line) as WatchEvent);
              newline = buffered.indexOf('\n');
            }
          });
          res.on('end', () => resolvePromise());
          res.on('error', reject);
        },
      );
      req.on('error', (error) => (signal.aborted ? resolvePromise() : reject(error)));
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Keeps a watch open until the signal aborts: a watch the server ends, or one
 * that fails, is started again after `pauseMs` (the failure logged).
 */
export async function keepWatching(
  api: KubeApi,
  path: string,
  onEvent: (event: WatchEvent) => void,
  options: { signal: AbortSignal; sleep: (ms: number) => Promise<void>; log: (line: string) => void; what: string; pauseMs?: number },
): Promise<void> {
  while (!options.signal.aborted) {
    try {
      await api.watch(path, onEvent, options.signal);
    } catch (error) {
      if (options.signal.aborted) return;
      options.log(`${options.what}: ${(error as Error).message}`);
      await options.sleep(options.pauseMs ?? 200);
    }
  }
}
