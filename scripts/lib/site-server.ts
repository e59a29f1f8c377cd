// The built site served as a static host serves it (src/site-serve.ts decides
// each answer): for `npm run preview`, the browser suite and the screenshots.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { answerFor, contentType, requestPath } from '../../src/site-serve.ts';
import { DEFAULT_LANG, LANGS } from '../../src/site.config.ts';

export interface SiteServer {
  server: Server;
  /** The site's root URL, base path included. */
  url: string;
}

function badRequest(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('bad request\n');
}

/** Serves `dist` under `base` on host:port (port 0: any free one); resolves once it listens. */
export async function serveSite(options: { dist: string; base: string; host: string; port: number }): Promise<SiteServer> {
  const { dist, base, host, port } = options;
  const isFile = (path: string) => {
    try {
      return statSync(join(dist, path)).isFile();
    } catch {
      return false;
    }
  };
  const sections = LANGS.filter((lang) => lang !== DEFAULT_LANG);
  const server = createServer((req, res) => {
    // Every request is answered inside this try: one that cannot be parsed (`GET http://[`) or read is a
    // 400 for that request, and the server goes on serving the next.
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD' }).end();
        return;
      }
      const path = requestPath(req.url);
      if (path === null) {
        badRequest(res);
        return;
      }
      const answer = answerFor(path, { base, sections, isFile });
      if (answer.file === null) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
        return;
      }
      const body = readFileSync(join(dist, answer.file));
      res.writeHead(answer.status, { 'content-type': contentType(answer.file), 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      badRequest(res);
    }
  });
  // A request the HTTP parser itself refuses is answered 400 on its socket; the server is untouched.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}${base}` };
}
