// A GET of the API server from this process, with the capture's kubeconfig: the
// health check lists the pods after every step, and kubectl's own start took most
// of that check (0.15 s of about 0.2 s, on 2 cores). Only where kubectl itself
// would talk to the API from this machine (no runner) and the kubeconfig's user
// holds a client certificate; anything else stays kubectl's.
import { request } from 'node:https';
import { createSecureContext } from 'node:tls';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';

/** The current context's server and client certificate, as a kubeconfig gives them. */
export interface ApiCredentials {
  server: string;
  ca: Buffer | null;
  cert: Buffer;
  key: Buffer;
}

type Record_ = Record<string, unknown>;
const isRecord = (v: unknown): v is Record_ => typeof v === 'object' && v !== null && !Array.isArray(v);
const named = (list: unknown, name: unknown, key: string): Record_ | null => {
  if (!Array.isArray(list)) return null;
  const entry = list.find((e) => isRecord(e) && e['name'] === name);
  return isRecord(entry) && isRecord(entry[key]) ? (entry[key] as Record_) : null;
};

/**
 * The current context's server and client credentials from a kubeconfig's text; `read` reads a file
 * the kubeconfig names (relative to its own folder). Null where it has no client certificate (a token,
 * an exec plugin) or one this process cannot load: kubectl knows those, this does not.
 */
export function kubeconfigCredentials(text: string, file: string, read: (path: string) => Buffer): ApiCredentials | null {
  const config: unknown = parse(text);
  if (!isRecord(config)) return null;
  const context = named(config['contexts'], config['current-context'], 'context');
  if (context === null) return null;
  const cluster = named(config['clusters'], context['cluster'], 'cluster');
  const user = named(config['users'], context['user'], 'user');
  if (cluster === null || user === null || typeof cluster['server'] !== 'string' || !cluster['server'].startsWith('https://')) return null;
  const bytes = (from: Record_, field: string): Buffer | null => {
    const data = from[`${field}-data`];
    if (typeof data === 'string') return Buffer.from(data, 'base64');
    const path = from[field];
    return typeof path === 'string' ? read(resolve(dirname(file), path)) : null;
  };
  const cert = bytes(user, 'client-certificate');
  const key = bytes(user, 'client-key');
  if (cert === null || key === null) return null;
  const ca = bytes(cluster, 'certificate-authority');
  try {
    createSecureContext({ cert, key, ...(ca === null ? {} : { ca }) });
  } catch {
    return null;
  }
  return { server: cluster['server'], ca, cert, key };
}

/** A GET as a dry run prints it: the request line, which the capture's process sends itself. */
export const apiGetLine = (path: string): string[] => ['GET', path];

/** What a GET answered, or why there was no answer (one phrase). */
export type ApiAnswer = { status: number; body: string } | { failed: string };

/** GET `path` of the API server, bounded by `timeoutMs`; never throws. */
export function apiGet(credentials: ApiCredentials, path: string, timeoutMs: number, signal: AbortSignal): Promise<ApiAnswer> {
  return new Promise((done) => {
    let req;
    try {
      req = request(
        new URL(path, credentials.server),
        {
          method: 'GET',
          headers: { accept: 'application/json' },
          cert: credentials.cert,
          key: credentials.key,
          ...(credentials.ca === null ? {} : { ca: credentials.ca }),
          timeout: timeoutMs,
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (error) => done({ failed: error.message }));
        },
      );
    } catch (error) {
      done({ failed: (error as Error).message });
      return;
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', (error) => done({ failed: error.message }));
    req.end();
  });
}
